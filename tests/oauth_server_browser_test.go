package tests

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"net/url"
	"testing"

	"github.com/chromedp/chromedp"

	"github.com/agent-deck/agent-deck/backend/authserver"
	"github.com/agent-deck/agent-deck/cli"
)

// TestOAuthServerConsentInBrowser: in headless Chromium, a person not yet signed in opens a
// client's authorization URL, signs in with the admin token, sees the consent screen (client,
// where the answer goes, scope) and allows; the browser lands on the client's loopback redirect
// with a code and the state, which the client exchanges. Deny sends access_denied.
func TestOAuthServerConsentInBrowser(t *testing.T) {
	chromiumPath(t)
	srv := startFrontDoor(t, nil)
	c, landed := registerLoopbackClient(t, srv, "Browser Client")

	b := startDashBrowser(t, srv)
	verifier, challenge := pkce()
	q := c.authorizeQuery(challenge, nil)
	b.do("opening the authorization URL", chromedp.Navigate(srv.URL()+"/oauth/authorize?"+q.Encode()))
	b.waitFor("the sign-in page", mainHas("Sign in to Agent Deck"))
	b.typeInto(`input[name=token]`, srv.AdminToken())
	b.click(`main form button[type=submit]`)
	b.waitFor("the consent screen", `document.querySelector('main h1')?.textContent === 'Allow “Browser Client” to use Agent Deck?'`)
	for _, want := range []string{c.redirect, srv.URL() + "/mcp", "agent:read"} {
		b.waitFor("the consent screen to show "+want, mainHas(want))
	}
	b.checkAccessibility("consent")
	// Each scope's radio sits on the line of its name, and Allow stands apart from Deny.
	misaligned := evalIn[[]string](b, `[...document.querySelectorAll('main label.choice')].filter(l => {
		const r = l.querySelector('input').getBoundingClientRect(), c = l.querySelector('code').getBoundingClientRect();
		return Math.abs((r.top + r.bottom) / 2 - (c.top + c.bottom) / 2) > 4 || r.right > c.left;
	}).map(l => l.innerText)`)
	if len(misaligned) > 0 {
		t.Errorf("scope radios off their line: %q", misaligned)
	}
	if gap := evalIn[float64](b, `document.getElementById('consent-deny').getBoundingClientRect().left - document.getElementById('consent-allow').getBoundingClientRect().right`); gap < 8 {
		t.Errorf("Allow and Deny are %.1f px apart, want at least 8", gap)
	}
	b.screenshot("consent")
	b.click(`#consent-allow`)
	got := <-landed
	if got.Get("state") != q.Get("state") || got.Get("code") == "" || got.Get("iss") != srv.URL() {
		t.Fatalf("the client's redirect got %v; want a code, state %s and iss", got, q.Get("state"))
	}
	status, out := c.token(c.exchangeForm(got.Get("code"), verifier))
	if status != http.StatusOK || out["scope"] != "agent" {
		t.Fatalf("exchange of the browser's code: %d %v", status, out)
	}

	// Deny, narrowing nothing: the client learns access_denied and gets no code.
	q = c.authorizeQuery(challenge, func(q url.Values) { q.Set("scope", "agent:read") })
	b.do("opening a second authorization URL", chromedp.Navigate(srv.URL()+"/oauth/authorize?"+q.Encode()))
	b.waitFor("the consent screen", `document.querySelector('main h1')?.textContent === 'Allow “Browser Client” to use Agent Deck?'`)
	if evalIn[bool](b, `!!document.querySelector('input[value="agent"]')`) {
		t.Error("a request for agent:read offers the wider agent scope")
	}
	b.click(`#consent-deny`)
	got = <-landed
	if got.Get("error") != "access_denied" || got.Get("code") != "" || got.Get("state") != q.Get("state") {
		t.Fatalf("deny: the client's redirect got %v; want error=access_denied with the state and no code", got)
	}
	b.checkNoExceptions()
	if hits, _ := b.responsesContaining(srv.AdminToken()); hits > 0 {
		t.Error("a response the page received carries the admin token")
	}
}

// registerLoopbackClient registers an OAuth client named name by dynamic registration, with a
// loopback callback server standing in for the client's own; each redirect that lands there
// arrives on the returned channel with its query.
func registerLoopbackClient(t *testing.T, srv *cli.Server, name string) (*oauthClient, <-chan url.Values) {
	t.Helper()
	landed := make(chan url.Values, 4)
	cb := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/callback" { // not the browser's /favicon.ico
			landed <- r.URL.Query()
		}
		_, _ = w.Write([]byte("signed in; you can close this window"))
	}))
	t.Cleanup(cb.Close)
	redirect := cb.URL + "/callback"
	status, body := oauthPost(t, srv.URL()+"/oauth/register", "application/json",
		`{"client_name":"`+name+`","redirect_uris":["`+redirect+`"]}`)
	if status != http.StatusCreated {
		t.Fatalf("register: %d %s", status, body)
	}
	var reg authserver.ClientRegistration
	must(t, json.Unmarshal(body, &reg))
	return &oauthClient{t: t, srv: srv, id: reg.ClientID, redirect: redirect}, landed
}
