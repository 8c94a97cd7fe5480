package tests

import (
	"net/http"
	"net/url"
	"testing"
)

// TestOAuthRefreshScope: a refresh may ask for a narrower scope than the grant's, never a wider
// one (RFC 6749 §6); the grant keeps its scope for later refreshes, and a refused refresh
// leaves the refresh token usable.
func TestOAuthRefreshScope(t *testing.T) {
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
		{"an agent:read grant cannot refresh to agent; its refresh token still works", func(t *testing.T) {
			c, rt := grant(t, "agent:read")
			status, out := c.token(refreshForm(c, rt, "agent"))
			wantOAuthError(t, "wider scope", status, out, http.StatusBadRequest, "invalid_scope")
			refresh(t, c, rt, "agent:read", "agent:read")
		}},
		{"a scope that is not offered is invalid_scope", func(t *testing.T) {
			c, rt := grant(t, "agent")
			status, out := c.token(refreshForm(c, rt, "admin"))
			wantOAuthError(t, "admin scope", status, out, http.StatusBadRequest, "invalid_scope")
			refresh(t, c, rt, "", "agent")
		}},
	} {
		t.Run(tc.name, tc.run)
	}
}
