package tests

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/agent-deck/agent-deck/backend"
	"github.com/agent-deck/agent-deck/backend/core"
)

// TestCLIProposalReview: an agent proposes an add_item fix over MCP, a person reviews and accepts it
// with the CLI, and the agent's next get_playbook shows the change, with a version naming the
// proposal. A proposal whose anchor went away ends stale: exit 1 (409) and no change.
func TestCLIProposalReview(t *testing.T) {
	w := newMCPToolsWorld(t)
	pb := w.dev.Playbook
	home := w.s.home
	var res core.ProposeResult
	w.agent.ok("propose_playbook_patch", map[string]any{"kind": "update", "playbook_id": pb.ID,
		"rationale": "the user asked for a dry run first",
		"ops":       []map[string]any{{"op": "add_item", "section": "Checks", "text": "dry-run first"}}}, &res)
	id := res.Proposal.ID

	list := runCLI(home, strings.NewReader(""), "proposals", "--status", "open").wantCode(t, 0)
	if !strings.Contains(list.stdout, id) || !strings.Contains(list.stdout, "dry run first") {
		t.Errorf("proposals:\n%s", list.stdout)
	}
	show := runCLI(home, strings.NewReader(""), "proposal", "show", id).wantCode(t, 0)
	if !strings.Contains(show.stdout, "+- dry-run first") || !strings.Contains(show.stdout, "+## Checks") ||
		strings.Contains(show.stdout, "\x1b[") {
		t.Errorf("show (plain, not a terminal):\n%s", show.stdout)
	}
	runCLI(home, strings.NewReader(""), "proposal", "accept", id).wantCode(t, 1) // no --yes, no terminal
	runCLI(home, strings.NewReader(""), "proposal", "accept", id, "--yes").wantCode(t, 0)

	var view core.BoundPlaybookView
	w.agent.ok("get_playbook", map[string]any{"playbook_id": pb.ID}, &view)
	if !strings.Contains(view.Body, "## Checks\n\n- dry-run first") || len(view.OpenProposals) != 0 {
		t.Errorf("get_playbook after accept: %q, open %+v", view.Body, view.OpenProposals)
	}
	vs, err := w.s.svc.ListPlaybookVersions(w.s.adminCtx(), pb.ID)
	if err != nil || len(vs) == 0 || vs[0].ProposalID != id || vs[0].Actor != backend.ActorAgent {
		t.Fatalf("versions %+v %v, want the newest naming proposal %s", vs, err, id)
	}

	t.Run("stale", func(t *testing.T) {
		var stale core.ProposeResult
		w.agent.ok("propose_playbook_patch", map[string]any{"kind": "update", "playbook_id": pb.ID,
			"rationale": "word it better",
			"ops":       []map[string]any{{"op": "amend_item", "section": "Checks", "anchor": "dry-run first", "text": "always dry-run first"}}}, &stale)
		body := "# Release\n1. echo it\n\n## Checks\n\n- lint\n"
		if _, err := w.s.svc.UpdatePlaybook(w.s.adminCtx(), pb.ID, core.PlaybookPatch{Body: &body}); err != nil {
			t.Fatal(err)
		}
		r := runCLI(home, strings.NewReader(""), "proposal", "accept", stale.Proposal.ID, "--yes").wantCode(t, 1)
		if !strings.Contains(r.stderr, "PATCH_CONFLICT") && !strings.Contains(r.stderr, "stale") {
			t.Errorf("stale accept said:\n%s", r.stderr)
		}
		got, err := w.s.svc.GetPlaybook(w.s.adminCtx(), pb.ID)
		if err != nil || got.Body != body {
			t.Errorf("a stale accept changed the playbook: %q %v", got.Body, err)
		}
		out := runCLI(home, strings.NewReader(""), "proposals", "--status", "stale", "--json").wantCode(t, 0)
		var ps []backend.Proposal
		if err := json.Unmarshal([]byte(out.stdout), &ps); err != nil || len(ps) != 1 || ps[0].ID != stale.Proposal.ID {
			t.Errorf("stale proposals %s %v", out.stdout, err)
		}
	})

	t.Run("reject and signals", func(t *testing.T) {
		var sig core.ProposeResult
		w.agent.ok("propose_playbook_patch", map[string]any{"kind": "signal_only", "playbook_id": pb.ID,
			"rationale": "the user prefers tags"}, &sig)
		var p core.ProposeResult
		w.agent.ok("propose_playbook_patch", map[string]any{"kind": "update", "playbook_id": pb.ID,
			"rationale": "tags", "signal_ids": []string{sig.Signal.ID},
			"ops": []map[string]any{{"op": "add_item", "section": "Checks", "text": "tag it"}}}, &p)
		runCLI(home, strings.NewReader(""), "proposal", "reject", p.Proposal.ID, "--reason", "not now", "--yes").wantCode(t, 0)
		out := runCLI(home, strings.NewReader(""), "signals").wantCode(t, 0)
		if !strings.Contains(out.stdout, sig.Signal.ID) || !strings.Contains(out.stdout, "open") {
			t.Errorf("signals after reject:\n%s", out.stdout)
		}
		runCLI(home, strings.NewReader(""), "signal", "discard", sig.Signal.ID, "--yes").wantCode(t, 0)
		out = runCLI(home, strings.NewReader(""), "signals", "--json").wantCode(t, 0)
		if !strings.Contains(out.stdout, `"discarded"`) {
			t.Errorf("signals after discard: %s", out.stdout)
		}
	})
}
