package dashboardapi

import (
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"testing"

	"github.com/agent-deck/agent-deck/backend"
)

// Issue 15, items 8 and 10: the API description is public, and scope comes before shape.

// TestAdminScopeBeforeShape sends every admin-only route a request that is wrong in
// every way it can be (bad path values, unknown query parameters, a body with an unknown
// field) with agent tokens: each must answer 403 FORBIDDEN, not 400.
func TestAdminScopeBeforeShape(t *testing.T) {
	s := newTestServer(t, Options{})
	tokens := map[string]string{
		"agent":      s.newToken(t, "agent", backend.ScopeAgent),
		"agent:read": s.newToken(t, "reader", backend.ScopeAgentRead),
	}
	a := newAPI(nil, Options{})
	admin := 0
	for _, r := range a.routes() {
		if strings.HasSuffix(r.summary, "; admin") != (r.scope == backend.ScopeAdmin) {
			t.Errorf("%s %s: summary %q and scope %q disagree on admin-only", r.method, r.path, r.summary, r.scope)
		}
		if r.scope != backend.ScopeAdmin {
			continue
		}
		admin++
		segs := strings.Split(r.path, "/")
		for i, seg := range segs {
			if strings.HasPrefix(seg, ":") {
				segs[i] = "bad%00value"
			}
		}
		path := strings.Join(segs, "/") + "?colour=red"
		for scope, tok := range tokens {
			t.Run(scope+" "+r.method+" "+r.path, func(t *testing.T) {
				got := s.do(t, tok, r.method, path, `{"colour":"red"}`)
				if got.status != http.StatusForbidden || got.errorCode() != backend.CodeForbidden {
					t.Errorf("status %d %s, want 403 FORBIDDEN: %s", got.status, got.errorCode(), got.body)
				}
			})
		}
	}
	if admin < 10 {
		t.Errorf("only %d admin-only routes in the table", admin)
	}
	t.Run("agent posting a bad credential body", func(t *testing.T) {
		got := s.do(t, tokens["agent"], http.MethodPost, "/api/v1/credentials", map[string]any{"lable": "X", "value": "v"})
		if got.status != http.StatusForbidden {
			t.Errorf("status %d, want 403: %s", got.status, got.body)
		}
	})
}

// TestOpenAPIIsPublic checks that the document is served without a token (but not
// to a foreign web page), and that it says where the server is and what every request body field
// means. It names no license: Agent Deck has no license file yet, and a License Object must name
// one by SPDX identifier or URL (swagger-parser refused {"name":"UNLICENSED"}).
func TestOpenAPIIsPublic(t *testing.T) {
	e := newEngine(nil, Options{})
	rec := httptest.NewRecorder()
	e.ServeHTTP(rec, httptest.NewRequest(http.MethodGet, "/api/v1/openapi.json", nil))
	if rec.Code != http.StatusOK {
		t.Errorf("GET /api/v1/openapi.json without a token: %d %s", rec.Code, rec.Body)
	}
	rec = httptest.NewRecorder()
	req := httptest.NewRequest(http.MethodGet, "/api/v1/openapi.json", nil)
	req.Header.Set("Origin", "https://evil.example")
	e.ServeHTTP(rec, req)
	if rec.Code != http.StatusForbidden {
		t.Errorf("GET /api/v1/openapi.json from a foreign origin: %d, want 403", rec.Code)
	}

	doc, _ := docOf(t, Options{})
	if servers, _ := doc["servers"].([]any); len(servers) == 0 {
		t.Error("the document has no servers entry")
	}
	if lic, ok := doc["info"].(map[string]any)["license"]; ok {
		t.Errorf("the document names a license, %v, though the repository has none", lic)
	}
	schemas := doc["components"].(map[string]any)["schemas"].(map[string]any)
	var missing []string
	for p, ops := range doc["paths"].(map[string]any) {
		for m, op := range ops.(map[string]any) {
			body, _ := op.(map[string]any)["requestBody"].(map[string]any)
			if body == nil {
				continue
			}
			schema := body["content"].(map[string]any)["application/json"].(map[string]any)["schema"].(map[string]any)
			if ref, ok := schema["$ref"].(string); ok {
				schema = schemas[strings.TrimPrefix(ref, "#/components/schemas/")].(map[string]any)
			}
			props, _ := schema["properties"].(map[string]any)
			for name, prop := range props {
				if d, _ := prop.(map[string]any)["description"].(string); strings.TrimSpace(d) == "" {
					missing = append(missing, strings.ToUpper(m)+" "+p+" "+name)
				}
			}
		}
	}
	slices.Sort(missing)
	if len(missing) > 0 {
		t.Errorf("request body fields without a description:\n%s", strings.Join(missing, "\n"))
	}
}
