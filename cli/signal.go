package cli

import (
	"fmt"
	"strings"

	"github.com/urfave/cli/v2"

	"github.com/agent-deck/agent-deck/backend"
	"github.com/agent-deck/agent-deck/cli/client"
)

func signalsCommand() *cli.Command {
	return &cli.Command{
		Name: "signals", Usage: "list feedback signals agents recorded (admin)",
		Flags: []cli.Flag{jsonFlag}, Action: signalList,
	}
}

func signalCommand() *cli.Command {
	return &cli.Command{
		Name: "signal", Usage: "manage feedback signals (admin)",
		Subcommands: []*cli.Command{
			{Name: "discard", Usage: "discard signals, all or none", ArgsUsage: "ID...",
				Flags: []cli.Flag{yesFlag, jsonFlag}, Action: signalDiscard},
		},
	}
}

func signalList(c *cli.Context) error {
	return printList(c, func(cl *client.Client) ([]backend.Signal, error) { return cl.ListSignals(c.Context) },
		[]string{"ID", "STATUS", "PLAYBOOK", "PROPOSAL", "RATIONALE", "CREATED"},
		func(g backend.Signal) []string {
			return []string{g.ID, string(g.Status), orDash(g.PlaybookID), orDash(g.ProposalID), clip(g.Rationale, 60),
				stamp(&g.CreatedAt)}
		})
}

func signalDiscard(c *cli.Context) error {
	ids, err := positional(c)
	if err != nil {
		return err
	}
	if len(ids) == 0 {
		return userError("signal discard needs at least one signal id (agent-deck signals lists them)")
	}
	if err := confirm(c, fmt.Sprintf("Discard %d signal(s) (%s)?", len(ids), strings.Join(ids, ", "))); err != nil {
		return err
	}
	cl, err := apiClient(c)
	if err != nil {
		return err
	}
	list, err := cl.DiscardSignals(c.Context, ids)
	if err != nil {
		return fail(err)
	}
	if c.Bool("json") {
		return printJSON(c.App.Writer, list)
	}
	_, err = fmt.Fprintf(c.App.Writer, "Discarded %d signal(s)\n", len(list))
	return err
}
