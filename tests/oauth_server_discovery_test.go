package tests

import (
	"encoding/json"
	"net/http"
	"strings"
	"testing"

	"github.com/agent-deck/agent-deck/backend"
	"github.com/agent-deck/agent-deck/backend/authserver"
)

// TestOAuthServerDiscovery: a client that reaches /mcp without a token learns, from the 401,
// where the resource metadata is, and from there the authorization server's endpoints
// (MCP authorization: RFC 9728 then RFC 8414). The 401 keeps its coded JSON body.
func TestOAuthServerDiscovery(t *testing.T) {
	srv := startFrontDoor(t, nil)
	base := srv.URL()

	req, err := http.NewRequest(http.MethodPost, base+"/mcp", strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{}}`))
	must(t, err)
	req.Header.Set("Content-Type", "application/json")
	resp, err := http.DefaultClient.Do(req)
	must(t, err)
	var rpc struct {
		Error struct {
			Data struct {
				Code backend.Code `json:"code"`
			} `json:"data"`
		} `json:"error"`
	}
	must(t, json.NewDecoder(resp.Body).Decode(&rpc))
	resp.Body.Close()
	if resp.StatusCode != http.StatusUnauthorized || rpc.Error.Data.Code != backend.CodeUnauthenticated {
		t.Fatalf("/mcp without a token: status %d, code %q; want 401 UNAUTHENTICATED", resp.StatusCode, rpc.Error.Data.Code)
	}
	wantMD := base + "/.well-known/oauth-protected-resource/mcp"
	if got := resp.Header.Get("WWW-Authenticate"); !strings.HasPrefix(got, "Bearer ") || !strings.Contains(got, `resource_metadata="`+wantMD+`"`) {
		t.Fatalf("WWW-Authenticate = %q; want Bearer with resource_metadata=%q", got, wantMD)
	}

	for _, path := range []string{"/.well-known/oauth-protected-resource/mcp", "/.well-known/oauth-protected-resource"} {
		var prm authserver.ProtectedResourceMetadata
		getJSON(t, base+path, &prm)
		if prm.Resource != base+"/mcp" || len(prm.AuthorizationServers) != 1 || prm.AuthorizationServers[0] != base {
			t.Fatalf("%s = %+v; want resource %s/mcp served by %s", path, prm, base, base)
		}
	}
	var asm map[string]any
	getJSON(t, base+"/.well-known/oauth-authorization-server", &asm)
	want := map[string]any{
		"issuer":                                base,
		"authorization_endpoint":                base + "/oauth/authorize",
		"token_endpoint":                        base + "/oauth/token",
		"registration_endpoint":                 base + "/oauth/register",
		"client_id_metadata_document_supported": true,
	}
	for k, v := range want {
		if asm[k] != v {
			t.Errorf("authorization server metadata %s = %v; want %v", k, asm[k], v)
		}
	}
	if got := toJSON(t, asm["code_challenge_methods_supported"]); got != `["S256"]` {
		t.Errorf("code_challenge_methods_supported = %s; want [\"S256\"] (plain is refused)", got)
	}
	if got := toJSON(t, asm["scopes_supported"]); got != `["agent","agent:read"]` {
		t.Errorf("scopes_supported = %s; want agent and agent:read only", got)
	}
}

func getJSON(t *testing.T, url string, out any) {
	t.Helper()
	resp, err := http.Get(url)
	must(t, err)
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("GET %s: status %d", url, resp.StatusCode)
	}
	must(t, json.NewDecoder(resp.Body).Decode(out))
}
