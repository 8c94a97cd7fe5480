package tests

import (
	"context"
	"net/http"
	"slices"
	"strings"
	"testing"

	"github.com/agent-deck/agent-deck/backend"
	"github.com/agent-deck/agent-deck/backend/core"
)

// TestOAuthServerFlow: a client registers, a person allows it on the consent screen, the code
// becomes an ordinary Agent Deck token (listed, revocable) that opens a bound MCP session and
// makes a proxied call; the refresh token rotates; a rotated refresh token used again revokes
// the grant; the token does not work on the REST API (its audience is /mcp).
func TestOAuthServerFlow(t *testing.T) {
	srv := startFrontDoor(t, nil)
	peer := startHTTPPeer(t)
	admin := backend.WithActor(context.Background(), backend.SystemActor)
	svc := srv.Service()
	deck, err := svc.CreateDeck(admin, core.DeckInput{Name: "work"})
	must(t, err)
	peerSvc, err := svc.CreateService(admin, core.ServiceInput{Name: "peer", Type: backend.ServiceRemote, URL: peer})
	must(t, err)
	_, err = svc.LinkCard(admin, core.LinkCardInput{CardRef: core.CardRef{Deck: deck.ID, CardType: backend.CardService, CardID: peerSvc.ID}})
	must(t, err)

	c := newOAuthClient(t, srv)
	access, refresh := c.signIn()

	conn := dialMCP(t, srv.URL()+"/mcp", map[string]string{"Authorization": "Bearer " + access}, "")
	conn.ok("bind_workspace", map[string]any{"workspaceRoot": "/home/me/work", "deckId": "work"}, nil)
	res := conn.call("call_service_tool", map[string]any{"serviceId": peerSvc.ID, "toolName": "echo", "arguments": map[string]any{"message": "hi via oauth"}})
	if res.IsError || !strings.Contains(mcpText(res), "hi via oauth") {
		t.Fatalf("proxied call with the OAuth token: %s", mcpText(res))
	}

	// The grant is an ordinary token: listed (kind oauth, agent scope), never its secret.
	tokens, err := svc.ListTokens(admin)
	must(t, err)
	i := slices.IndexFunc(tokens, func(tk backend.Token) bool { return tk.Kind == backend.TokenKindOAuth })
	if i < 0 || tokens[i].Scope != backend.ScopeAgent || tokens[i].ExpiresAt == nil {
		t.Fatalf("token list %+v: want one oauth token of scope agent with an expiry", tokens)
	}
	grant := tokens[i]

	// Audience: the token works on /mcp only, not on the REST API.
	if status, body := frontDoorCall(t, srv, access, "GET", "/api/v1/decks", nil); status != http.StatusUnauthorized {
		t.Fatalf("REST with the OAuth access token: status %d: %s; want 401", status, body)
	}

	// Refresh rotates: a new access and refresh token; the old access token stops working.
	status, out := c.token(map[string][]string{"grant_type": {"refresh_token"}, "refresh_token": {refresh}, "client_id": {c.id}})
	if status != http.StatusOK {
		t.Fatalf("refresh: status %d: %v", status, out)
	}
	access2, _ := out["access_token"].(string)
	refresh2, _ := out["refresh_token"].(string)
	if access2 == "" || access2 == access || refresh2 == "" || refresh2 == refresh {
		t.Fatalf("refresh answer %v: want new tokens", out)
	}
	if got := mcpStatus(t, srv, access2); got != http.StatusOK {
		t.Fatalf("/mcp with the refreshed token: status %d", got)
	}
	if got := mcpStatus(t, srv, access); got != http.StatusUnauthorized {
		t.Fatalf("/mcp with the rotated-out access token: status %d, want 401", got)
	}

	// Reuse of the rotated refresh token revokes the whole grant.
	status, out = c.token(map[string][]string{"grant_type": {"refresh_token"}, "refresh_token": {refresh}, "client_id": {c.id}})
	if status != http.StatusBadRequest || out["error"] != "invalid_grant" {
		t.Fatalf("reused refresh token: status %d %v; want 400 invalid_grant", status, out)
	}
	if got := mcpStatus(t, srv, access2); got != http.StatusUnauthorized {
		t.Fatalf("/mcp after refresh-token reuse: status %d, want 401 (grant revoked)", got)
	}
	status, out = c.token(map[string][]string{"grant_type": {"refresh_token"}, "refresh_token": {refresh2}, "client_id": {c.id}})
	if status != http.StatusBadRequest || out["error"] != "invalid_grant" {
		t.Fatalf("refresh of a revoked grant: status %d %v; want 400 invalid_grant", status, out)
	}

	// Revoking the token in the list ends a fresh sign-in's grant, refresh included.
	access3, refresh3 := c.signIn()
	tokens, err = svc.ListTokens(admin)
	must(t, err)
	for _, tk := range tokens {
		if tk.Kind == backend.TokenKindOAuth && tk.ID != grant.ID && tk.RevokedAt == nil {
			must(t, svc.RevokeToken(admin, tk.ID))
		}
	}
	if got := mcpStatus(t, srv, access3); got != http.StatusUnauthorized {
		t.Fatalf("/mcp with a revoked OAuth token: status %d, want 401", got)
	}
	status, out = c.token(map[string][]string{"grant_type": {"refresh_token"}, "refresh_token": {refresh3}, "client_id": {c.id}})
	if status != http.StatusBadRequest || out["error"] != "invalid_grant" {
		t.Fatalf("refresh of a revoked token: status %d %v; want 400 invalid_grant", status, out)
	}
}
