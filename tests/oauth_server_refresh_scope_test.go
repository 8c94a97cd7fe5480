package tests

import (
	"net/http"
	"net/url"
	"testing"
)

// TestOAuthServerRefreshScope: a refresh may ask for a narrower scope than the grant's (RFC 6749 §6),
// and the grant keeps its scope for later refreshes. Asking for a wider one is a row of
// TestAttacksOAuth.
func TestOAuthServerRefreshScope(t *testing.T) {
	srv := startFrontDoor(t, nil)
	refreshForm := func(c *oauthClient, rt, scope string) url.Values {
		f := url.Values{"grant_type": {"refresh_token"}, "refresh_token": {rt}, "client_id": {c.id}}
		if scope != "" {
			f.Set("scope", scope)
		}
		return f
	}
	grant := func(t *testing.T, scope string) (*oauthClient, string) {
		c := newOAuthClient(t, srv)
		verifier, challenge := pkce()
		code := c.code(c.authorizeQuery(challenge, func(q url.Values) { q.Set("scope", scope) }))
		status, out := c.token(c.exchangeForm(code, verifier))
		if status != http.StatusOK || out["scope"] != scope {
			t.Fatalf("token: %d %v, want scope %s", status, out, scope)
		}
		return c, out["refresh_token"].(string)
	}
	refresh := func(t *testing.T, c *oauthClient, rt, scope, wantScope string) string {
		t.Helper()
		status, out := c.token(refreshForm(c, rt, scope))
		if status != http.StatusOK || out["scope"] != wantScope {
			t.Fatalf("refresh asking %q: %d %v, want scope %s", scope, status, out, wantScope)
		}
		if got := mcpStatus(t, srv, out["access_token"].(string)); got != http.StatusOK {
			t.Fatalf("/mcp with the refreshed token: %d", got)
		}
		return out["refresh_token"].(string)
	}
	for _, tc := range []struct {
		name string
		run  func(t *testing.T)
	}{
		{"an agent grant refreshes to agent:read, and later back to agent", func(t *testing.T) {
			c, rt := grant(t, "agent")
			rt = refresh(t, c, rt, "agent:read", "agent:read")
			rt = refresh(t, c, rt, "", "agent")
			refresh(t, c, rt, "agent", "agent")
		}},
	} {
		t.Run(tc.name, tc.run)
	}
}
