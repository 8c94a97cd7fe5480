package cli

import (
	"fmt"
	"strings"

	"github.com/urfave/cli/v2"
)

// deckSamplingCommand allows or forbids a service on a deck to ask the agent's model for
// completions (MCP sampling), which is off until an admin allows it.
func deckSamplingCommand() *cli.Command {
	return &cli.Command{
		Name: "sampling", Usage: "allow or forbid a service on a deck to ask the agent's model for completions",
		ArgsUsage: "DECK SERVICE",
		Flags: []cli.Flag{
			&cli.BoolFlag{Name: "allow", Usage: "let the service sample through agents on this deck"},
			&cli.BoolFlag{Name: "deny", Usage: "take the permission back (the default)"},
			jsonFlag,
		},
		Action: func(c *cli.Context) error {
			args, err := positional(c)
			if err != nil {
				return err
			}
			if len(args) != 2 || strings.TrimSpace(args[0]) == "" || strings.TrimSpace(args[1]) == "" {
				return userError("%s: expected a deck and a service", commandName(c))
			}
			if c.Bool("allow") == c.Bool("deny") {
				return userError("%s: give exactly one of --allow or --deny", commandName(c))
			}
			cl, err := apiClient(c)
			if err != nil {
				return err
			}
			out, err := cl.SetDeckSampling(c.Context, args[0], args[1], c.Bool("allow"))
			if err != nil {
				return fail(err)
			}
			if c.Bool("json") {
				return printJSON(c.App.Writer, out)
			}
			verb := "may not"
			if out.Allowed {
				verb = "may"
			}
			_, err = fmt.Fprintf(c.App.Writer, "On deck %s, service %s %s ask the agent's model for completions\n",
				out.DeckName, out.ServiceName, verb)
			return err
		},
	}
}
