package tests

import (
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/agent-deck/agent-deck/backend"
	"github.com/agent-deck/agent-deck/backend/core"
)

// TestIDPrefixesEverywhere holds issue 27 item 10: wherever an id is taken — the CLI, REST and
// MCP alike — the unique start of it (at least backend.MinIDPrefix characters) stands for it, as
// lists print ids cut to 8 characters; a start that several ids share is refused with them.
func TestIDPrefixesEverywhere(t *testing.T) {
	s := startMCPStack(t, mcpStackOptions{})
	f := s.seedDeck(t, "dev", startHTTPPeer(t))
	ctx := s.adminCtx()
	for _, title := range []string{"Deploy alpha", "Deploy beta"} {
		pb, err := s.svc.CreatePlaybook(ctx, backend.PlaybookInput{Title: title, Body: "# Steps\n- go"})
		if err != nil {
			t.Fatal(err)
		}
		if _, err := s.svc.LinkCard(ctx, core.LinkCardInput{CardRef: core.CardRef{Deck: f.Deck.ID,
			CardType: backend.CardPlaybook, CardID: pb.ID}}); err != nil {
			t.Fatal(err)
		}
	}
	agent := s.connect(t, s.token(backend.ScopeAgent), nil, "")
	agent.ok("bind_workspace", map[string]any{"workspaceRoot": "/w", "deckId": "dev"}, nil)
	var proposed core.ProposeResult
	agent.ok("propose_playbook_patch", map[string]any{"kind": "update", "playbook_id": f.Playbook.ID, "rationale": "r",
		"ops": []any{map[string]any{"op": "add_item", "section": "Release", "text": "tag it"}}}, &proposed)
	var signal core.ProposeResult
	agent.ok("propose_playbook_patch", map[string]any{"kind": "signal_only", "rationale": "noted"}, &signal)
	tok, err := s.svc.CreateToken(ctx, core.TokenInput{Name: "ci", Scope: backend.ScopeAgent})
	if err != nil {
		t.Fatal(err)
	}
	cli := func(args ...string) cliResult {
		return runCLI(s.home, strings.NewReader(""), append([]string{"--server", s.URL, "--token", s.AdminToken}, args...)...)
	}
	short := func(id string) string { return id[:8] }

	t.Run("CLI", func(t *testing.T) {
		tests := []struct {
			name string
			args []string
			out  string
		}{
			{"proposal show", []string{"proposal", "show", short(proposed.Proposal.ID)}, proposed.Proposal.ID},
			{"deck show", []string{"deck", "show", short(f.Deck.ID)}, "dev"},
			{"service show", []string{"service", "show", short(f.Service.ID)}, "dev-peer"},
			{"playbook show by the start of a slug id", []string{"playbook", "show", "pb_deploy_a"}, "Deploy alpha"},
			{"signal discard", []string{"signal", "discard", short(signal.Signal.ID), "--yes"}, "Discarded 1"},
			{"proposal reject", []string{"proposal", "reject", short(proposed.Proposal.ID), "--yes"}, "rejected"},
			{"token revoke", []string{"token", "revoke", short(tok.ID), "--yes"}, ""},
		}
		for _, tc := range tests {
			t.Run(tc.name, func(t *testing.T) {
				r := cli(tc.args...).wantCode(t, 0)
				if !strings.Contains(r.stdout, tc.out) {
					t.Errorf("stdout %q lacks %q", r.stdout, tc.out)
				}
			})
		}
		r := cli("playbook", "show", "pb_deploy").wantCode(t, 1)
		if !strings.Contains(r.stderr, "pb_deploy_alpha") || !strings.Contains(r.stderr, "pb_deploy_beta") {
			t.Errorf("an ambiguous start does not list the candidates: %q", r.stderr)
		}
		if r := cli("deck", "show", f.Deck.ID[:3]).wantCode(t, 1); !strings.Contains(r.stderr, "no deck") {
			t.Errorf("three characters found a deck: %q", r.stderr)
		}
	})
	t.Run("REST", func(t *testing.T) {
		var svc backend.ServiceCard
		s.api().Must(t, http.StatusOK, http.MethodGet, "/api/v1/services/"+short(f.Service.ID), nil, &svc)
		if svc.ID != f.Service.ID {
			t.Errorf("GET by the start of the id = %+v", svc)
		}
		a := s.api().Do(t, s.AdminToken, http.MethodGet, "/api/v1/playbooks/pb_deploy", nil)
		if code, msg, _ := a.Err(); a.Status != http.StatusBadRequest || code != backend.CodeInvalidArgument ||
			!strings.Contains(msg, "pb_deploy_beta") {
			t.Errorf("ambiguous start: %d %s", a.Status, a.Body)
		}
	})
	t.Run("MCP", func(t *testing.T) {
		var pb core.BoundPlaybookView
		agent.ok("get_playbook", map[string]any{"playbook_id": "pb_deploy_b"}, &pb)
		if pb.Title != "Deploy beta" {
			t.Errorf("get_playbook by the start of the id = %+v", pb)
		}
		res := agent.call("call_service_tool", map[string]any{"serviceId": short(f.Service.ID), "toolName": "echo",
			"arguments": map[string]any{"message": "by prefix"}})
		if res.IsError || !strings.Contains(mcpText(res), "by prefix") {
			t.Errorf("call_service_tool by the start of the service id: %s", mcpText(res))
		}
		if e := agent.fails("get_playbook", map[string]any{"playbook_id": "pb_deploy"}); e.Code != string(backend.CodeInvalidArgument) {
			t.Errorf("ambiguous start: %+v", e)
		}
	})
	t.Run("the calls filter takes the session as the list prints it", func(t *testing.T) {
		calls := auditCalls(t, s, url.Values{"session": {short(agent.sessionID())}}, 1)
		if calls[0].SessionID != agent.sessionID() {
			t.Errorf("calls of session %s = %+v", short(agent.sessionID()), calls)
		}
	})
}
