package tests

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/agent-deck/agent-deck/cli"
)

// TestOAuthServerClientMetadataDocument: a client whose client_id is the URL of its metadata
// document signs in without registering; a document that names another client_id, or lists a
// redirect URI that is not loopback or https, is refused without a redirect.
func TestOAuthServerClientMetadataDocument(t *testing.T) {
	docs := map[string]map[string]any{}
	meta := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		d, ok := docs[r.URL.Path]
		if !ok {
			http.NotFound(w, r)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		_ = json.NewEncoder(w).Encode(d)
	}))
	t.Cleanup(meta.Close)
	good, liar, wild := meta.URL+"/good.json", meta.URL+"/liar.json", meta.URL+"/wild.json"
	redirect := "http://127.0.0.1:33419/cb"
	docs["/good.json"] = map[string]any{"client_id": good, "client_name": "Metadata Client", "redirect_uris": []string{redirect}, "token_endpoint_auth_method": "none"}
	docs["/liar.json"] = map[string]any{"client_id": good, "client_name": "Liar", "redirect_uris": []string{redirect}}
	docs["/wild.json"] = map[string]any{"client_id": wild, "client_name": "Wild", "redirect_uris": []string{"http://evil.example/cb"}}

	srv := startFrontDoor(t, func(c *cli.ServeConfig) { c.OAuthAllowLoopbackHTTPClientIDs = true })
	c := &oauthClient{t: t, srv: srv, id: good, redirect: redirect}
	c.cookie, c.csrf = dashboardSignIn(t, srv)

	var info map[string]any
	verifier, challenge := pkce()
	q := c.authorizeQuery(challenge, nil)
	status, body := cookieCall(t, srv, c.cookie, "GET", "/api/v1/oauth/consent?"+q.Encode(), "", nil)
	must(t, json.Unmarshal(body, &info))
	if status != http.StatusOK || info["client_name"] != "Metadata Client" || info["client_id_is_url"] != true {
		t.Fatalf("consent info: status %d %s; want the document's client name", status, body)
	}
	code := c.code(q)
	status, out := c.token(c.exchangeForm(code, verifier))
	if status != http.StatusOK || out["access_token"] == nil {
		t.Fatalf("token for a metadata-document client: %d %v", status, out)
	}
	if got := mcpStatus(t, srv, out["access_token"].(string)); got != http.StatusOK {
		t.Fatalf("/mcp with the token: status %d", got)
	}

	for _, id := range []string{liar, wild, meta.URL + "/missing.json"} {
		bad := &oauthClient{t: t, srv: srv, id: id, redirect: redirect}
		q := bad.authorizeQuery(challenge, nil)
		if id == wild {
			q.Set("redirect_uri", "http://evil.example/cb")
		}
		status, loc, body := bad.authorize(q)
		if status != http.StatusUnauthorized || loc != "" || !strings.Contains(body, "invalid_client") {
			t.Errorf("client_id %s: status %d, Location %q: %s; want 401 invalid_client, no redirect", id, status, loc, body)
		}
	}

	// Without the test-only option, only https client ids are accepted.
	strict := startFrontDoor(t, nil)
	sc := &oauthClient{t: t, srv: strict, id: good, redirect: redirect}
	status, loc, text := sc.authorize(sc.authorizeQuery(challenge, nil))
	if status != http.StatusUnauthorized || loc != "" || !strings.Contains(text, "https") {
		t.Errorf("http client id without the option: status %d, Location %q: %s; want 401 naming https", status, loc, text)
	}
}
