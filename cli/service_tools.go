package cli

import (
	"encoding/json"
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/urfave/cli/v2"

	"github.com/agent-deck/agent-deck/backend"
	"github.com/agent-deck/agent-deck/backend/core"
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
			// What any connection saw held (admin only: it shows the unapproved text).
			held, herr := cl.ListHeldTools(c.Context, ref)
			heldNames := map[string]bool{}
			for _, h := range held {
				heldNames[h.Name] = true
			}
			rows := make([][]string, len(tools))
			for i, t := range tools {
				rows[i] = []string{t.Name, yesNo(t.Enabled), yesNo(t.Held || heldNames[t.Name])}
			}
			if err := printTable(c.App.Writer, []string{"TOOL", "ENABLED", "HELD"}, rows); err != nil || herr != nil || len(held) == 0 {
				return err
			}
			return printHeld(c.App.Writer, ref, held)
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

// printHeld shows each held definition: what changed, where it was seen, its hash, and the
// command that approves exactly it.
func printHeld(w io.Writer, ref string, held []core.HeldTool) error {
	fmt.Fprintf(w, "\nHeld definitions (approve one with: agent-deck service approve %s TOOL --hash HASH):\n", ref)
	for _, h := range held {
		fmt.Fprintf(w, "\n%s  %s\n  hash:    %s\n  seen on: %s (last %s)\n", h.Name, h.Change, h.Hash,
			strings.Join(h.SeenOn, ", "), h.LastSeen.UTC().Format("2006-01-02 15:04:05Z"))
		for _, line := range heldDiff(h) {
			fmt.Fprintf(w, "  %s\n", line)
		}
	}
	return nil
}

// heldDiff is the approved and the held text of what people read: description, title and
// annotations, then the input schema when it differs.
func heldDiff(h core.HeldTool) []string {
	var oldT, newT map[string]json.RawMessage
	_ = json.Unmarshal(h.Approved, &oldT)
	_ = json.Unmarshal(h.Definition, &newT)
	var out []string
	for _, k := range []string{"title", "description", "annotations", "inputSchema", "outputSchema"} {
		o, n := string(oldT[k]), string(newT[k])
		if o == n {
			continue
		}
		if o != "" {
			out = append(out, "- "+k+": "+o)
		}
		if n != "" {
			out = append(out, "+ "+k+": "+n)
		}
	}
	return out
}
