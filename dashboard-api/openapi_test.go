package dashboardapi

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// docOf renders the document the way GET /api/v1/openapi.json serves it.
func docOf(t *testing.T, opts Options) (map[string]any, []string) {
	t.Helper()
	a := newAPI(nil, opts)
	e := a.engine()
	var doc map[string]any
	if err := json.Unmarshal(a.openapi, &doc); err != nil {
		t.Fatalf("the OpenAPI document is not JSON: %v", err)
	}
	var routed []string
	for _, r := range e.Routes() {
		routed = append(routed, r.Method+" "+openAPIPath(r.Path))
	}
	slices.Sort(routed)
	return doc, routed
}

func documented(doc map[string]any) []string {
	var out []string
	for p, ops := range doc["paths"].(map[string]any) {
		for m := range ops.(map[string]any) {
			out = append(out, strings.ToUpper(m)+" "+p)
		}
	}
	slices.Sort(out)
	return out
}

func TestOpenAPIDocumentsExactlyTheRoutes(t *testing.T) {
	cases := []struct {
		name string
		opts Options
	}{
		{"default", Options{}},
		{"with metrics and info", Options{Metrics: http.NotFoundHandler(), Info: func(context.Context) (map[string]any, error) {
			return map[string]any{"addr": "127.0.0.1:1110"}, nil
		}}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			doc, routed := docOf(t, tc.opts)
			if diff := cmp.Diff(routed, documented(doc)); diff != "" {
				t.Errorf("routed (-) vs documented (+):\n%s", diff)
			}
			if len(routed) < 45 {
				t.Errorf("only %d routes registered", len(routed))
			}
		})
	}
}

func TestOpenAPIGolden(t *testing.T) {
	doc, _ := docOf(t, Options{})
	checkGolden(t, "openapi.golden.json", doc)
}

func TestOpenAPIInvariants(t *testing.T) {
	doc, _ := docOf(t, Options{Metrics: http.NotFoundHandler()})
	schemas := doc["components"].(map[string]any)["schemas"].(map[string]any)
	ops := map[string]string{}
	for p, methods := range doc["paths"].(map[string]any) {
		for m, o := range methods.(map[string]any) {
			op := o.(map[string]any)
			id, _ := op["operationId"].(string)
			where := strings.ToUpper(m) + " " + p
			if id == "" || strings.Contains(id, "func") {
				t.Errorf("%s: operationId %q", where, id)
			}
			if prev, dup := ops[id]; dup {
				t.Errorf("operationId %q used by %s and %s", id, prev, where)
			}
			ops[id] = where
			if s, _ := op["summary"].(string); s == "" {
				t.Errorf("%s: no summary", where)
			}
			if _, ok := op["responses"].(map[string]any)["default"]; !ok {
				t.Errorf("%s: no error response", where)
			}
			// A count is an integer with bounds, so generated clients send numbers (limit: 2).
			params, _ := op["parameters"].([]any)
			for _, p := range params {
				p := p.(map[string]any)
				if name := p["name"]; name != "limit" && name != "budget" {
					continue
				}
				s := p["schema"].(map[string]any)
				if s["type"] != "integer" || s["minimum"] == nil || s["maximum"] == nil {
					t.Errorf("%s: query parameter %s has schema %v, want an integer with minimum and maximum", where, p["name"], s)
				}
			}
		}
	}
	// Every $ref resolves, and every key in the document's schemas is snake_case.
	raw, _ := json.Marshal(doc)
	for _, part := range strings.Split(string(raw), `"$ref":"#/components/schemas/`)[1:] {
		name, _, _ := strings.Cut(part, `"`)
		if _, ok := schemas[name]; !ok {
			t.Errorf("$ref to missing schema %s", name)
		}
	}
	for name, s := range schemas {
		for key := range s.(map[string]any)["properties"].(map[string]any) {
			if key != strings.ToLower(key) || strings.Contains(key, "-") {
				t.Errorf("schema %s: property %q is not snake_case", name, key)
			}
		}
	}
}

// TestOpenAPIEveryOperationIsDescribed: each route has a description beyond its summary, and
// routeDescriptions has no entry that no route uses (with every optional route switched on).
func TestOpenAPIEveryOperationIsDescribed(t *testing.T) {
	doc, _ := docOf(t, Options{Metrics: http.NotFoundHandler(), Pprof: http.NotFoundHandler(),
		Info: func(context.Context) (map[string]any, error) { return nil, nil }})
	used := map[string]bool{}
	for p, methods := range doc["paths"].(map[string]any) {
		for m, o := range methods.(map[string]any) {
			op := o.(map[string]any)
			id, _ := op["operationId"].(string)
			used[id] = true
			d, _ := op["description"].(string)
			if len(strings.Fields(d)) < 8 || d == op["summary"] {
				t.Errorf("%s %s (%s): description %q; say what the summary has no room for in routeDescriptions",
					strings.ToUpper(m), p, id, d)
			}
		}
	}
	for id := range routeDescriptions {
		if !used[id] {
			t.Errorf("routeDescriptions has %q, which no route uses", id)
		}
	}
}

func TestOpenAPIIsServedWithoutAToken(t *testing.T) {
	e := newEngine(nil, Options{})
	rec := httptest.NewRecorder()
	e.ServeHTTP(rec, httptest.NewRequest(http.MethodGet, "/api/v1/openapi.json", nil))
	if rec.Code != http.StatusOK {
		t.Errorf("GET /api/v1/openapi.json without a token: %d", rec.Code)
	}
}
