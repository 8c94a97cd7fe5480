package dashboardapi

import (
	"net/http"
	"strings"
	"testing"
)

// oauthSteps drive the sign-in routes on a server without an OAuth flow: connect is refused as
// unavailable, the state reads none, disconnect of nothing succeeds, and a callback with an
// unknown state shows a page, not JSON.
func oauthSteps(ok, gone []int) []step {
	unavailable := []int{http.StatusServiceUnavailable}
	return []step{
		{"connect service", "POST", "/api/v1/services/Echo/connect", map[string]any{}, unavailable, nil},
		{"service auth", "GET", "/api/v1/services/Echo/auth", nil, ok, func(t *testing.T, r response, _ map[string]string) {
			if !strings.Contains(string(r.body), `"state":"none"`) {
				t.Errorf("body %s", r.body)
			}
		}},
		{"disconnect service", "POST", "/api/v1/services/Echo/disconnect", nil, gone, nil},
		{"oauth callback", "GET", "/oauth/callback?state=unknown&code=x", nil, unavailable, func(t *testing.T, r response, _ map[string]string) {
			if !strings.Contains(string(r.body), "<!doctype html>") {
				t.Errorf("body %s", r.body)
			}
		}},
		{"client metadata document", "GET", "/oauth/client-metadata.json", nil, ok, func(t *testing.T, r response, _ map[string]string) {
			if !strings.Contains(string(r.body), `/oauth/client-metadata.json","client_name":"Agent Deck"`) ||
				!strings.Contains(string(r.body), `"token_endpoint_auth_method":"none"`) {
				t.Errorf("body %s", r.body)
			}
		}},
	}
}
