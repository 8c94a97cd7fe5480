package cli

import (
	"fmt"
	"io"
	"strings"

	"github.com/urfave/cli/v2"

	"github.com/agent-deck/agent-deck/backend/core"
)

// serviceApproveCommand is the person's review of changed downstream tools: it pins their
// current definitions so agents may call them again (tool pinning). Admin only, like the route.
func serviceApproveCommand() *cli.Command {
	return &cli.Command{
		Name:      "approve",
		Usage:     "approve the held definitions of a service's tools (changed or new since approved)",
		ArgsUsage: "SERVICE [TOOL...]",
		Description: "Agent Deck holds a downstream tool whose description or schema changed since it was " +
			"approved, and a tool added after the service was first reached, until you approve it. " +
			"What is held is what any connection to the service saw (its own credential or a deck's): " +
			"review it first with `agent-deck service tools SERVICE`, which shows each held definition, " +
			"what changed and its hash. Approve pins exactly that definition; with no TOOL, every held " +
			"tool is approved. A tool held with several definitions is approved by --hash.",
		Flags: []cli.Flag{yesFlag, jsonFlag, &cli.StringSliceFlag{Name: "hash", Usage: "approve only the held definition with this hash (repeatable)"}},
		Action: func(c *cli.Context) error {
			args, err := positional(c)
			if err != nil {
				return err
			}
			if len(args) == 0 || strings.TrimSpace(args[0]) == "" {
				return userError("%s: expected a service id or name, then optionally tool names", commandName(c))
			}
			which := "every held tool"
			if len(args) > 1 {
				which = strings.Join(args[1:], ", ")
			}
			if err := confirm(c, fmt.Sprintf("Approve the current definitions of %s of %s?", which, args[0])); err != nil {
				return err
			}
			cl, err := apiClient(c)
			if err != nil {
				return err
			}
			res, err := cl.ApproveServiceTools(c.Context, args[0], core.ApproveToolsInput{Tools: args[1:], Hashes: c.StringSlice("hash")})
			if err != nil {
				return fail(err)
			}
			if c.Bool("json") {
				return printJSON(c.App.Writer, res)
			}
			return printApprovals(c.App.Writer, res)
		},
	}
}

// printApprovals says which tools were approved and what about them changed.
func printApprovals(w io.Writer, res core.ToolApprovals) error {
	if len(res.Approved) == 0 {
		_, err := fmt.Fprintf(w, "Nothing to approve: every tool of %s matches its approved definition.\n", res.ServiceName)
		return err
	}
	noun := "tools"
	if len(res.Approved) == 1 {
		noun = "tool"
	}
	fmt.Fprintf(w, "Approved %d %s of %s:\n", len(res.Approved), noun, res.ServiceName)
	rows := make([][]string, len(res.Approved))
	for i, a := range res.Approved {
		rows[i] = []string{a.Name, a.Change, a.Hash}
	}
	if err := printTable(w, []string{"TOOL", "APPROVED CHANGE", "HASH"}, rows); err != nil {
		return err
	}
	if len(res.Unchanged) > 0 {
		_, err := fmt.Fprintf(w, "Unchanged: %s\n", strings.Join(res.Unchanged, ", "))
		return err
	}
	return nil
}
