package dashboardapi

import (
	"net/http"
	"strings"
	"testing"
)

// authServerSteps exercise the OAuth authorization server's routes for TestEveryRoute.
func authServerSteps(ok []int) []step {
	metadata := func(field string) func(t *testing.T, r response, _ map[string]string) {
		return func(t *testing.T, r response, _ map[string]string) {
			if !strings.Contains(string(r.body), `"`+field+`"`) {
				t.Errorf("metadata without %s: %s", field, r.body)
			}
		}
	}
	return []step{
		{"resource metadata", http.MethodGet, "/.well-known/oauth-protected-resource", nil, ok, metadata("authorization_servers")},
		{"resource metadata of /mcp", http.MethodGet, "/.well-known/oauth-protected-resource/mcp", nil, ok, metadata("authorization_servers")},
		{"authorization server metadata", http.MethodGet, "/.well-known/oauth-authorization-server", nil, ok, metadata("code_challenge_methods_supported")},
	}
}
