package tests

import (
	"net/http"
	"testing"
	"time"

	"github.com/agent-deck/agent-deck/backend"
	"github.com/agent-deck/agent-deck/backend/core"
)

// TestPeopleAcrossReplicas (issue 26): two replicas on one database make one admin person
// between them, and removing bob on one ends his open MCP session on the other within a
// second (the change feed carries the revocation).
func TestPeopleAcrossReplicas(t *testing.T) {
	a := startMCPStack(t, mcpStackOptions{})
	b := startMCPReplica(t, a)
	var people []backend.Person
	b.api().Must(t, http.StatusOK, "GET", "/api/v1/people?removed=true", nil, &people)
	if len(people) != 1 || people[0].Role != backend.RoleAdmin || !people[0].Founder {
		t.Fatalf("people after two starts = %+v, want one admin", people)
	}
	for _, s := range []*mcpStack{a, b} {
		var me backend.Person
		resttestMe(t, s, &me)
		if me.ID != people[0].ID {
			t.Errorf("replica %s's admin token acts for %+v, want the one admin", s.URL, me)
		}
	}

	h := newTeamHub(t, a)
	a.api().Must(t, http.StatusCreated, "POST", "/api/v1/decks", core.DeckInput{Name: "team"}, nil)
	a.api().Must(t, http.StatusOK, "PUT", "/api/v1/decks/team/sharing", core.DeckSharingInput{Sharing: backend.ShareEveryone}, nil)
	bob := b.connect(t, h.agent["bob"], nil, "")
	bob.ok("bind_workspace", map[string]any{"workspaceRoot": "/w/bob", "deckId": "team"}, nil)
	bob.ok("get_bound_deck", map[string]any{}, nil) // replica b now holds bob's token and session in its cache

	var removal backend.PersonRemoval
	a.api().Must(t, http.StatusOK, "DELETE", "/api/v1/people/bob", nil, &removal)
	removed := time.Now()
	if removal.RevokedTokens != 2 || len(removal.EndedSessions) != 1 || removal.EndedSessions[0] != bob.sessionID() {
		t.Errorf("removal = %+v, want bob's 2 tokens and his session %s", removal, bob.sessionID())
	}
	var ended time.Duration
	for {
		res, err := bob.callErr("get_bound_deck", map[string]any{})
		if err != nil || res.IsError {
			ended = time.Since(removed)
			break
		}
		if time.Since(removed) > time.Second {
			t.Fatalf("bob's session on the other replica still works %s after his removal", time.Since(removed))
		}
		time.Sleep(10 * time.Millisecond)
	}
	t.Logf("bob's session on the other replica ended %s after his removal", ended)
	if a := h.as(h.agent["bob"]).Do(t, h.agent["bob"], "GET", "/api/v1/decks", nil); a.Status != http.StatusUnauthorized {
		t.Errorf("bob's agent token after his removal: %d %s", a.Status, a.Body)
	}
}

// resttestMe reads the person the stack's admin token acts for.
func resttestMe(t *testing.T, s *mcpStack, out *backend.Person) {
	t.Helper()
	s.api().Must(t, http.StatusOK, "GET", "/api/v1/me", nil, out)
}
