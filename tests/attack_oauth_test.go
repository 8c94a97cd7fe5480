package tests

import (
	"context"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"
	"github.com/jackc/pgx/v5"

	"github.com/agent-deck/agent-deck/backend"
	"github.com/agent-deck/agent-deck/backend/core"
	"github.com/agent-deck/agent-deck/cli"
)

// Attacks on the OAuth authorization server (/oauth/*, the consent API): each is refused with
// the error the OAuth RFCs name, and nothing is issued. One deck server serves every row.
func TestAttacksOAuth(t *testing.T) {
	var dbURL string
	// The rows share one server and register a client each: more than the default rate.
	srv := startFrontDoor(t, func(c *cli.ServeConfig) { dbURL, c.OAuthRegistrationsPerMinute = c.DatabaseURL, 600 })
	e := &oauthAttackEnv{srv: srv, dbURL: dbURL}
	runAttacks(t, []attack{
		{"token request without the PKCE verifier", e.missingVerifier},
		{"token request with a wrong PKCE verifier", e.wrongVerifier},
		{"an authorization code is exchanged twice", e.reusedCode},
		{"an expired authorization code is exchanged", e.expiredCode},
		{"token request with another redirect_uri than the authorization's", e.tokenRedirectMismatch},
		{"authorization request with an unregistered redirect_uri", e.authorizeRedirectMismatch},
		{"authorization and token requests of an unknown client", e.unknownClient},
		{"open redirect: registering or sending non-loopback redirect URIs", e.openRedirect},
		{"authorization request without state", e.missingState},
		{"authorization or token request for another resource, and the token used on REST", e.otherResource},
		{"authorization request with the plain PKCE method or none", e.plainPKCE},
		{"authorization request for the admin scope", e.adminScope},
		{"consent without the CSRF header, or by an agent token", e.consentForgery},
		{"a code issued to one client is redeemed by another", e.codeOtherClient},
		{"a refresh asks for a wider scope than the grant's, or one not offered", e.refreshWiderScope},
		{"a refresh token is spent by another client, or with no client_id", e.refreshOtherClient},
		{"registering or sending a loopback redirect URI with a port outside 1-65535", e.redirectBadPort},
		{"a client registers as a trusted app's name and the consent screen vouches for it", e.consentTrustedName},
		{"anyone registers OAuth clients without bound", attackOAuthRegistrationFlood},
	})
}

type oauthAttackEnv struct {
	srv   *cli.Server
	dbURL string
}

func wantOAuthError(t *testing.T, what string, status int, out map[string]any, wantStatus int, wantCode string) {
	t.Helper()
	if status != wantStatus || out["error"] != wantCode {
		t.Fatalf("%s: status %d %v; want %d %s", what, status, out, wantStatus, wantCode)
	}
	if out["access_token"] != nil {
		t.Fatalf("%s: a token was issued: %v", what, out)
	}
}

// wantRedirectError: the authorization endpoint sends the error back to the client's
// redirect_uri (it is trusted) with no code.
func wantRedirectError(t *testing.T, c *oauthClient, q url.Values, wantCode string) {
	t.Helper()
	status, loc, body := c.authorize(q)
	u, err := url.Parse(loc)
	if status != http.StatusFound || err != nil || !strings.HasPrefix(loc, c.redirect) {
		t.Fatalf("authorize: status %d, Location %q: %s; want a redirect to %s with error=%s", status, loc, body, c.redirect, wantCode)
	}
	if got := u.Query().Get("error"); got != wantCode || u.Query().Get("code") != "" {
		t.Fatalf("redirect %s: want error=%s and no code", loc, wantCode)
	}
	if s := q.Get("state"); s != "" && u.Query().Get("state") != s {
		t.Fatalf("redirect %s: state not returned", loc)
	}
}

// wantNoRedirect: the authorization endpoint answers itself and sends the browser nowhere.
func wantNoRedirect(t *testing.T, c *oauthClient, q url.Values, wantStatus int, wantCode string) {
	t.Helper()
	status, loc, body := c.authorize(q)
	if status != wantStatus || loc != "" || !strings.Contains(body, wantCode) {
		t.Fatalf("authorize: status %d, Location %q: %s; want %d %s and no redirect", status, loc, body, wantStatus, wantCode)
	}
}

func (e *oauthAttackEnv) missingVerifier(t *testing.T) {
	c := newOAuthClient(t, e.srv)
	_, challenge := pkce()
	code := c.code(c.authorizeQuery(challenge, nil))
	status, out := c.token(c.exchangeForm(code, ""))
	wantOAuthError(t, "no code_verifier", status, out, http.StatusBadRequest, "invalid_request")
}

func (e *oauthAttackEnv) wrongVerifier(t *testing.T) {
	c := newOAuthClient(t, e.srv)
	_, challenge := pkce()
	code := c.code(c.authorizeQuery(challenge, nil))
	other, _ := pkce()
	status, out := c.token(c.exchangeForm(code, other))
	wantOAuthError(t, "wrong code_verifier", status, out, http.StatusBadRequest, "invalid_grant")
}

func (e *oauthAttackEnv) reusedCode(t *testing.T) {
	c := newOAuthClient(t, e.srv)
	verifier, challenge := pkce()
	code := c.code(c.authorizeQuery(challenge, nil))
	status, first := c.token(c.exchangeForm(code, verifier))
	if status != http.StatusOK {
		t.Fatalf("first exchange: %d %v", status, first)
	}
	status, out := c.token(c.exchangeForm(code, verifier))
	wantOAuthError(t, "second exchange", status, out, http.StatusBadRequest, "invalid_grant")
	// The tokens the code became are revoked too: the code may have been stolen.
	if got := mcpStatus(t, e.srv, first["access_token"].(string)); got != http.StatusUnauthorized {
		t.Fatalf("/mcp with the token of a reused code: status %d, want 401", got)
	}
	status, out = c.token(url.Values{"grant_type": {"refresh_token"}, "refresh_token": {first["refresh_token"].(string)}, "client_id": {c.id}})
	wantOAuthError(t, "refresh of a reused code's grant", status, out, http.StatusBadRequest, "invalid_grant")
}

func (e *oauthAttackEnv) expiredCode(t *testing.T) {
	c := newOAuthClient(t, e.srv)
	verifier, challenge := pkce()
	code := c.code(c.authorizeQuery(challenge, nil))
	ctx := context.Background()
	conn, err := pgx.Connect(ctx, e.dbURL)
	must(t, err)
	defer conn.Close(ctx)
	_, err = conn.Exec(ctx, `UPDATE oauth_codes SET expires_at = now() - interval '1 second' WHERE client_id = $1`, c.id)
	must(t, err)
	status, out := c.token(c.exchangeForm(code, verifier))
	wantOAuthError(t, "expired code", status, out, http.StatusBadRequest, "invalid_grant")
}

func (e *oauthAttackEnv) tokenRedirectMismatch(t *testing.T) {
	c := newOAuthClient(t, e.srv)
	verifier, challenge := pkce()
	code := c.code(c.authorizeQuery(challenge, nil))
	form := c.exchangeForm(code, verifier)
	form.Set("redirect_uri", "http://127.0.0.1:33418/other")
	status, out := c.token(form)
	wantOAuthError(t, "token with another redirect_uri", status, out, http.StatusBadRequest, "invalid_grant")
}

func (e *oauthAttackEnv) authorizeRedirectMismatch(t *testing.T) {
	c := newOAuthClient(t, e.srv)
	_, challenge := pkce()
	for _, r := range []string{"http://127.0.0.1:33418/elsewhere", "http://127.0.0.1:33418/callback?x=1", "http://localhost:33418/callback"} {
		wantNoRedirect(t, c, c.authorizeQuery(challenge, func(q url.Values) { q.Set("redirect_uri", r) }), http.StatusBadRequest, "invalid_request")
	}
	// A loopback port may differ (RFC 8252 §7.3): the same address on another port is the client's.
	q := c.authorizeQuery(challenge, func(q url.Values) { q.Set("redirect_uri", "http://127.0.0.1:40001/callback") })
	if status, loc, body := c.authorize(q); status != http.StatusFound || !strings.HasPrefix(loc, "/#/consent?") {
		t.Fatalf("loopback on another port: status %d %q: %s", status, loc, body)
	}
}

func (e *oauthAttackEnv) unknownClient(t *testing.T) {
	c := newOAuthClient(t, e.srv)
	verifier, challenge := pkce()
	for _, id := range []string{"adc-00000000-0000-0000-0000-000000000000", "https://127.0.0.1:1/client.json", "http://evil.example/client.json"} {
		wantNoRedirect(t, c, c.authorizeQuery(challenge, func(q url.Values) { q.Set("client_id", id) }), http.StatusUnauthorized, "invalid_client")
	}
	status, out := c.token(url.Values{"grant_type": {"authorization_code"}, "code": {"ado_" + strings.Repeat("A", 43)},
		"redirect_uri": {c.redirect}, "client_id": {"nobody"}, "code_verifier": {verifier}})
	wantOAuthError(t, "token for an unknown client and code", status, out, http.StatusBadRequest, "invalid_grant")
}

func (e *oauthAttackEnv) openRedirect(t *testing.T) {
	for _, r := range []string{"https://evil.example/cb", "http://127.0.0.1.evil.example/cb", "http://127.0.0.1@evil.example/cb",
		"javascript:alert(1)", "//evil.example/cb", "http://127.0.0.1:1/cb#frag", "data:text/html,hi"} {
		status, body := oauthPost(t, e.srv.URL()+"/oauth/register", "application/json", `{"redirect_uris":[`+toJSON(t, r)+`]}`)
		if status != http.StatusBadRequest || !strings.Contains(string(body), "invalid_redirect_uri") {
			t.Fatalf("register redirect_uri %q: status %d %s; want 400 invalid_redirect_uri", r, status, body)
		}
	}
	c := newOAuthClient(t, e.srv)
	_, challenge := pkce()
	for _, r := range []string{"https://evil.example/callback", "http://127.0.0.1:33418@evil.example/callback"} {
		wantNoRedirect(t, c, c.authorizeQuery(challenge, func(q url.Values) { q.Set("redirect_uri", r) }), http.StatusBadRequest, "invalid_request")
	}
	// The consent API refuses the same request: no redirect_to leads elsewhere.
	q := c.authorizeQuery(challenge, func(q url.Values) { q.Set("redirect_uri", "https://evil.example/callback") })
	in := map[string]any{"approve": true}
	for k := range q {
		in[k] = q.Get(k)
	}
	status, body := cookieCall(t, e.srv, c.cookie, "POST", "/api/v1/oauth/consent", "application/json",
		[]byte(toJSON(t, in)), core.HeaderCSRF, c.csrf, "Origin", e.srv.URL())
	if status != http.StatusBadRequest || strings.Contains(string(body), "evil.example/callback?") {
		t.Fatalf("consent to a foreign redirect_uri: status %d %s; want 400 and no redirect", status, body)
	}
}

func (e *oauthAttackEnv) missingState(t *testing.T) {
	c := newOAuthClient(t, e.srv)
	_, challenge := pkce()
	wantRedirectError(t, c, c.authorizeQuery(challenge, func(q url.Values) { q.Del("state") }), "invalid_request")
}

func (e *oauthAttackEnv) otherResource(t *testing.T) {
	c := newOAuthClient(t, e.srv)
	verifier, challenge := pkce()
	wantRedirectError(t, c, c.authorizeQuery(challenge, func(q url.Values) { q.Set("resource", "https://other.example/mcp") }), "invalid_target")
	code := c.code(c.authorizeQuery(challenge, nil))
	form := c.exchangeForm(code, verifier)
	form.Set("resource", "https://other.example/mcp")
	status, out := c.token(form)
	wantOAuthError(t, "token for another resource", status, out, http.StatusBadRequest, "invalid_target")
	access, _ := c.signIn()
	if status, body := frontDoorCall(t, e.srv, access, "GET", "/api/v1/decks", nil); status != http.StatusUnauthorized {
		t.Fatalf("REST with a token bound to /mcp: status %d %s; want 401", status, body)
	}
}

func (e *oauthAttackEnv) plainPKCE(t *testing.T) {
	c := newOAuthClient(t, e.srv)
	verifier, challenge := pkce()
	wantRedirectError(t, c, c.authorizeQuery(verifier, func(q url.Values) { q.Set("code_challenge_method", "plain") }), "invalid_request")
	wantRedirectError(t, c, c.authorizeQuery(challenge, func(q url.Values) { q.Del("code_challenge_method") }), "invalid_request")
	wantRedirectError(t, c, c.authorizeQuery("", nil), "invalid_request")
}

func (e *oauthAttackEnv) adminScope(t *testing.T) {
	c := newOAuthClient(t, e.srv)
	_, challenge := pkce()
	wantRedirectError(t, c, c.authorizeQuery(challenge, func(q url.Values) { q.Set("scope", "admin") }), "invalid_scope")
	wantRedirectError(t, c, c.authorizeQuery(challenge, func(q url.Values) { q.Set("scope", "agent admin") }), "invalid_scope")
}

// refreshWiderScope: a refresh may narrow the grant's scope, never widen it (RFC 6749 §6); the
// refused refresh leaves the refresh token usable, at the grant's own scope.
func (e *oauthAttackEnv) refreshWiderScope(t *testing.T) {
	c := newOAuthClient(t, e.srv)
	verifier, challenge := pkce()
	code := c.code(c.authorizeQuery(challenge, func(q url.Values) { q.Set("scope", "agent:read") }))
	status, out := c.token(c.exchangeForm(code, verifier))
	if status != http.StatusOK {
		t.Fatalf("exchange: %d %v", status, out)
	}
	rt := out["refresh_token"].(string)
	refresh := func(scope string) (int, map[string]any) {
		return c.token(url.Values{"grant_type": {"refresh_token"}, "refresh_token": {rt}, "client_id": {c.id}, "scope": {scope}})
	}
	for _, scope := range []string{"agent", "admin", "agent:read admin"} {
		status, out := refresh(scope)
		wantOAuthError(t, "refresh asking "+scope, status, out, http.StatusBadRequest, "invalid_scope")
	}
	if status, out := refresh("agent:read"); status != http.StatusOK || out["scope"] != "agent:read" {
		t.Fatalf("the refresh token after the refusals: %d %v, want agent:read", status, out)
	}
}

func (e *oauthAttackEnv) consentForgery(t *testing.T) {
	c := newOAuthClient(t, e.srv)
	_, challenge := pkce()
	q := c.authorizeQuery(challenge, nil)
	in := map[string]any{"approve": true}
	for k := range q {
		in[k] = q.Get(k)
	}
	body := []byte(toJSON(t, in))
	if status, out := cookieCall(t, e.srv, c.cookie, "POST", "/api/v1/oauth/consent", "application/json", body, "Origin", e.srv.URL()); status != http.StatusForbidden {
		t.Fatalf("consent without CSRF: status %d %s; want 403", status, out)
	}
	if status, out := cookieCall(t, e.srv, c.cookie, "POST", "/api/v1/oauth/consent", "application/json", body,
		core.HeaderCSRF, c.csrf, "Origin", "http://evil.example"); status != http.StatusForbidden {
		t.Fatalf("consent from a foreign page: status %d %s; want 403", status, out)
	}
	agent := frontDoorToken(t, e.srv, backend.ScopeAgent)
	if status, out := frontDoorCall(t, e.srv, agent, "POST", "/api/v1/oauth/consent", body); status != http.StatusForbidden {
		t.Fatalf("consent by an agent token: status %d %s; want 403", status, out)
	}
}

func (e *oauthAttackEnv) codeOtherClient(t *testing.T) {
	a, b := newOAuthClient(t, e.srv), newOAuthClient(t, e.srv)
	verifier, challenge := pkce()
	code := a.code(a.authorizeQuery(challenge, nil))
	form := a.exchangeForm(code, verifier)
	form.Set("client_id", b.id)
	status, out := b.token(form)
	wantOAuthError(t, "code redeemed by another client", status, out, http.StatusBadRequest, "invalid_grant")
}

// refreshOtherClient: a refresh token issued to one client is presented with another client's
// id, or with none. Both are invalid_grant and leave the token unspent: its own client still
// refreshes with it.
func (e *oauthAttackEnv) refreshOtherClient(t *testing.T) {
	a, b := newOAuthClient(t, e.srv), newOAuthClient(t, e.srv)
	verifier, challenge := pkce()
	status, out := a.token(a.exchangeForm(a.code(a.authorizeQuery(challenge, nil)), verifier))
	if status != http.StatusOK {
		t.Fatalf("exchange: %d %v", status, out)
	}
	rt := out["refresh_token"].(string)
	for _, client := range []url.Values{{"client_id": {b.id}}, {}, {"client_id": {""}}, {"client_id": {"no-such-client"}}} {
		form := url.Values{"grant_type": {"refresh_token"}, "refresh_token": {rt}}
		for k, v := range client {
			form[k] = v
		}
		status, out := b.token(form)
		wantOAuthError(t, "refresh with client "+client.Get("client_id"), status, out, http.StatusBadRequest, "invalid_grant")
	}
	status, out = a.token(url.Values{"grant_type": {"refresh_token"}, "refresh_token": {rt}, "client_id": {a.id}})
	if status != http.StatusOK || out["access_token"] == nil {
		t.Fatalf("the grant's own client after the refusals: %d %v", status, out)
	}
}

// redirectBadPort: a loopback redirect URI whose port is no TCP port (0, 99999, 65536) is
// neither registered nor accepted in an authorization request of a client registered on a
// loopback URI (where any port is allowed).
func (e *oauthAttackEnv) redirectBadPort(t *testing.T) {
	for _, r := range []string{"http://127.0.0.1:99999/cb", "http://localhost:65536/cb", "http://[::1]:0/cb", "http://127.0.0.1:-1/cb"} {
		status, body := oauthPost(t, e.srv.URL()+"/oauth/register", "application/json", `{"redirect_uris":[`+toJSON(t, r)+`]}`)
		if status != http.StatusBadRequest || !strings.Contains(string(body), "invalid_redirect_uri") {
			t.Fatalf("register redirect_uri %q: status %d %s; want 400 invalid_redirect_uri", r, status, body)
		}
	}
	c := newOAuthClient(t, e.srv)
	_, challenge := pkce()
	for _, r := range []string{"http://127.0.0.1:99999/callback", "http://127.0.0.1:0/callback"} {
		wantNoRedirect(t, c, c.authorizeQuery(challenge, func(q url.Values) { q.Set("redirect_uri", r) }), http.StatusBadRequest, "invalid_request")
	}
}

// consentTrustedName: anyone may register a client called "Claude Code". The consent screen
// must not present that name as a fact: it says the name is the client's own and unverified,
// and shows where the answer goes (the redirect host), in a real browser.
func (e *oauthAttackEnv) consentTrustedName(t *testing.T) {
	chromiumPath(t)
	c, _ := registerLoopbackClient(t, e.srv, "Claude Code")
	redirectHost := strings.TrimPrefix(strings.TrimSuffix(c.redirect, "/callback"), "http://")
	b := startDashBrowser(t, e.srv)
	_, challenge := pkce()
	b.do("opening the authorization URL", chromedp.Navigate(e.srv.URL()+"/oauth/authorize?"+c.authorizeQuery(challenge, nil).Encode()))
	b.waitFor("the sign-in page", mainHas("Sign in to Agent Deck"))
	b.typeInto(`input[name=token]`, e.srv.AdminToken())
	b.click(`main form button[type=submit]`)
	b.waitFor("the consent screen", `!!document.querySelector('#consent-allow')`)
	title := evalIn[string](b, `document.querySelector('main h1')?.textContent || ''`)
	text := evalIn[string](b, `document.querySelector('main')?.innerText || ''`)
	if !strings.Contains(strings.ToLower(text), "unverified") || !strings.Contains(text, "not verified") {
		t.Errorf("the consent screen does not say the client's name is unverified:\n%s", text)
	}
	if !strings.Contains(title, "“Claude Code”") {
		t.Errorf("the title presents the name as a fact: %q", title)
	}
	if !strings.Contains(text, redirectHost) || !strings.Contains(text, "this computer") {
		t.Errorf("the consent screen does not name the redirect host %s and that it is this computer:\n%s", redirectHost, text)
	}
	b.checkAccessibility("consent-unverified")
	b.checkNoExceptions()
}
