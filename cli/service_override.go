package cli

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/urfave/cli/v2"

	"github.com/agent-deck/agent-deck/backend"
)

// serviceOverrideCommand sets what agents see of one downstream tool instead of its own title,
// description or annotations. Admin only, like the route.
func serviceOverrideCommand() *cli.Command {
	hints := []struct{ flag, name string }{{"read-only", "readOnlyHint"}, {"destructive", "destructiveHint"}, {"open-world", "openWorldHint"}}
	flags := []cli.Flag{jsonFlag,
		&cli.StringFlag{Name: "title", Usage: "the title agents see"},
		&cli.StringFlag{Name: "description", Usage: "the description agents see"},
		&cli.BoolFlag{Name: "clear", Usage: "drop the tool's override: agents see the downstream's own definition again"},
	}
	for _, h := range hints {
		flags = append(flags, &cli.StringFlag{Name: h.flag, Usage: "true or false: the " + h.name + " agents see"})
	}
	return &cli.Command{
		Name:      "override",
		Usage:     "set what agents see of one tool: title, description, read-only, destructive, open-world",
		ArgsUsage: "SERVICE TOOL",
		Description: "Agents see the override in place of the downstream's own text; --read-only true lets " +
			"agent:read tokens call the tool. Pins still compare the downstream's own definition, so a tool " +
			"the downstream changes is held whatever its override says. Options not given keep the " +
			"downstream's own; --clear drops the override.",
		Flags: flags,
		Action: func(c *cli.Context) error {
			args, err := positional(c)
			if err != nil {
				return err
			}
			if len(args) != 2 || strings.TrimSpace(args[0]) == "" || strings.TrimSpace(args[1]) == "" {
				return userError("%s: expected a service id or name and a tool name", commandName(c))
			}
			var in backend.ToolOverride
			if !c.Bool("clear") {
				if c.IsSet("title") {
					v := c.String("title")
					in.Title = &v
				}
				if c.IsSet("description") {
					v := c.String("description")
					in.Description = &v
				}
				for _, h := range hints {
					if !c.IsSet(h.flag) {
						continue
					}
					b, err := strconv.ParseBool(c.String(h.flag))
					if err != nil {
						return userError("%s: --%s expects true or false, got %q", commandName(c), h.flag, c.String(h.flag))
					}
					switch h.flag {
					case "read-only":
						in.ReadOnlyHint = &b
					case "destructive":
						in.DestructiveHint = &b
					default:
						in.OpenWorldHint = &b
					}
				}
				if in.Empty() {
					return userError("%s: give --title, --description, --read-only, --destructive or --open-world, or --clear", commandName(c))
				}
			}
			cl, err := apiClient(c)
			if err != nil {
				return err
			}
			res, err := cl.SetToolOverride(c.Context, args[0], args[1], in)
			if err != nil {
				return fail(err)
			}
			if c.Bool("json") {
				return printJSON(c.App.Writer, res)
			}
			if in.Empty() {
				_, err = fmt.Fprintf(c.App.Writer, "Agents see %s of %s as the downstream defines it.\n", args[1], res.Name)
				return err
			}
			_, err = fmt.Fprintf(c.App.Writer, "Agents now see %s of %s with the override; pins still compare the downstream's own definition.\n", args[1], res.Name)
			return err
		},
	}
}
