package cli

import (
	"testing"

	"github.com/agent-deck/agent-deck/backend"
	"github.com/agent-deck/agent-deck/backend/core"
)

// TestCmdProposalsAndSignals runs the review commands of the learning loop against proposals and
// a signal an agent made through the core: list, show with its diff, accept, reject, and the
// signals that reopen and are discarded.
func TestCmdProposalsAndSignals(t *testing.T) {
	e := startCmdEnv(t)
	w := e.seed()
	sess := e.session(w, "claude-code")
	propose := func(in core.ProposeInput) core.ProposeResult {
		t.Helper()
		res, err := e.hub.ProposePlaybookPatch(w.agent, sess.ID, in)
		if err != nil {
			t.Fatal(err)
		}
		return res
	}
	pb := w.pullRequest.ID
	signal := propose(core.ProposeInput{Kind: backend.ProposalSignalOnly, PlaybookID: pb,
		Rationale: "the user prefers draft pull requests"}).Signal
	draft := propose(core.ProposeInput{Kind: backend.ProposalUpdate, PlaybookID: pb,
		Rationale: "the user asked for a draft first", SignalIDs: []string{signal.ID},
		Evidence: backend.Evidence{UserFeedbackExcerpt: "open it as a draft", FailureSummary: "the PR was opened ready"},
		Ops:      []backend.PlaybookOp{{Op: backend.OpAddItem, Section: "Checks", Text: "open it as a draft"}}}).Proposal
	tests := propose(core.ProposeInput{Kind: backend.ProposalUpdate, PlaybookID: pb,
		Rationale: "run the tests before opening it",
		Ops:       []backend.PlaybookOp{{Op: backend.OpAddItem, Section: "Checks", Text: "run the tests"}}}).Proposal
	later := propose(core.ProposeInput{Kind: backend.ProposalSignalOnly, PlaybookID: pb,
		Rationale: "the user wants the branch named after the issue"}).Signal
	const unknown = "00000000-0000-4000-8000-00000000dead"
	e.runCases(t, "learn", []cmdCase{
		{name: "proposals", args: []string{"proposals"}},
		{name: "proposals-json", args: []string{"proposals", "--status", "open", "--json"}},
		{name: "proposals-bad-status", args: []string{"proposals", "--status", "pending"}, code: 1},
		{name: "show", args: []string{"proposal", "show", draft.ID}},
		{name: "show-json", args: []string{"proposal", "show", tests.ID, "--json"}},
		{name: "show-unknown", args: []string{"proposal", "show", unknown}, code: 1},
		{name: "signals", args: []string{"signals"}},
		{name: "accept-without-yes", args: []string{"proposal", "accept", draft.ID}, code: 1},
		{name: "accept", args: []string{"proposal", "accept", draft.ID, "--yes"}},
		{name: "accept-again", args: []string{"proposal", "accept", draft.ID, "--yes"}, code: 1},
		{name: "reject-json", args: []string{"proposal", "reject", tests.ID, "--reason", "not now", "--yes", "--json"}},
		{name: "proposals-after", args: []string{"proposals"}},
		{name: "signals-json", args: []string{"signals", "--json"}},
		{name: "discard-nothing", args: []string{"signal", "discard"}, code: 1},
		{name: "discard-without-yes", args: []string{"signal", "discard", signal.ID}, code: 1},
		{name: "discard", args: []string{"signal", "discard", signal.ID, "--yes"}},
		{name: "discard-json-last", args: []string{"signal", "discard", later.ID, "--json", "--yes"}},
		{name: "signals-after", args: []string{"signals"}},
	})
}
