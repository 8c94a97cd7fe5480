package tests

import (
	"context"
	"net/http"
	"net/url"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/client/transport"
	"github.com/mark3labs/mcp-go/mcp"

	"github.com/agent-deck/agent-deck/backend"
	"github.com/agent-deck/agent-deck/cli"
)

// openOAuthSession opens an MCP session with token (naming deck in the header when set) and
// returns the deck the session starts bound to, as the sessions list shows it.
func openOAuthSession(t *testing.T, srv *cli.Server, token, deck string) string {
	t.Helper()
	headers := map[string]string{"Authorization": "Bearer " + token}
	if deck != "" {
		headers[backend.HeaderDeckID] = deck
	}
	tr, err := transport.NewStreamableHTTP(srv.URL()+"/mcp", transport.WithHTTPHeaders(headers))
	must(t, err)
	c := client.NewClient(tr)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	must(t, c.Start(ctx))
	t.Cleanup(func() { _ = c.Close() })
	name := "consent-deck-" + randHex(4)
	req := mcp.InitializeRequest{}
	req.Params.ProtocolVersion = mcp.LATEST_PROTOCOL_VERSION
	req.Params.ClientInfo = mcp.Implementation{Name: name, Version: "1"}
	if _, err := c.Initialize(ctx, req); err != nil {
		t.Fatalf("initialize with the OAuth token: %v", err)
	}
	var sessions []backend.MCPSession
	if st := adminREST(t, srv, http.MethodGet, "/api/v1/sessions", nil, &sessions); st != http.StatusOK {
		t.Fatalf("list sessions: %d", st)
	}
	for _, s := range sessions {
		if s.ClientName == name {
			return s.DeckID
		}
	}
	t.Fatalf("session %s not listed", name)
	return ""
}

// TestOAuthConsentDeckInBrowser: on the consent screen the person picks a deck; the grant's MCP
// sessions start bound to it, also after a refresh, unless the client names another deck. The
// default choice leaves sessions unbound.
func TestOAuthConsentDeckInBrowser(t *testing.T) {
	chromiumPath(t)
	srv := startFrontDoor(t, nil)
	var work, other backend.Deck
	for _, d := range []*backend.Deck{&work, &other} {
		name := map[*backend.Deck]string{&work: "work", &other: "other"}[d]
		if st := adminREST(t, srv, http.MethodPost, "/api/v1/decks", map[string]any{"name": name}, d); st != http.StatusCreated {
			t.Fatalf("create deck %s: %d", name, st)
		}
	}
	c, landed := registerLoopbackClient(t, srv, "Deck Client")

	b := startDashBrowser(t, srv)
	consent := func(deckID string, shot string) (access, refresh string) {
		t.Helper()
		verifier, challenge := pkce()
		q := c.authorizeQuery(challenge, nil)
		b.do("opening the authorization URL", chromedp.Navigate(srv.URL()+"/oauth/authorize?"+q.Encode()))
		const consentShown = `document.querySelector('main h1')?.textContent === 'Allow “Deck Client” to use Agent Deck?'`
		b.waitFor("the sign-in page or the consent screen", `!!document.querySelector('input[name=token]') || `+consentShown)
		if evalIn[bool](b, `!!document.querySelector('input[name=token]')`) {
			b.typeInto(`input[name=token]`, srv.AdminToken())
			b.click(`main form button[type=submit]`)
		}
		b.waitFor("the consent screen", consentShown)
		b.waitFor("the deck picker", `document.querySelectorAll('#consent-deck option').length === 3`)
		if got := evalIn[string](b, `document.querySelector('#consent-deck').value`); got != "" {
			t.Fatalf("the deck picker starts at %q, want no deck", got)
		}
		if deckID != "" {
			b.do("picking a deck", chromedp.Evaluate[chromedp.Void](`document.querySelector('#consent-deck').value = `+js(deckID)))
		}
		if shot != "" {
			b.checkAccessibility(shot)
			b.screenshot(shot)
		}
		b.click(`#consent-allow`)
		got := <-landed
		status, out := c.token(c.exchangeForm(got.Get("code"), verifier))
		if status != http.StatusOK {
			t.Fatalf("exchange: %d %v", status, out)
		}
		return out["access_token"].(string), out["refresh_token"].(string)
	}

	access, refresh := consent(work.ID, "consent-deck")
	if got := openOAuthSession(t, srv, access, ""); got != work.ID {
		t.Fatalf("a session of the grant starts bound to %q, want the chosen deck %s", got, work.ID)
	}
	if got := openOAuthSession(t, srv, access, "other"); got != other.ID {
		t.Fatalf("a session naming another deck is bound to %q, want %s", got, other.ID)
	}
	status, out := c.token(url.Values{"grant_type": {"refresh_token"}, "refresh_token": {refresh}, "client_id": {c.id}})
	if status != http.StatusOK {
		t.Fatalf("refresh: %d %v", status, out)
	}
	if got := openOAuthSession(t, srv, out["access_token"].(string), ""); got != work.ID {
		t.Fatalf("after a refresh a session starts bound to %q, want %s", got, work.ID)
	}

	access, _ = consent("", "")
	if got := openOAuthSession(t, srv, access, ""); got != "" {
		t.Fatalf("with no deck chosen a session starts bound to %q, want unbound", got)
	}
	b.checkNoExceptions()
}
