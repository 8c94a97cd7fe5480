package tests

import (
	"encoding/json"
	"net/http"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"

	"github.com/agent-deck/agent-deck/backend"
	"github.com/agent-deck/agent-deck/backend/core"
	"github.com/agent-deck/agent-deck/tests/oauthas"
)

// TestOAuthDashboardConnect: in headless Chromium, a remote service that needs sign-in shows
// "Not signed in" and that it asks for a sign-in on its screen after a refused call; Connect starts the flow through REST and
// opens the authorization server's page in a new window, whose consent comes back to the deck's
// callback; the screen then shows Connected with the expiry and the scopes, calls work, and
// Disconnect forgets the sign-in. No token reaches the page.
func TestOAuthDashboardConnect(t *testing.T) {
	chromiumPath(t)
	as := newOAuthService(t, oauthas.Options{Scope: "mcp:read"})
	srv := startFrontDoor(t, nil)
	f := &dashFlow{srv: srv, b: startDashBrowser(t, srv)}
	b := f.b
	if st := f.api(http.MethodPost, "/api/v1/services", map[string]any{"name": "Notes", "type": "mcp", "url": as.MCPURL()}, nil); st != http.StatusCreated {
		t.Fatalf("creating the service answered %d", st)
	}
	call := map[string]any{"tool_name": "echo", "arguments": map[string]any{"text": "hi"}}
	f.api(http.MethodPost, "/api/v1/services/Notes/call", call, nil) // refused: the service asks for a sign-in

	b.do("opening the dashboard", chromedp.Navigate(srv.URL()+"/signin#code="+dashboardSignInCode(t, srv)))
	b.waitFor("the collection", `document.querySelector('main h1')?.textContent === 'Collection'`)
	b.visit("#/services/Notes", "Notes")
	b.waitFor("the sign-in state", `document.querySelector('[data-auth]')?.dataset.auth === 'none'`)
	b.waitFor("the state in words", mainHas("Not signed in · the service asks for a sign-in"))
	b.checkAccessibility("service sign-in needed")

	b.click(`#auth-title + div button.primary`) // Connect
	b.waitFor("the connected state", `document.querySelector('[data-auth]')?.dataset.auth === 'connected'`)
	b.waitFor("the scopes", `(document.querySelector('[data-auth-facts]')?.innerText || '').includes('mcp:read')`)
	b.waitFor("the expiry", `!!document.querySelector('[data-auth-facts] time[datetime]')`)
	// The health panel follows the sign-in by itself: nobody pressed Check now.
	b.waitFor("the health after the sign-in", `document.querySelector('#health-title')?.closest('.panel')?.querySelector('.health')?.dataset.health === 'healthy'`)
	if c := as.Counts(); c.Authorizations != 1 || c.CodeExchanges != 1 {
		t.Fatalf("the authorization server saw %+v, want one authorization and one code exchange", c)
	}
	var st core.OAuthStatus
	f.api(http.MethodGet, "/api/v1/services/Notes/auth", nil, &st)
	if st.State != backend.OAuthStateConnected {
		t.Fatalf("REST says %+v after the dashboard's Connect", st)
	}
	// At once: the refused calls before the sign-in must not hold this one back (restart backoff).
	code, raw := frontDoorCall(t, srv, srv.AdminToken(), http.MethodPost, "/api/v1/services/Notes/call", []byte(toJSONString(call)))
	if code != http.StatusOK || !strings.Contains(string(raw), "echo: hi") {
		t.Fatalf("call after connecting answered %d %s", code, raw)
	}
	b.waitFor("the tools listed after connecting", `!!document.querySelector('tr[data-tool=echo]')`)
	b.checkAccessibility("service connected")
	b.screenshot("service-connected")
	for _, tok := range as.Issued() {
		if hits, _ := b.responsesContaining(tok); hits > 0 {
			t.Fatalf("an issued token reached the page in %d responses", hits)
		}
	}

	b.click(`#auth-title + div button:not(.primary)`) // Disconnect
	b.waitFor("the state after disconnecting", `document.querySelector('[data-auth]')?.dataset.auth === 'none'`)
	if c := as.Counts(); c.Revocations == 0 {
		t.Errorf("Disconnect revoked nothing: %+v", c)
	}
	b.checkNoExceptions()
}

func toJSONString(v any) string {
	raw, _ := json.Marshal(v)
	return string(raw)
}
