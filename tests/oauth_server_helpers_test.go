package tests

import (
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"io"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/agent-deck/agent-deck/backend/authserver"
	"github.com/agent-deck/agent-deck/backend/core"
	"github.com/agent-deck/agent-deck/cli"
)

// oauthClient is an MCP client signing in to a deck server by OAuth, driven with plain HTTP;
// its "browser" is a person signed in to the dashboard who allows the consent screen.
type oauthClient struct {
	t        *testing.T
	srv      *cli.Server
	id       string
	redirect string
	cookie   *http.Cookie
	csrf     string
}

var noFollow = &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}

// newOAuthClient registers a client by Dynamic Client Registration and signs a person in to
// the dashboard.
func newOAuthClient(t *testing.T, srv *cli.Server) *oauthClient {
	t.Helper()
	c := &oauthClient{t: t, srv: srv, redirect: "http://127.0.0.1:33418/callback"}
	status, body := oauthPost(t, srv.URL()+"/oauth/register", "application/json",
		`{"client_name":"Test Client","redirect_uris":["`+c.redirect+`"],"grant_types":["authorization_code","refresh_token"],"response_types":["code"],"token_endpoint_auth_method":"none"}`)
	if status != http.StatusCreated {
		t.Fatalf("register: status %d: %s", status, body)
	}
	var reg authserver.ClientRegistration
	must(t, json.Unmarshal(body, &reg))
	c.id = reg.ClientID
	c.cookie, c.csrf = dashboardSignIn(t, srv)
	return c
}

// pkce returns a fresh verifier and its S256 challenge.
func pkce() (verifier, challenge string) {
	verifier = rand.Text() + rand.Text() // 52 characters of base32
	sum := sha256.Sum256([]byte(verifier))
	return verifier, base64.RawURLEncoding.EncodeToString(sum[:])
}

// authorizeQuery is a well-formed authorization request; tweak changes it.
func (c *oauthClient) authorizeQuery(challenge string, tweak func(url.Values)) url.Values {
	q := url.Values{"response_type": {"code"}, "client_id": {c.id}, "redirect_uri": {c.redirect},
		"scope": {"agent"}, "state": {"st-" + randHex(4)}, "code_challenge": {challenge},
		"code_challenge_method": {"S256"}, "resource": {c.srv.URL() + "/mcp"}}
	if tweak != nil {
		tweak(q)
	}
	return q
}

// authorize sends the browser to the authorization endpoint and returns the status and Location.
func (c *oauthClient) authorize(q url.Values) (int, string, string) {
	c.t.Helper()
	resp, err := noFollow.Get(c.srv.URL() + "/oauth/authorize?" + q.Encode())
	must(c.t, err)
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, resp.Header.Get("Location"), string(body)
}

// consent answers the consent screen for q as the dashboard does (cookie, CSRF, own origin) and
// returns where the browser goes next.
func (c *oauthClient) consent(q url.Values, approve bool) *url.URL {
	c.t.Helper()
	in := map[string]any{"approve": approve}
	for k := range q {
		in[k] = q.Get(k)
	}
	status, body := cookieCall(c.t, c.srv, c.cookie, "POST", "/api/v1/oauth/consent", "application/json",
		[]byte(toJSON(c.t, in)), core.HeaderCSRF, c.csrf, "Origin", c.srv.URL())
	if status != http.StatusOK {
		c.t.Fatalf("consent: status %d: %s", status, body)
	}
	var out authserver.ConsentDecision
	must(c.t, json.Unmarshal(body, &out))
	u, err := url.Parse(out.RedirectTo)
	must(c.t, err)
	return u
}

// code runs authorize and consent and returns the code the client receives.
func (c *oauthClient) code(q url.Values) string {
	c.t.Helper()
	status, loc, body := c.authorize(q)
	if status != http.StatusFound || !strings.HasPrefix(loc, "/#/consent?") {
		c.t.Fatalf("authorize: status %d, Location %q: %s", status, loc, body)
	}
	u := c.consent(q, true)
	if got := u.Query().Get("state"); got != q.Get("state") {
		c.t.Fatalf("redirect state %q, want %q", got, q.Get("state"))
	}
	if got := u.Query().Get("iss"); got != c.srv.URL() {
		c.t.Fatalf("redirect iss %q, want %q", got, c.srv.URL())
	}
	code := u.Query().Get("code")
	if code == "" {
		c.t.Fatalf("redirect without a code: %s", u)
	}
	return code
}

// token posts a token request; it returns the status and the decoded answer.
func (c *oauthClient) token(form url.Values) (int, map[string]any) {
	c.t.Helper()
	status, body := oauthPost(c.t, c.srv.URL()+"/oauth/token", "application/x-www-form-urlencoded", form.Encode())
	var out map[string]any
	if err := json.Unmarshal(body, &out); err != nil {
		c.t.Fatalf("token answer is not JSON (status %d): %s", status, body)
	}
	return status, out
}

func (c *oauthClient) exchangeForm(code, verifier string) url.Values {
	return url.Values{"grant_type": {"authorization_code"}, "code": {code}, "redirect_uri": {c.redirect},
		"client_id": {c.id}, "code_verifier": {verifier}, "resource": {c.srv.URL() + "/mcp"}}
}

// signIn runs the whole flow and returns the access and refresh tokens.
func (c *oauthClient) signIn() (access, refresh string) {
	c.t.Helper()
	verifier, challenge := pkce()
	code := c.code(c.authorizeQuery(challenge, nil))
	status, out := c.token(c.exchangeForm(code, verifier))
	if status != http.StatusOK {
		c.t.Fatalf("token: status %d: %v", status, out)
	}
	access, _ = out["access_token"].(string)
	refresh, _ = out["refresh_token"].(string)
	if access == "" || refresh == "" || out["token_type"] != "Bearer" {
		c.t.Fatalf("token answer %v", out)
	}
	return access, refresh
}

func oauthPost(t *testing.T, url, contentType, body string) (int, []byte) {
	t.Helper()
	resp, err := http.Post(url, contentType, strings.NewReader(body))
	must(t, err)
	defer resp.Body.Close()
	out, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, out
}

// mcpStatus sends an initialize to /mcp with the bearer token and returns the HTTP status.
func mcpStatus(t *testing.T, srv *cli.Server, token string) int {
	t.Helper()
	req, err := http.NewRequest(http.MethodPost, srv.URL()+"/mcp",
		strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`))
	must(t, err)
	req.Header.Set("Authorization", "Bearer "+token)
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	resp, err := http.DefaultClient.Do(req)
	must(t, err)
	_, _ = io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	return resp.StatusCode
}
