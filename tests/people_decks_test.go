package tests

import (
	"net/http"
	"strings"
	"testing"

	"github.com/agent-deck/agent-deck/backend"
	"github.com/agent-deck/agent-deck/backend/core"
)

// TestPeopleDecksOnEverySurface (issue 26): alice's private deck and its cards are invisible
// and unbindable to bob on MCP, REST, the CLI and the dashboard; a deck shared with everyone is
// usable by both.
func TestPeopleDecksOnEverySurface(t *testing.T) {
	h := startTeamHub(t, mcpStackOptions{})
	peer := startHTTPPeer(t)
	alice, admin := h.as(h.person["alice"]), h.s.api()

	// Alice makes her own deck, service and playbook; the admin a team deck shared with everyone.
	var ad backend.Deck
	var as backend.ServiceCard
	alice.Must(t, http.StatusCreated, "POST", "/api/v1/decks", core.DeckInput{Name: "alice-private"}, &ad)
	alice.Must(t, http.StatusCreated, "POST", "/api/v1/services", core.ServiceInput{Name: "alice-svc",
		Type: backend.ServiceRemote, URL: peer, Description: "alice's own"}, &as)
	alice.Must(t, http.StatusCreated, "POST", "/api/v1/playbooks", backend.PlaybookInput{Title: "Alice runbook", Body: "x"}, nil)
	for _, c := range []core.CardRef{{CardType: backend.CardService, CardID: "alice-svc"}, {CardType: backend.CardPlaybook, CardID: "Alice runbook"}} {
		alice.Must(t, http.StatusOK, "POST", "/api/v1/decks/alice-private/cards", c, nil)
	}
	admin.Must(t, http.StatusCreated, "POST", "/api/v1/decks", core.DeckInput{Name: "team"}, nil)
	admin.Must(t, http.StatusCreated, "POST", "/api/v1/services", core.ServiceInput{Name: "team-svc",
		Type: backend.ServiceRemote, URL: peer}, nil)
	admin.Must(t, http.StatusOK, "POST", "/api/v1/decks/team/cards", core.CardRef{CardType: backend.CardService, CardID: "team-svc"}, nil)
	var team backend.Deck
	admin.Must(t, http.StatusOK, "PUT", "/api/v1/decks/team/sharing", core.DeckSharingInput{Sharing: backend.ShareEveryone}, &team)
	if team.Sharing != backend.ShareEveryone || team.Owner != "admin" {
		t.Fatalf("team deck %+v", team)
	}
	hidden := []string{"alice-private", "alice-svc", "Alice runbook", "alice_runbook", ad.ID, as.ID}
	// Where bob names alice's deck and cards himself, his own words come back; nothing else.
	unasked := []string{"alice_runbook", ad.ID, as.ID, "alice's own"}

	t.Run("MCP", func(t *testing.T) {
		bob := h.s.connect(t, h.agent["bob"], nil, "")
		var decks []backend.Deck
		bob.ok("get_decks", map[string]any{}, &decks)
		if len(decks) != 1 || decks[0].Name != "team" {
			t.Errorf("bob's get_decks = %+v, want the team deck only", decks)
		}
		if e := bob.fails("bind_workspace", map[string]any{"workspaceRoot": "/w/b", "deckId": "alice-private"}); e.Code != "NOT_FOUND" {
			t.Errorf("bob binds alice's deck: %+v", e)
		}
		coll := mcpText(bob.call("list_collection", map[string]any{}))
		bob.ok("bind_workspace", map[string]any{"workspaceRoot": "/w/b", "deckId": "team"}, nil)
		if e := bob.fails("call_service_tool", map[string]any{"serviceId": "alice-svc", "toolName": "echo",
			"arguments": map[string]any{"message": "hi"}}); e.Code != "NOT_ON_BOUND_DECK" {
			t.Errorf("bob calls alice's service: %+v", e)
		}
		if e := bob.fails("manage_deck_card", map[string]any{"action": "link", "card_type": "service", "card_id": "alice-svc"}); e.Code != "NOT_FOUND" {
			t.Errorf("bob links alice's service to the team deck: %+v", e)
		}
		bob.ok("call_service_tool", map[string]any{"serviceId": "team-svc", "toolName": "echo", "arguments": map[string]any{"message": "bob"}}, nil)
		for _, s := range hidden {
			if strings.Contains(coll, s) {
				t.Errorf("bob's list_collection names %q: %s", s, coll)
			}
		}
		al := h.s.connect(t, h.agent["alice"], nil, "")
		al.ok("bind_workspace", map[string]any{"workspaceRoot": "/w/a", "deckId": "team"}, nil)
		al.ok("call_service_tool", map[string]any{"serviceId": "team-svc", "toolName": "echo", "arguments": map[string]any{"message": "alice"}}, nil)
		al.ok("bind_workspace", map[string]any{"workspaceRoot": "/w/a", "deckId": "alice-private"}, nil)
		al.ok("call_service_tool", map[string]any{"serviceId": "alice-svc", "toolName": "echo", "arguments": map[string]any{"message": "mine"}}, nil)
	})

	t.Run("REST", func(t *testing.T) {
		for _, tok := range []string{h.agent["bob"], h.person["bob"]} {
			bob := h.as(tok)
			var decks []backend.Deck
			bob.Must(t, http.StatusOK, "GET", "/api/v1/decks", nil, &decks)
			if len(decks) != 1 || decks[0].Name != "team" {
				t.Errorf("bob's GET /decks = %+v", decks)
			}
			for _, r := range []struct{ method, path string }{
				{"GET", "/api/v1/decks/alice-private"},
				{"GET", "/api/v1/decks/alice-private/snapshot"},
				{"GET", "/api/v1/services/alice-svc"},
				{"GET", "/api/v1/playbooks/Alice%20runbook"},
				{"GET", "/api/v1/services/alice-svc/tools?deck=alice-private"},
			} {
				if a := bob.Do(t, tok, r.method, r.path, nil); a.Status != http.StatusNotFound {
					t.Errorf("bob %s %s: %d %s, want 404", r.method, r.path, a.Status, a.Body)
				}
			}
			if a := bob.Do(t, tok, "POST", "/api/v1/services/alice-svc/call", core.CallInput{ToolName: "echo", Deck: "alice-private"}); a.Status != http.StatusNotFound {
				t.Errorf("bob calls alice's service: %d %s", a.Status, a.Body)
			}
			if a := bob.Do(t, tok, "POST", "/api/v1/decks/alice-private/cards", core.CardRef{CardType: backend.CardService, CardID: "team-svc"}); a.Status != http.StatusNotFound {
				t.Errorf("bob links to alice's deck: %d %s", a.Status, a.Body)
			}
			bob.Must(t, http.StatusOK, "POST", "/api/v1/services/team-svc/call", core.CallInput{ToolName: "echo", Deck: "team",
				Arguments: []byte(`{"message":"rest"}`)}, nil)
			noneOf(t, "bob's REST answers", bob.Bodies(), unasked)
		}
	})

	t.Run("CLI", func(t *testing.T) {
		out := h.cli(t, h.person["bob"], "deck", "list").wantCode(t, 0).stdout
		if !strings.Contains(out, "team") {
			t.Errorf("bob's deck list lacks the team deck:\n%s", out)
		}
		res := h.cli(t, h.person["bob"], "deck", "show", "alice-private").wantCode(t, 1)
		lists := h.cli(t, h.person["bob"], "service", "list").wantCode(t, 0).stdout +
			h.cli(t, h.person["bob"], "playbook", "list").wantCode(t, 0).stdout
		noneOf(t, "bob's CLI", [][]byte{[]byte(out), []byte(lists)}, hidden)
		if !strings.Contains(res.stderr, "no deck") {
			t.Errorf("deck show alice-private: %s", res.stderr)
		}
		h.cli(t, h.person["bob"], "deck", "delete", "team", "--yes").wantCode(t, 1)
		out = h.cli(t, h.person["alice"], "deck", "list").wantCode(t, 0).stdout
		if !strings.Contains(out, "alice-private") || !strings.Contains(out, "team") {
			t.Errorf("alice's deck list:\n%s", out)
		}
	})

	t.Run("dashboard", func(t *testing.T) {
		bob := h.dashboard(t, "bob")
		var decks []backend.Deck
		bob.Must(t, http.StatusOK, "GET", "/api/v1/decks", nil, &decks)
		if len(decks) != 1 || decks[0].Name != "team" {
			t.Errorf("bob's dashboard decks = %+v", decks)
		}
		if a := bob.Do(t, "", "GET", "/api/v1/decks/alice-private/snapshot", nil); a.Status != http.StatusNotFound {
			t.Errorf("bob's dashboard reads alice's deck: %d %s", a.Status, a.Body)
		}
		if a := bob.Do(t, "", "PUT", "/api/v1/decks/team/sharing", core.DeckSharingInput{Sharing: backend.SharePrivate}); a.Status != http.StatusForbidden {
			t.Errorf("bob's dashboard re-shares the admin's deck: %d %s", a.Status, a.Body)
		}
		noneOf(t, "bob's dashboard", bob.Bodies(), unasked)
	})
}

// noneOf fails when any body names one of the hidden words.
func noneOf(t *testing.T, what string, bodies [][]byte, hidden []string) {
	t.Helper()
	for _, b := range bodies {
		for _, s := range hidden {
			if strings.Contains(string(b), s) {
				t.Errorf("%s name %q: %s", what, s, b)
			}
		}
	}
}
