package dashboardapi

import (
	"net/http"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/agent-deck/agent-deck/backend"
)

// seed creates one card of each kind and a deck linking them, as admin.
func seed(t *testing.T, s *testServer) {
	t.Helper()
	s.must(t, http.StatusCreated, "POST", "/api/v1/decks", map[string]any{"name": "Main"}, nil)
	s.must(t, http.StatusCreated, "POST", "/api/v1/credentials", map[string]any{"label": "Stripe", "value": "sk-seed"}, nil)
	s.must(t, http.StatusCreated, "POST", "/api/v1/services",
		map[string]any{"name": "Files", "type": "mcp", "url": "http://127.0.0.1:9/mcp"}, nil)
	s.must(t, http.StatusCreated, "POST", "/api/v1/playbooks",
		map[string]any{"title": "Refund", "body": "Refund a charge with cred_stripe."}, nil)
	for _, c := range []map[string]any{
		{"card_type": "service", "card_id": "Files"},
		{"card_type": "credential", "card_id": "cred_stripe"},
		{"card_type": "playbook", "card_id": "pb_refund"},
	} {
		s.must(t, http.StatusOK, "POST", "/api/v1/decks/Main/cards", c, nil)
	}
}

func TestAuthentication(t *testing.T) {
	s := newTestServer(t, Options{})
	revoked := s.newToken(t, "old", backend.ScopeAdmin)
	var toks []backend.Token
	s.must(t, http.StatusOK, "GET", "/api/v1/tokens", nil, &toks)
	for _, tok := range toks {
		if tok.Name == "old" {
			s.must(t, http.StatusNoContent, "DELETE", "/api/v1/tokens/"+tok.ID, nil, nil)
		}
	}
	cases := []struct {
		name, token, method, path string
		status                    int
	}{
		{"no token", "", "GET", "/api/v1/decks", http.StatusUnauthorized},
		{"no token on a write", "", "POST", "/api/v1/decks", http.StatusUnauthorized},
		{"openapi is public", "", "GET", "/api/v1/openapi.json", http.StatusOK},
		{"unknown token", "adk_not-a-real-token", "GET", "/api/v1/decks", http.StatusUnauthorized},
		{"revoked token", revoked, "GET", "/api/v1/decks", http.StatusUnauthorized},
		{"revoked token on admin route", revoked, "GET", "/api/v1/tokens", http.StatusUnauthorized},
		{"healthz is public", "", "GET", "/healthz", http.StatusOK},
		{"readyz is public", "", "GET", "/readyz", http.StatusOK},
		{"admin token", s.admin, "GET", "/api/v1/decks", http.StatusOK},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			r := s.do(t, tc.token, tc.method, tc.path, nil)
			if r.status != tc.status {
				t.Fatalf("status %d, want %d: %s", r.status, tc.status, r.body)
			}
			if tc.status == http.StatusUnauthorized && r.errorCode() != backend.CodeUnauthenticated {
				t.Errorf("code %q, want UNAUTHENTICATED: %s", r.errorCode(), r.body)
			}
		})
	}
}

func TestScopesAreEnforcedByTheService(t *testing.T) {
	s := newTestServer(t, Options{})
	seed(t, s)
	read := s.newToken(t, "reader", backend.ScopeAgentRead)
	agent := s.newToken(t, "agent", backend.ScopeAgent)
	var toks []backend.Token
	s.must(t, http.StatusOK, "GET", "/api/v1/tokens", nil, &toks)
	before := s.snapshot(t)

	adminOnly := []struct {
		name, method, path string
		body               any
	}{
		{"create token", "POST", "/api/v1/tokens", map[string]any{"name": "x", "scope": "admin"}},
		{"list tokens", "GET", "/api/v1/tokens", nil},
		{"revoke token", "DELETE", "/api/v1/tokens/" + toks[0].ID, nil},
		{"create credential", "POST", "/api/v1/credentials", map[string]any{"label": "X", "value": "v"}},
		{"rotate credential", "POST", "/api/v1/credentials/cred_stripe/rotate", map[string]any{"value": "v2"}},
		{"delete deck", "DELETE", "/api/v1/decks/Main", nil},
		{"delete service", "DELETE", "/api/v1/services/Files", nil},
		{"delete credential", "DELETE", "/api/v1/credentials/cred_stripe", nil},
		{"delete playbook", "DELETE", "/api/v1/playbooks/pb_refund", nil},
		{"export", "GET", "/api/v1/export", nil},
		{"export by body", "POST", "/api/v1/export", map[string]any{"deck": "Main"}},
		{"import", "POST", "/api/v1/import", map[string]any{"format": "agent-deck-bundle", "version": 1}},
		{"exec", "POST", "/api/v1/exec", map[string]any{"credential_ids": []string{"cred_stripe"}, "command": []string{"env"}}},
		{"exec finish", "POST", "/api/v1/exec/1/finish", map[string]any{"exit_code": 0}},
		{"exec audits", "GET", "/api/v1/exec", nil},
	}
	for _, tok := range []struct{ scope, secret string }{{"agent:read", read}, {"agent", agent}} {
		for _, tc := range adminOnly {
			t.Run(tok.scope+"/"+tc.name, func(t *testing.T) {
				r := s.do(t, tok.secret, tc.method, tc.path, tc.body)
				if r.status != http.StatusForbidden || r.errorCode() != backend.CodeForbidden {
					t.Errorf("status %d code %q, want 403 FORBIDDEN: %s", r.status, r.errorCode(), r.body)
				}
			})
		}
	}
	readOnlyWrites := []struct {
		name, method, path string
		body               any
	}{
		{"create deck", "POST", "/api/v1/decks", map[string]any{"name": "Other"}},
		{"rename deck", "PATCH", "/api/v1/decks/Main", map[string]any{"name": "Other"}},
		{"link card", "POST", "/api/v1/decks/Main/cards", map[string]any{"card_type": "service", "card_id": "Files"}},
		{"unlink card", "DELETE", "/api/v1/decks/Main/cards/service/Files", nil},
		{"update playbook", "PATCH", "/api/v1/playbooks/pb_refund", map[string]any{"body": "changed"}},
	}
	for _, tc := range readOnlyWrites {
		t.Run("agent:read/"+tc.name, func(t *testing.T) {
			r := s.do(t, read, tc.method, tc.path, tc.body)
			if r.status != http.StatusForbidden || r.errorCode() != backend.CodeForbidden {
				t.Errorf("status %d code %q, want 403 FORBIDDEN: %s", r.status, r.errorCode(), r.body)
			}
		})
	}
	t.Run("agent:read may read", func(t *testing.T) {
		for _, p := range []string{"/api/v1/decks", "/api/v1/decks/Main/snapshot", "/api/v1/services", "/api/v1/playbooks"} {
			if r := s.do(t, read, "GET", p, nil); r.status != http.StatusOK {
				t.Errorf("GET %s: %d %s", p, r.status, r.body)
			}
		}
	})
	if diff := cmp.Diff(before, s.snapshot(t)); diff != "" {
		t.Errorf("refused requests changed the database (-before +after):\n%s", diff)
	}
}
