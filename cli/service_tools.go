package cli

import (
	"fmt"
	"slices"
	"strings"

	"github.com/urfave/cli/v2"

	"github.com/agent-deck/agent-deck/backend"
)

func serviceToolsCommand() *cli.Command {
	return &cli.Command{
		Name: "tools", Usage: "list a service's downstream tools: enabled, held for approval",
		ArgsUsage: "NAME", Flags: []cli.Flag{jsonFlag},
		Action: func(c *cli.Context) error {
			ref, cl, err := refAndClient(c, "service id or name")
			if err != nil {
				return err
			}
			tools, err := cl.ListServiceTools(c.Context, ref)
			if err != nil {
				return fail(err)
			}
			if c.Bool("json") {
				return printJSON(c.App.Writer, orEmptyList(tools))
			}
			rows := make([][]string, len(tools))
			for i, t := range tools {
				rows[i] = []string{t.Name, yesNo(t.Enabled), yesNo(t.Held)}
			}
			return printTable(c.App.Writer, []string{"TOOL", "ENABLED", "HELD"}, rows)
		},
	}
}

func yesNo(b bool) string {
	if b {
		return "yes"
	}
	return "no"
}

// serviceToggleCommand is `service enable` (enable=true) or `service disable`: it computes the
// new disabled list from the current one and sets it whole.
func serviceToggleCommand(enable bool) *cli.Command {
	verb := "disable"
	if enable {
		verb = "enable"
	}
	return &cli.Command{
		Name: verb, Usage: verb + " some of a service's tools for every deck", ArgsUsage: "NAME TOOL...",
		Flags: []cli.Flag{jsonFlag},
		Action: func(c *cli.Context) error {
			args, err := positional(c)
			if err != nil {
				return err
			}
			if len(args) < 2 || strings.TrimSpace(args[0]) == "" {
				return userError("%s: expected a service id or name, then one or more tool names", commandName(c))
			}
			cl, err := apiClient(c)
			if err != nil {
				return err
			}
			cur, err := cl.GetService(c.Context, args[0])
			if err != nil {
				return fail(err)
			}
			res, err := cl.SetDisabledTools(c.Context, cur.ID, toggled(cur.DisabledTools, args[1:], enable))
			if err != nil {
				return fail(err)
			}
			if c.Bool("json") {
				return printJSON(c.App.Writer, res)
			}
			for _, w := range res.Warnings {
				fmt.Fprintln(c.App.ErrWriter, "warning:", w.Message)
			}
			_, err = fmt.Fprintf(c.App.Writer, "%sd on %s: %s\ndisabled tools: %s\n", strings.ToUpper(verb[:1])+verb[1:],
				res.Name, strings.Join(args[1:], ", "), joinOrDash(res.DisabledTools))
			return err
		},
	}
}

// toggled is the disabled list after enabling (removing) or disabling (adding) names.
func toggled(disabled, names []string, enable bool) []string {
	out := []string{}
	for _, d := range disabled {
		if !enable || !slices.Contains(names, d) {
			out = append(out, d)
		}
	}
	if !enable {
		for _, n := range names {
			if !slices.Contains(out, n) {
				out = append(out, n)
			}
		}
	}
	return out
}

// printHealth prints a check's health as JSON or as key: value lines.
func printHealth(c *cli.Context, h backend.Health) error {
	if c.Bool("json") {
		return printJSON(c.App.Writer, h)
	}
	pairs := [][2]string{{"health", string(h.Status)}}
	if h.LastError != "" {
		pairs = append(pairs, [2]string{"last error", h.LastError})
	}
	return keyValues(c.App.Writer, pairs)
}

func serviceCheckCommand() *cli.Command {
	return &cli.Command{
		Name: "check", Usage: "reach a service now and show its health (exit 1 unless healthy)", ArgsUsage: "NAME",
		Flags: []cli.Flag{jsonFlag},
		Action: func(c *cli.Context) error {
			ref, cl, err := refAndClient(c, "service id or name")
			if err != nil {
				return err
			}
			h, err := cl.CheckService(c.Context, ref)
			if err != nil {
				return fail(err)
			}
			if err := printHealth(c, h); err != nil {
				return err
			}
			if h.Status != backend.HealthHealthy {
				return cli.Exit("", exitUser)
			}
			return nil
		},
	}
}
