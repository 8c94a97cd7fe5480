package tests

import (
	"context"
	"slices"
	"testing"

	"github.com/agent-deck/agent-deck/backend"
	"github.com/agent-deck/agent-deck/backend/core"
)

// TestOAuthClientActsForItsPerson (issue 26): an agent client that signs in by OAuth, allowed
// on the consent screen by alice (a member signed in to the dashboard), holds a token of
// alice's: it lists and binds only the decks alice may use, and the token list names her.
func TestOAuthClientActsForItsPerson(t *testing.T) {
	srv := startFrontDoor(t, nil)
	admin := backend.WithActor(context.Background(), backend.SystemActor)
	svc := srv.Service()
	_, err := svc.AddPerson(admin, core.PersonInput{Name: "alice", Role: backend.RoleMember})
	must(t, err)
	_, err = svc.CreateDeck(admin, core.DeckInput{Name: "admins-own"})
	must(t, err)
	team, err := svc.CreateDeck(admin, core.DeckInput{Name: "team"})
	must(t, err)
	_, err = svc.ShareDeck(admin, team.ID, core.DeckSharingInput{Sharing: backend.ShareEveryone})
	must(t, err)

	code, err := svc.CreateSignInCodeFor(admin, "alice")
	must(t, err)
	c := newOAuthClient(t, srv)
	cookie, csrf, status, body := dashboardExchange(t, srv, code.Code)
	if status != 201 || cookie == nil {
		t.Fatalf("alice's dashboard sign-in: %d %s", status, body)
	}
	c.cookie, c.csrf = cookie, csrf
	access, _ := c.signIn()

	conn := dialMCP(t, srv.URL()+"/mcp", map[string]string{"Authorization": "Bearer " + access}, "")
	var decks []backend.Deck
	conn.ok("get_decks", map[string]any{}, &decks)
	if len(decks) != 1 || decks[0].Name != "team" {
		t.Errorf("alice's OAuth client lists %+v, want the team deck only", decks)
	}
	if e := conn.fails("bind_workspace", map[string]any{"workspaceRoot": "/w", "deckId": "admins-own"}); e.Code != "NOT_FOUND" {
		t.Errorf("alice's OAuth client binds the admin's private deck: %+v", e)
	}
	conn.ok("bind_workspace", map[string]any{"workspaceRoot": "/w", "deckId": "team"}, nil)

	tokens, err := svc.ListTokens(admin)
	must(t, err)
	i := slices.IndexFunc(tokens, func(tk backend.Token) bool { return tk.Kind == backend.TokenKindOAuth })
	if i < 0 || tokens[i].Person != "alice" {
		t.Errorf("the OAuth grant in the token list: %+v, want one of alice's", tokens)
	}
}
