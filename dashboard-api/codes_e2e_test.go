package dashboardapi

import (
	"net/http"
	"strings"
	"testing"

	"github.com/agent-deck/agent-deck/backend"
)

// TestErrorCodesThroughRealRequests provokes each code a REST caller can meet for real and checks
// status and body shape. (TestErrorBodiesGolden covers every code, including those only the
// MCP surface or a failing downstream produces.)
func TestErrorCodesThroughRealRequests(t *testing.T) {
	s := newTestServer(t, Options{})
	seed(t, s)
	reader := s.newToken(t, "reader", backend.ScopeAgentRead)
	cases := []struct {
		name, token, method, path string
		body                      any
		status                    int
		code                      backend.Code
		detail                    string // a key details must hold ("hint": the hint member)
	}{
		{"invalid argument", s.admin, "POST", "/api/v1/decks", `{"name":1}`, 400, backend.CodeInvalidArgument, "field"},
		{"unauthenticated", "", "GET", "/api/v1/decks", nil, 401, backend.CodeUnauthenticated, "hint"},
		{"forbidden", reader, "DELETE", "/api/v1/decks/Main", nil, 403, backend.CodeForbidden, "hint"},
		{"not found", s.admin, "GET", "/api/v1/decks/Nowhere", nil, 404, backend.CodeNotFound, ""},
		{"not found lists", s.admin, "GET", "/api/v1/playbooks/pb_nope", nil, 404, backend.CodeNotFound, ""},
		{"conflict (case-insensitive name)", s.admin, "POST", "/api/v1/decks", map[string]any{"name": "MAIN"}, 409, backend.CodeConflict, ""},
		{"playbook dependency", s.admin, "DELETE", "/api/v1/credentials/cred_stripe", nil, 409, backend.CodePlaybookDependency, "playbooks"},
		{"downstream unreachable", s.admin, "POST", "/api/v1/services/Files/call", map[string]any{"tool_name": "x"}, 503, "", ""},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			r := s.do(t, tc.token, tc.method, tc.path, tc.body)
			e := r.errorBody()
			if r.status != tc.status {
				t.Fatalf("status %d, want %d: %s", r.status, tc.status, r.body)
			}
			if tc.code != "" && e.Code != tc.code {
				t.Errorf("code %q, want %q", e.Code, tc.code)
			}
			if tc.code == "" && !strings.HasPrefix(string(e.Code), "DOWNSTREAM_") {
				t.Errorf("code %q, want a DOWNSTREAM_ code", e.Code)
			}
			if e.Detail == "" || e.Details == nil {
				t.Errorf("problem lacks detail or details: %s", r.body)
			}
			if ct := r.header.Get("Content-Type"); ct != "application/problem+json" {
				t.Errorf("Content-Type %q, want application/problem+json", ct)
			}
			if e.Type != "/api/v1/problems/"+string(e.Code) || e.Title == "" || e.Status != r.status ||
				e.Instance != strings.SplitN(tc.path, "?", 2)[0] {
				t.Errorf("problem members type %q title %q status %d instance %q, want the code's type, a title, %d and %s",
					e.Type, e.Title, e.Status, e.Instance, r.status, tc.path)
			}
			switch {
			case tc.detail == "hint":
				if e.Hint == "" {
					t.Errorf("problem lacks a hint: %s", r.body)
				}
			case tc.detail != "":
				if _, ok := e.Details[tc.detail]; !ok {
					t.Errorf("details lack %q: %s", tc.detail, r.body)
				}
			}
			// The deprecated error object still says the same, with the hint in its details.
			if e.Error.Code != e.Code || e.Error.Message != e.Detail || e.Error.Details["hint"] != nilIfEmpty(e.Hint) {
				t.Errorf("deprecated error member %+v does not repeat the problem: %s", e.Error, r.body)
			}
		})
	}
}

// TestDatabaseDown: with the database gone, readiness and requests answer 503 UNAVAILABLE,
// and no driver text reaches the client.
func TestDatabaseDown(t *testing.T) {
	s := newTestServer(t, Options{})
	s.store.Close()
	for _, tc := range []struct{ token, path string }{{"", "/readyz"}, {s.admin, "/api/v1/decks"}} {
		r := s.do(t, tc.token, "GET", tc.path, nil)
		if r.status != http.StatusServiceUnavailable || r.errorCode() != backend.CodeUnavailable {
			t.Errorf("GET %s: status %d code %q, want 503 UNAVAILABLE: %s", tc.path, r.status, r.errorCode(), r.body)
		}
		for _, leak := range []string{"pool", "closed", "pgx", "dial"} {
			if strings.Contains(strings.ToLower(r.errorBody().Detail), leak) {
				t.Errorf("GET %s: message %q carries driver text", tc.path, r.errorBody().Detail)
			}
		}
	}
}

// nilIfEmpty is what a decoded details map holds for a hint: nothing when there is none.
func nilIfEmpty(s string) any {
	if s == "" {
		return nil
	}
	return s
}
