package tests

import (
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"strings"
	"testing"

	"github.com/agent-deck/agent-deck/cli"
	"github.com/agent-deck/agent-deck/tests/oauthas"
)

// startCIMDDeck starts a deck server with a Client ID Metadata Document URL configured.
func startCIMDDeck(t *testing.T, docURL string) *cli.Server {
	t.Helper()
	return startFrontDoor(t, func(c *cli.ServeConfig) { c.OAuthClientMetadataURL = docURL })
}

// TestOAuthClientMetadataDocumentE2E: a deck with a Client ID Metadata Document URL serves its
// document and signs in to a service whose authorization server supports such documents with
// that URL as client_id and no registration; the service then works through the hub.
func TestOAuthClientMetadataDocumentE2E(t *testing.T) {
	const docURL = "https://deck.example.com/oauth/client-metadata.json"
	// The service starts first so that it closes last, after the deck has dropped its connections.
	as := newOAuthService(t, oauthas.Options{Scope: "mcp:read", ClientIDMetadataDocuments: true})
	srv := startCIMDDeck(t, docURL)
	callback := srv.URL() + "/oauth/callback"

	resp, err := http.Get(srv.URL() + "/oauth/client-metadata.json")
	if err != nil {
		t.Fatal(err)
	}
	var doc map[string]any
	_ = json.NewDecoder(resp.Body).Decode(&doc)
	_ = resp.Body.Close()
	if resp.StatusCode != http.StatusOK || doc["client_id"] != docURL || doc["client_name"] != "Agent Deck" ||
		doc["token_endpoint_auth_method"] != "none" || !oauth3ListIs(doc["redirect_uris"], callback) ||
		!oauth3ListIs(doc["grant_types"], "authorization_code", "refresh_token") || !oauth3ListIs(doc["response_types"], "code") {
		t.Fatalf("client metadata document %d %v", resp.StatusCode, doc)
	}

	as.SetClientMetadataRedirects([]string{callback})
	if st := adminREST(t, srv, http.MethodPost, "/api/v1/services", map[string]any{"name": "notes", "type": "mcp", "url": as.MCPURL()}, nil); st != http.StatusCreated {
		t.Fatalf("create service: %d", st)
	}
	var started struct {
		AuthURL string `json:"authorization_url"`
	}
	if st := adminREST(t, srv, http.MethodPost, "/api/v1/services/notes/connect", map[string]any{}, &started); st != http.StatusOK {
		t.Fatalf("connect: %d", st)
	}
	page, err := http.Get(started.AuthURL) // the browser: consent, then back to the deck's callback
	if err != nil {
		t.Fatal(err)
	}
	text, _ := io.ReadAll(page.Body)
	_ = page.Body.Close()
	if page.StatusCode != http.StatusOK {
		t.Fatalf("sign-in ended with %d: %s", page.StatusCode, text)
	}
	if got := as.LastAuthorize().Get("client_id"); got != docURL || as.Counts().Registrations != 0 {
		t.Fatalf("authorize client_id %q with %d registrations; want %q and none", got, as.Counts().Registrations, docURL)
	}
	var out map[string]any
	if st := adminREST(t, srv, http.MethodPost, "/api/v1/services/notes/call", map[string]any{"tool_name": "echo", "arguments": map[string]any{"text": "hi"}}, &out); st != http.StatusOK {
		t.Fatalf("call after sign-in: %d %v", st, out)
	}
	if raw, _ := json.Marshal(out); !strings.Contains(string(raw), "echo: hi") {
		t.Fatalf("call answered %s", raw)
	}
}

// TestOAuthClientMetadataURLFlag: the configured URL must be https with a path.
func TestOAuthClientMetadataURLFlag(t *testing.T) {
	for _, bad := range []string{"http://deck.example.com/oauth/client-metadata.json", "https://deck.example.com", "not a url"} {
		_, err := cli.Start(context.Background(), cli.ServeConfig{Home: t.TempDir(), Addr: "127.0.0.1:0", Profile: "standard",
			Logger: slog.New(slog.DiscardHandler), OAuthClientMetadataURL: bad})
		if err == nil || !strings.Contains(err.Error(), "--oauth-client-metadata-url") || !strings.Contains(err.Error(), "https URL") {
			t.Errorf("%q: %v, want a refusal naming the flag and an https URL", bad, err)
		}
	}
}

func oauth3ListIs(v any, want ...string) bool {
	list, ok := v.([]any)
	if !ok || len(list) != len(want) {
		return false
	}
	for i, w := range want {
		if list[i] != w {
			return false
		}
	}
	return true
}
