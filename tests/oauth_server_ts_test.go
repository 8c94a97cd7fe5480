package tests

import (
	"context"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/agent-deck/agent-deck/backend"
	"github.com/agent-deck/agent-deck/backend/core"
)

// TestOAuthServerTypeScriptClient: the official TypeScript SDK client, pointed at /mcp with no
// token, signs in by OAuth (discovery, registration, PKCE, consent through the person's
// dashboard session), then binds a deck and makes a proxied call with the issued token.
func TestOAuthServerTypeScriptClient(t *testing.T) {
	srv := startFrontDoor(t, nil)
	admin := backend.WithActor(context.Background(), backend.SystemActor)
	svc := srv.Service()
	deck, err := svc.CreateDeck(admin, core.DeckInput{Name: "dev"})
	must(t, err)
	peer, err := svc.CreateService(admin, core.ServiceInput{Name: "peer", Type: backend.ServiceRemote, URL: startHTTPPeer(t)})
	must(t, err)
	_, err = svc.LinkCard(admin, core.LinkCardInput{CardRef: core.CardRef{Deck: deck.ID, CardType: backend.CardService, CardID: peer.ID}})
	must(t, err)
	cookie, csrf := dashboardSignIn(t, srv)

	script, err := filepath.Abs(filepath.Join("testdata", "mcp", "ts_oauth_client.mjs"))
	must(t, err)
	out, err := mcpNode(t, 2*time.Minute, []string{
		"DECK_URL=" + srv.URL() + "/mcp", "DECK_COOKIE=" + cookie.Name + "=" + cookie.Value, "DECK_CSRF=" + csrf,
		"DECK_SERVICE=" + peer.Name,
	}, script)
	if err != nil {
		t.Fatalf("TypeScript OAuth client: %v\n%s", err, out)
	}
	for _, want := range []string{"registered adc-", "authorize 302 consent screen", "consented http://127.0.0.1:33418/callback code",
		"tokens Bearer agent with refresh", "session yes", "bound ◆ dev", `echo {"message":"from an oauth client"}`} {
		if !strings.Contains(out, want) {
			t.Errorf("TypeScript OAuth client output lacks %q:\n%s", want, out)
		}
	}
	tokens, err := svc.ListTokens(admin)
	must(t, err)
	n := 0
	for _, tk := range tokens {
		if tk.Kind == backend.TokenKindOAuth && strings.Contains(tk.Name, "TypeScript SDK test client") {
			n++
		}
	}
	if n != 1 {
		t.Errorf("token list holds %d OAuth grants of the TypeScript client, want 1: %+v", n, tokens)
	}
}
