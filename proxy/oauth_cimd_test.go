package proxy_test

import (
	"context"
	"net/http"
	"testing"

	"github.com/agent-deck/agent-deck/backend"
	"github.com/agent-deck/agent-deck/proxy"
	"github.com/agent-deck/agent-deck/tests/oauthas"
)

// TestOAuthClientMetadataDocument: an authorization server that supports Client ID Metadata
// Documents gets the deck's document URL as client_id, with no registration; one that does
// not, or a deck without a document URL, registers as before.
func TestOAuthClientMetadataDocument(t *testing.T) {
	const docURL = "https://deck.example.com/oauth/client-metadata.json"
	for _, tc := range []struct {
		name     string
		cimd     bool
		docURL   string
		wantCIMD bool
	}{
		{"supported and configured: the URL is the client_id", true, docURL, true},
		{"supported, no document URL: registration", true, "", false},
		{"not supported: registration", false, docURL, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			as := oauthas.New(http.NotFoundHandler(), oauthas.Options{Scope: "mcp:read", ClientIDMetadataDocuments: tc.cimd,
				ClientMetadataRedirects: []string{testRedirect}})
			defer as.Close()
			ctx := context.Background()
			f := proxy.NewOAuthFlow(proxy.Network{})
			p, err := f.Begin(ctx, backend.OAuthBegin{ServiceID: "svc_x", URL: as.MCPURL(), RedirectURI: testRedirect, ClientMetadataURL: tc.docURL})
			if err != nil {
				t.Fatalf("Begin: %v", err)
			}
			code, _ := consent(t, p.AuthURL)
			gotID := as.LastAuthorize().Get("client_id")
			if tc.wantCIMD {
				if p.Client.ID != docURL || p.Client.AuthMethod != "none" || p.Client.Secret != "" || gotID != docURL || as.Counts().Registrations != 0 {
					t.Fatalf("client %+v, authorize client_id %q, %d registrations; want the document URL and no registration",
						p.Client, gotID, as.Counts().Registrations)
				}
			} else if p.Client.ID == docURL || gotID != p.Client.ID || as.Counts().Registrations != 1 {
				t.Fatalf("client %+v, authorize client_id %q, %d registrations; want one registration", p.Client, gotID, as.Counts().Registrations)
			}
			tok, err := f.Exchange(ctx, backend.OAuthService{URL: as.MCPURL()}, p, code)
			if err != nil || tok.AccessToken == "" {
				t.Fatalf("Exchange: %v (token set: %t)", err, tok.AccessToken != "")
			}
			if _, err := f.Refresh(ctx, backend.OAuthService{URL: as.MCPURL()}, p.Client, tok); err != nil {
				t.Fatalf("Refresh: %v", err)
			}
		})
	}
}
