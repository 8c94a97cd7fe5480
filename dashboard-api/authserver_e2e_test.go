package dashboardapi

import (
	"net/http"
	"net/url"
	"strings"
	"testing"
)

// authServerSteps exercise the OAuth authorization server's routes for TestEveryRoute; the
// whole flow is tested end to end in tests/oauth_server_*_test.go.
func authServerSteps(ok []int) []step {
	metadata := func(field string) func(t *testing.T, r response, _ map[string]string) {
		return func(t *testing.T, r response, _ map[string]string) {
			if !strings.Contains(string(r.body), `"`+field+`"`) {
				t.Errorf("metadata without %s: %s", field, r.body)
			}
		}
	}
	const challenge = "E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM" // RFC 7636 appendix B
	request := func(vars map[string]string) url.Values {
		return url.Values{"response_type": {"code"}, "client_id": {vars["oauth_client"]},
			"redirect_uri": {"http://127.0.0.1:9/cb"}, "state": {"s1"}, "code_challenge": {challenge},
			"code_challenge_method": {"S256"}}
	}
	return []step{
		{"resource metadata", http.MethodGet, "/.well-known/oauth-protected-resource", nil, ok, metadata("authorization_servers")},
		{"resource metadata of /mcp", http.MethodGet, "/.well-known/oauth-protected-resource/mcp", nil, ok, metadata("authorization_servers")},
		{"authorization server metadata", http.MethodGet, "/.well-known/oauth-authorization-server", nil, ok, metadata("code_challenge_methods_supported")},
		{"oauth register", http.MethodPost, "/oauth/register", map[string]any{"client_name": "routes", "redirect_uris": []string{"http://127.0.0.1:9/cb"}},
			[]int{http.StatusCreated}, func(t *testing.T, r response, vars map[string]string) {
				vars["oauth_client"] = decode[map[string]any](t, r)["client_id"].(string)
				vars["oauth_request"] = request(vars).Encode()
			}},
		{"oauth authorize of an unknown client", http.MethodGet, "/oauth/authorize?client_id=nobody", nil, []int{http.StatusUnauthorized}, nil},
		{"oauth token without a grant", http.MethodPost, "/oauth/token", map[string]any{}, []int{http.StatusBadRequest}, metadata("error")},
		{"consent info", http.MethodGet, "/api/v1/oauth/consent?{oauth_request}", nil, ok, metadata("client_name")},
		{"consent without a request", http.MethodPost, "/api/v1/oauth/consent", map[string]any{"approve": false}, []int{http.StatusBadRequest}, metadata("INVALID_ARGUMENT")},
	}
}
