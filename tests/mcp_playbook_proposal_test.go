package tests

import (
	"strings"
	"testing"

	"github.com/agent-deck/agent-deck/backend"
	"github.com/agent-deck/agent-deck/backend/core"
)

// TestMCPProposePlaybookPatch: an agent proposes a fix with propose_playbook_patch; the
// playbook does not change until a person accepts; get_playbook shows the open proposal.
func TestMCPProposePlaybookPatch(t *testing.T) {
	w := newMCPToolsWorld(t)
	pb := w.dev.Playbook
	var res core.ProposeResult
	w.agent.ok("propose_playbook_patch", map[string]any{"kind": "update", "playbook_id": pb.ID,
		"rationale": "the user said to dry-run first",
		"ops":       []map[string]any{{"op": "add_item", "section": "Checks", "text": "dry-run first"}},
		"evidence":  map[string]any{"user_feedback_excerpt": "always dry-run"}}, &res)
	if res.Proposal == nil || res.Proposal.Status != backend.ProposalOpen {
		t.Fatalf("propose = %+v", res)
	}
	var view core.BoundPlaybookView
	w.agent.ok("get_playbook", map[string]any{"playbook_id": pb.ID}, &view)
	if strings.Contains(view.Body, "dry-run") {
		t.Error("a proposal changed the playbook before review")
	}
	if len(view.OpenProposals) != 1 || view.OpenProposals[0].ID != res.Proposal.ID ||
		!strings.Contains(view.OpenProposals[0].Summary, "dry-run first") {
		t.Errorf("open proposals = %+v", view.OpenProposals)
	}
	acc, err := w.s.svc.AcceptProposal(w.s.adminCtx(), res.Proposal.ID)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasSuffix(acc.Playbook.Body, "## Checks\n\n- dry-run first") {
		t.Errorf("accepted body = %q", acc.Playbook.Body)
	}
}

func TestMCPProposePlaybookPatchErrors(t *testing.T) {
	w := newMCPToolsWorld(t)
	pb := w.dev.Playbook.ID
	mcpRunErrCases(t, w, []mcpErrCase{
		{"unbound", mcpUnboundConn, "propose_playbook_patch", map[string]any{"kind": "signal_only", "rationale": "r"},
			"NOT_BOUND", []string{"bind_workspace"}},
		{"read scope", mcpReaderConn, "propose_playbook_patch", map[string]any{"kind": "signal_only", "rationale": "r"},
			"FORBIDDEN", nil},
		{"off deck", mcpAgentConn, "propose_playbook_patch", map[string]any{"kind": "retire", "rationale": "r",
			"playbook_id": w.other.Playbook.ID}, "NOT_ON_BOUND_DECK", []string{pb}},
		{"unknown kind", mcpAgentConn, "propose_playbook_patch", map[string]any{"kind": "patch", "rationale": "r"},
			"INVALID_ARGUMENT", []string{"update", "signal_only"}},
		{"unknown op field", mcpAgentConn, "propose_playbook_patch", map[string]any{"kind": "update", "rationale": "r",
			"playbook_id": pb, "ops": []map[string]any{{"op": "add_item", "heading": "x"}}},
			"INVALID_ARGUMENT", []string{"ops[0]", "section"}},
		{"unknown op", mcpAgentConn, "propose_playbook_patch", map[string]any{"kind": "update", "rationale": "r",
			"playbook_id": pb, "ops": []map[string]any{{"op": "append"}}},
			"INVALID_ARGUMENT", []string{"add_item", "rewrite_body"}},
		{"ops not a list", mcpAgentConn, "propose_playbook_patch", map[string]any{"kind": "update", "rationale": "r",
			"playbook_id": pb, "ops": "add"}, "INVALID_ARGUMENT", []string{"array of objects"}},
		{"anchor missing", mcpAgentConn, "propose_playbook_patch", map[string]any{"kind": "update", "rationale": "r",
			"playbook_id": pb, "ops": []map[string]any{{"op": "remove_item", "section": "Release", "anchor": "nope"}}},
			"PATCH_CONFLICT", []string{"Release"}},
		{"no change", mcpAgentConn, "propose_playbook_patch", map[string]any{"kind": "update", "rationale": "r",
			"playbook_id": pb, "ops": []map[string]any{{"op": "set_triggers", "triggers": []string{"release dev"}}}},
			"PATCH_NO_CHANGE", nil},
	})
}
