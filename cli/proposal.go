package cli

import (
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/urfave/cli/v2"
	"golang.org/x/term"

	"github.com/agent-deck/agent-deck/backend"
	"github.com/agent-deck/agent-deck/backend/core"
	"github.com/agent-deck/agent-deck/cli/client"
)

func proposalsCommand() *cli.Command {
	return &cli.Command{
		Name: "proposals", Usage: "list playbook changes agents proposed (admin)",
		Flags:  []cli.Flag{&cli.StringFlag{Name: "status", Usage: "open, accepted, rejected, stale or superseded"}, jsonFlag},
		Action: proposalList,
	}
}

func proposalCommand() *cli.Command {
	return &cli.Command{
		Name: "proposal", Usage: "review one playbook change an agent proposed (admin)",
		Subcommands: []*cli.Command{
			{Name: "show", Usage: "the proposal with a diff against the current playbook", ArgsUsage: "ID",
				Flags: []cli.Flag{jsonFlag}, Action: proposalShow},
			{Name: "accept", Usage: "apply it to the current playbook (stale when it no longer applies)", ArgsUsage: "ID",
				Flags: []cli.Flag{yesFlag, jsonFlag}, Action: proposalAccept},
			{Name: "reject", Usage: "reject it; its signals reopen", ArgsUsage: "ID",
				Flags:  []cli.Flag{&cli.StringFlag{Name: "reason", Usage: "why, kept with the proposal"}, yesFlag, jsonFlag},
				Action: proposalReject},
		},
	}
}

func proposalList(c *cli.Context) error {
	return printList(c, func(cl *client.Client) ([]backend.Proposal, error) {
		return cl.ListProposals(c.Context, c.String("status"))
	},
		[]string{"ID", "STATUS", "KIND", "PLAYBOOK", "RATIONALE", "BY", "DECIDED BY", "CREATED"},
		func(p backend.Proposal) []string {
			return []string{p.ID, string(p.Status), string(p.Kind), orDash(p.PlaybookID), clip(p.Rationale, 60),
				orDash(p.Person), orDash(p.DecidedBy), stamp(&p.CreatedAt)}
		})
}

func proposalShow(c *cli.Context) error {
	id, err := oneArg(c, "proposal id")
	if err != nil {
		return err
	}
	cl, err := apiClient(c)
	if err != nil {
		return err
	}
	pv, err := cl.GetProposal(c.Context, id)
	if err != nil {
		return fail(err)
	}
	if c.Bool("json") {
		return printJSON(c.App.Writer, pv)
	}
	w := c.App.Writer
	fmt.Fprintf(w, "Proposal %s (%s, %s) on %s\n%s\nRationale: %s\n", pv.ID, pv.Kind, pv.Status,
		orDash(pv.PlaybookID), pv.Summary, pv.Rationale)
	for _, e := range [][2]string{{"Failure", pv.Evidence.FailureSummary}, {"User said", pv.Evidence.UserFeedbackExcerpt},
		{"Expected", pv.Evidence.CorrectedOutputHint}} {
		if e[1] != "" {
			fmt.Fprintf(w, "%s: %s\n", e[0], e[1])
		}
	}
	if strings.Join(pv.TriggersBefore, "\x00") != strings.Join(pv.TriggersAfter, "\x00") {
		fmt.Fprintf(w, "Triggers: %s -> %s\n", strings.Join(pv.TriggersBefore, ", "), strings.Join(pv.TriggersAfter, ", "))
	}
	for _, warn := range pv.Warnings {
		fmt.Fprintf(w, "Warning: %s\n", warn.Message)
	}
	if pv.Conflict != nil {
		fmt.Fprintf(w, "Conflict (accepting now makes it stale): %s\n", pv.Conflict.Message)
	}
	if pv.Diff != "" {
		fmt.Fprintln(w)
		writeDiff(w, pv.Diff, writesToTerminal(w))
	}
	return nil
}

// writesToTerminal reports whether w is an interactive terminal (colour is for people only).
func writesToTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	return ok && term.IsTerminal(int(f.Fd()))
}

// writeDiff prints a unified diff, coloured on a terminal.
func writeDiff(w io.Writer, diff string, colour bool) {
	for _, line := range strings.SplitAfter(diff, "\n") {
		code := ""
		switch {
		case !colour || line == "":
		case strings.HasPrefix(line, "+++"), strings.HasPrefix(line, "---"):
			code = "\x1b[1m"
		case strings.HasPrefix(line, "+"):
			code = "\x1b[32m"
		case strings.HasPrefix(line, "-"):
			code = "\x1b[31m"
		case strings.HasPrefix(line, "@@"):
			code = "\x1b[36m"
		}
		if code == "" {
			fmt.Fprint(w, line)
			continue
		}
		text, nl := strings.CutSuffix(line, "\n")
		fmt.Fprint(w, code+text+"\x1b[0m")
		if nl {
			fmt.Fprintln(w)
		}
	}
}

func proposalAccept(c *cli.Context) error {
	return proposalDecide(c, "Accept", func(cl *client.Client, id string) (core.AcceptResult, error) {
		return cl.AcceptProposal(c.Context, id)
	})
}

func proposalReject(c *cli.Context) error {
	return proposalDecide(c, "Reject", func(cl *client.Client, id string) (core.AcceptResult, error) {
		return cl.RejectProposal(c.Context, id, c.String("reason"))
	})
}

func proposalDecide(c *cli.Context, verb string, do func(*client.Client, string) (core.AcceptResult, error)) error {
	id, err := oneArg(c, "proposal id")
	if err != nil {
		return err
	}
	if err := confirm(c, fmt.Sprintf("%s proposal %s?", verb, id)); err != nil {
		return err
	}
	cl, err := apiClient(c)
	if err != nil {
		return err
	}
	res, err := do(cl, id)
	if err != nil {
		return fail(err)
	}
	if c.Bool("json") {
		return printJSON(c.App.Writer, res)
	}
	_, err = fmt.Fprintf(c.App.Writer, "Proposal %s is %s\n", res.Proposal.ID, res.Proposal.Status)
	return err
}

func clip(s string, n int) string {
	s = strings.Join(strings.Fields(s), " ")
	if r := []rune(s); len(r) > n {
		return string(r[:n-1]) + "…"
	}
	return s
}
