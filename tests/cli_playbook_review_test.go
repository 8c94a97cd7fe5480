package tests

import (
	"strings"
	"testing"

	"github.com/agent-deck/agent-deck/backend"
	"github.com/agent-deck/agent-deck/backend/core"
	"github.com/agent-deck/agent-deck/cli"
)

// TestCLIPlaybookReviewRequired: a person makes a deck hold agents' playbook writes for review;
// an agent's update_playbook then answers with a proposal and leaves the body as it was, and the
// person's accept applies it. Direct edits stay the default: turning review off again lets the
// agent's next change take effect at once.
func TestCLIPlaybookReviewRequired(t *testing.T) {
	s := startMCPStack(t, mcpStackOptions{})
	fx := s.seedDeck(t, "dev", "http://127.0.0.1:9/mcp")
	before := runCLI(s.home, strings.NewReader(""), "deck", "review", "dev").wantCode(t, 0)
	if !strings.Contains(before.stdout, "take effect at once") || !strings.Contains(before.stdout, "server's default") {
		t.Errorf("deck review dev (default):\n%s", before.stdout)
	}
	on := runCLI(s.home, strings.NewReader(""), "deck", "review", "dev", "on").wantCode(t, 0)
	if !strings.Contains(on.stdout, "held for review") || !strings.Contains(on.stdout, "deck's own setting") {
		t.Errorf("deck review dev on:\n%s", on.stdout)
	}
	runCLI(s.home, strings.NewReader(""), "deck", "review", "dev", "maybe").wantCode(t, 1)
	back := runCLI(s.home, strings.NewReader(""), "deck", "review", "dev", "default").wantCode(t, 0)
	if !strings.Contains(back.stdout, "server's default") {
		t.Errorf("deck review dev default:\n%s", back.stdout)
	}
	runCLI(s.home, strings.NewReader(""), "deck", "review", "dev", "on").wantCode(t, 0)

	agent := s.connect(t, s.token(backend.ScopeAgent), nil, "")
	agent.ok("bind_workspace", map[string]any{"workspaceRoot": "/w/dev", "deckId": "dev"}, nil)
	body := "# Release\n1. echo it\n2. tag it"
	var held core.PlaybookResult
	agent.ok("update_playbook", map[string]any{"playbook_id": fx.Playbook.ID, "body": body,
		"triggers": []string{"release dev", "ship dev"}}, &held)
	if held.Proposal == nil || held.Proposal.Status != backend.ProposalOpen || held.Body != fx.Playbook.Body ||
		!strings.Contains(held.Next, "proposal show "+held.Proposal.ID) {
		t.Fatalf("update_playbook on a review deck = %+v", held)
	}
	var view core.BoundPlaybookView
	agent.ok("get_playbook", map[string]any{"playbook_id": fx.Playbook.ID}, &view)
	if view.Body != fx.Playbook.Body || len(view.OpenProposals) != 1 || view.OpenProposals[0].Summary != "edit body, triggers" {
		t.Fatalf("get_playbook while held: body %q, open %+v", view.Body, view.OpenProposals)
	}
	show := runCLI(s.home, strings.NewReader(""), "proposal", "show", held.Proposal.ID).wantCode(t, 0)
	if !strings.Contains(show.stdout, "+2. tag it") {
		t.Errorf("proposal show:\n%s", show.stdout)
	}
	runCLI(s.home, strings.NewReader(""), "proposal", "accept", held.Proposal.ID, "--yes").wantCode(t, 0)
	got, err := s.svc.GetPlaybook(s.adminCtx(), fx.Playbook.ID)
	if err != nil || got.Body != body || strings.Join(got.Triggers, ",") != "release dev,ship dev" {
		t.Fatalf("after accept: %+v %v", got, err)
	}
	vs, err := s.svc.ListPlaybookVersions(s.adminCtx(), fx.Playbook.ID)
	if err != nil || len(vs) != 1 || vs[0].ProposalID != held.Proposal.ID {
		t.Errorf("versions %+v %v, want one naming the proposal", vs, err)
	}

	runCLI(s.home, strings.NewReader(""), "deck", "review", "dev", "off").wantCode(t, 0)
	var direct core.PlaybookResult
	agent.ok("update_playbook", map[string]any{"playbook_id": fx.Playbook.ID, "body": "# Release\n1. ship"}, &direct)
	if direct.Proposal != nil || direct.Body != "# Release\n1. ship" {
		t.Errorf("update_playbook with review off = %+v, want the change made", direct)
	}
}

// TestPlaybookReviewServerDefault: serve --playbook-review holds agents' writes on every deck
// without its own setting, and on a playbook held by no deck; a deck set off is exempt, and a
// playbook on two decks is held when either requires review.
func TestPlaybookReviewServerDefault(t *testing.T) {
	s := startMCPStack(t, mcpStackOptions{Serve: func(c *cli.ServeConfig) { c.PlaybookReview = true }})
	strict := s.seedDeck(t, "strict", "http://127.0.0.1:9/mcp")
	lax := s.seedDeck(t, "lax", "http://127.0.0.1:9/mcp")
	ctx := s.adminCtx()
	off := false
	if _, err := s.svc.SetDeckPlaybookReview(ctx, "lax", core.DeckPlaybookReviewInput{Required: &off}); err != nil {
		t.Fatal(err)
	}
	shared, err := s.svc.CreatePlaybook(ctx, backend.PlaybookInput{Title: "shared", Body: "x", Triggers: []string{"shared"}})
	if err != nil {
		t.Fatal(err)
	}
	for _, d := range []string{strict.Deck.ID, lax.Deck.ID} {
		if _, err := s.svc.LinkCard(ctx, core.LinkCardInput{CardRef: core.CardRef{Deck: d, CardType: backend.CardPlaybook, CardID: shared.ID}}); err != nil {
			t.Fatal(err)
		}
	}
	agent := s.connect(t, s.token(backend.ScopeAgent), nil, "")
	agent.ok("bind_workspace", map[string]any{"workspaceRoot": "/w/lax", "deckId": "lax"}, nil)
	tests := []struct {
		name     string
		playbook string
		held     bool
	}{
		{"only on a deck set off", lax.Playbook.ID, false},
		{"also on a deck following the server", shared.ID, true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var res core.PlaybookResult
			agent.ok("update_playbook", map[string]any{"playbook_id": tc.playbook, "body": "changed " + tc.name}, &res)
			if held := res.Proposal != nil; held != tc.held {
				t.Errorf("held = %v, want %v: %+v", held, tc.held, res)
			}
		})
	}
	var reg core.RegisteredPlaybook
	agent.ok("register_playbook", map[string]any{"title": "loose", "body": "y", "add_to_bound_deck": false}, &reg)
	if reg.Proposal == nil {
		t.Fatalf("register_playbook linked nowhere under the server's default = %+v, want a proposal", reg)
	}
	if _, err := s.svc.GetPlaybook(ctx, "loose"); !backend.IsNotFound(err) {
		t.Errorf("a held register_playbook created the playbook: %v", err)
	}
	acc, err := s.svc.AcceptProposal(ctx, reg.Proposal.ID)
	if err != nil || acc.Playbook == nil || acc.Playbook.Title != "loose" {
		t.Errorf("accepting the held playbook = %+v %v", acc, err)
	}
	rv, err := s.svc.GetDeckPlaybookReview(ctx, "strict")
	if err != nil || !rv.Required || rv.Source != "server" {
		t.Errorf("strict's review = %+v %v, want required by the server", rv, err)
	}
}
