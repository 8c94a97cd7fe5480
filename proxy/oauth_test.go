package proxy_test

import (
	"context"
	"net/http"
	"testing"

	"github.com/agent-deck/agent-deck/backend"
	"github.com/agent-deck/agent-deck/proxy"
	"github.com/agent-deck/agent-deck/tests/oauthas"
)

const testRedirect = "http://127.0.0.1:1110/oauth/callback"

// consent opens the authorization URL as a browser would and returns the redirect's code and
// state without following it.
func consent(t *testing.T, authURL string) (code, state string) {
	t.Helper()
	code, state, err := oauthas.Consent(authURL)
	if err != nil {
		t.Fatal(err)
	}
	return code, state
}

// TestOAuthFlow: discovery from the 401, registration, PKCE, state, resource and scope choice,
// code exchange, refresh with rotation, revocation, against a strict authorization server.
func TestOAuthFlow(t *testing.T) {
	for _, tc := range []struct {
		name         string
		opts         oauthas.Options
		wantScope    string
		wantAuthMeth string
	}{
		{"public client, scope from the challenge", oauthas.Options{Scope: "mcp:read"}, "mcp:read", "none"},
		{"scope from scopes_supported", oauthas.Options{}, "mcp:read mcp:write", "none"},
		{"confidential client with client_secret_basic", oauthas.Options{Scope: "mcp:read", ConfidentialClients: true}, "mcp:read", "client_secret_basic"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			as := oauthas.New(http.NotFoundHandler(), tc.opts)
			defer as.Close()
			ctx := context.Background()
			f := proxy.NewOAuthFlow(proxy.Network{})
			p, err := f.Begin(ctx, backend.OAuthBegin{ServiceID: "svc_x", URL: as.MCPURL(), RedirectURI: testRedirect})
			if err != nil {
				t.Fatalf("Begin: %v", err)
			}
			if p.Client.ID == "" || p.Client.AuthMethod != tc.wantAuthMeth || as.Counts().Registrations != 1 {
				t.Fatalf("client = %+v, registrations %d; want one registration with %s", p.Client, as.Counts().Registrations, tc.wantAuthMeth)
			}
			_, state := consent(t, p.AuthURL)
			q := as.LastAuthorize()
			if got := q.Get("scope"); got != tc.wantScope {
				t.Errorf("scope = %q, want %q", got, tc.wantScope)
			}
			if q.Get("resource") != as.MCPURL() || q.Get("code_challenge_method") != "S256" || state != p.State {
				t.Errorf("authorize query %v, state back %q want %q", q, state, p.State)
			}
			if _, err := f.Exchange(ctx, backend.OAuthService{URL: as.MCPURL()}, p, "not-the-code"); backend.ErrorCode(err) != backend.CodeDownstreamAuth {
				t.Errorf("Exchange with a wrong code: %v, want DOWNSTREAM_AUTH", err)
			}
			code, _ := consent(t, p.AuthURL)
			tok, err := f.Exchange(ctx, backend.OAuthService{URL: as.MCPURL()}, p, code)
			if err != nil {
				t.Fatalf("Exchange: %v", err)
			}
			if tok.AccessToken == "" || tok.RefreshToken == "" || tok.ExpiresAt.IsZero() {
				t.Fatalf("token %+v lacks access, refresh or expiry", tok)
			}
			next, err := f.Refresh(ctx, backend.OAuthService{URL: as.MCPURL()}, p.Client, tok)
			if err != nil {
				t.Fatalf("Refresh: %v", err)
			}
			if next.RefreshToken == tok.RefreshToken || next.AccessToken == tok.AccessToken {
				t.Errorf("refresh did not rotate the tokens")
			}
			if _, err := f.Refresh(ctx, backend.OAuthService{URL: as.MCPURL()}, p.Client, tok); backend.ErrorCode(err) != backend.CodeDownstreamAuth {
				t.Errorf("refresh with a spent token: %v, want DOWNSTREAM_AUTH", err)
			}
			if err := f.Revoke(ctx, backend.OAuthService{URL: as.MCPURL()}, p.Client, next); err != nil {
				t.Fatalf("Revoke: %v", err)
			}
			if _, err := f.Refresh(ctx, backend.OAuthService{URL: as.MCPURL()}, p.Client, next); err == nil {
				t.Errorf("a revoked refresh token still works")
			}
		})
	}
}
