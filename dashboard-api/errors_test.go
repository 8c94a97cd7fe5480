package dashboardapi

import (
	"bytes"
	"encoding/json"
	"errors"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/gin-gonic/gin"

	"github.com/agent-deck/agent-deck/backend"
	"github.com/agent-deck/agent-deck/tests/resttest"
)

// leakyCause stands for driver or Go error text that must stay in the log.
const leakyCause = `pq: relation "secret_table" does not exist at character 17`

func sampleError(code backend.Code) error {
	switch code {
	case backend.CodeInternal:
		return backend.Internal("loading a deck", errors.New(leakyCause))
	case backend.CodeUnavailable:
		return &backend.Error{Code: code, Message: "the database is unavailable",
			Hint: "retry shortly; if it persists, check that PostgreSQL is running",
			Err:  errors.New("dial unix /home/me/.agent-deck/postgres: connection refused")}
	}
	return backend.Errorf(code, "sample %s failure", code).
		WithHint("what to do about "+string(code)).
		WithDetail("field", "name")
}

// errorEngine serves the real middleware stack plus routes that fail on purpose.
func errorEngine(t *testing.T, logs *bytes.Buffer) *gin.Engine {
	t.Helper()
	a := newAPI(nil, Options{Logger: slog.New(slog.NewJSONHandler(logs, nil))})
	e := a.engine()
	fail := func(c *gin.Context) (struct{}, error) {
		if c.Param("code") == "unclassified" {
			return struct{}{}, errors.New(leakyCause)
		}
		if c.Param("code") == "panic" {
			panic(leakyCause)
		}
		return struct{}{}, sampleError(backend.Code(c.Param("code")))
	}
	e.Handle(http.MethodGet, "/test/fail/:code", a.adapt(noBody(http.MethodGet, "/test/fail/:code", "", fail)))
	return e
}

func TestErrorBodiesGolden(t *testing.T) {
	var logs bytes.Buffer
	e := errorEngine(t, &logs)
	cases := append(codeNames(), "unclassified", "panic")
	got := map[string]resttest.ErrorBody{}
	for _, name := range cases {
		req := httptest.NewRequest(http.MethodGet, "/test/fail/"+name, nil)
		req.Header.Set(RequestIDHeader, "req-"+strings.ToLower(name))
		rec := httptest.NewRecorder()
		e.ServeHTTP(rec, req)
		if ct := rec.Header().Get("Content-Type"); ct != problemContentType {
			t.Errorf("%s: Content-Type %q", name, ct)
		}
		if rec.Header().Get(RequestIDHeader) != "req-"+strings.ToLower(name) {
			t.Errorf("%s: request id not echoed", name)
		}
		if strings.Contains(rec.Body.String(), "secret_table") || strings.Contains(rec.Body.String(), "dial unix") {
			t.Errorf("%s: internal cause leaked into the body: %s", name, rec.Body.String())
		}
		got[name] = resttest.ErrorBody{Status: rec.Code, Body: json.RawMessage(rec.Body.Bytes())}
	}
	checkGolden(t, "error_bodies.golden.json", got)

	for _, rid := range []string{"req-internal", "req-unclassified", "req-panic"} {
		if !strings.Contains(logs.String(), rid) || !strings.Contains(logs.String(), "secret_table") {
			t.Errorf("log lacks the cause of %s with its request id:\n%s", rid, logs.String())
		}
	}
}

func TestUnknownRouteAndMethod(t *testing.T) {
	e := newEngine(nil, Options{})
	cases := []struct {
		name, method, path string
		status             int
		code               backend.Code
	}{
		{"unknown path", http.MethodGet, "/api/v1/nope", http.StatusNotFound, backend.CodeNotFound},
		{"trailing slash", http.MethodGet, "/api/v1/decks/", http.StatusNotFound, backend.CodeNotFound},
		{"wrong method", http.MethodPut, "/api/v1/decks", http.StatusMethodNotAllowed, backend.CodeInvalidArgument},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			rec := httptest.NewRecorder()
			e.ServeHTTP(rec, httptest.NewRequest(tc.method, tc.path, nil))
			if rec.Code != tc.status {
				t.Fatalf("status %d, want %d: %s", rec.Code, tc.status, rec.Body)
			}
			var body Problem
			if err := json.Unmarshal(rec.Body.Bytes(), &body); err != nil || body.Code != tc.code || body.Status != tc.status {
				t.Fatalf("body %s (err %v), want code %s", rec.Body, err, tc.code)
			}
		})
	}
}

func TestMissingTokenIs401WithoutTouchingTheService(t *testing.T) {
	e := newEngine(nil, Options{})
	for _, h := range []string{"", "Basic abc", "Bearer", "Bearer  ", "Bearer a b"} {
		req := httptest.NewRequest(http.MethodGet, "/api/v1/decks", nil)
		if h != "" {
			req.Header.Set("Authorization", h)
		}
		rec := httptest.NewRecorder()
		e.ServeHTTP(rec, req)
		if rec.Code != http.StatusUnauthorized || !strings.Contains(rec.Body.String(), `"UNAUTHENTICATED"`) {
			t.Errorf("Authorization %q: %d %s", h, rec.Code, rec.Body)
		}
		if rec.Header().Get("WWW-Authenticate") == "" {
			t.Errorf("Authorization %q: no WWW-Authenticate header", h)
		}
	}
}

func TestRequestLogLine(t *testing.T) {
	var logs bytes.Buffer
	e := newEngine(nil, Options{Logger: slog.New(slog.NewJSONHandler(&logs, nil))})
	req := httptest.NewRequest(http.MethodGet, "/api/v1/display?workspace=/home/me/secret-project", nil)
	req.Header.Set("Authorization", "Basic c2VjcmV0LXRva2Vu")
	req.Header.Set(RequestIDHeader, "req-log")
	e.ServeHTTP(httptest.NewRecorder(), req)

	var line map[string]any
	if err := json.Unmarshal(logs.Bytes(), &line); err != nil {
		t.Fatalf("one JSON log line expected: %v\n%s", err, logs.String())
	}
	want := map[string]any{"msg": "http request", "method": "GET", "path": "/api/v1/display",
		"route": "/api/v1/display", "status": float64(401), "request_id": "req-log"}
	for k, v := range want {
		if line[k] != v {
			t.Errorf("log %s = %v, want %v", k, line[k], v)
		}
	}
	if _, ok := line["duration_ms"]; !ok {
		t.Errorf("log line lacks duration_ms: %s", logs.String())
	}
	for _, secret := range []string{"secret-project", "c2VjcmV0LXRva2Vu", "workspace="} {
		if strings.Contains(logs.String(), secret) {
			t.Errorf("log holds %q: %s", secret, logs.String())
		}
	}
}

// TestEveryCodeIsAProblemType: each code has a problem type with a title and a description, and
// a problem's type resolves to it, without a token.
func TestEveryCodeIsAProblemType(t *testing.T) {
	e := newEngine(nil, Options{})
	for _, code := range backend.AllCodes {
		pt, ok := problemTypes[code]
		if !ok || pt.title == "" || pt.description == "" {
			t.Errorf("%s: no problem type row", code)
			continue
		}
		rec := httptest.NewRecorder()
		e.ServeHTTP(rec, httptest.NewRequest(http.MethodGet, problemsPath+string(code), nil))
		var got ProblemType
		if err := json.Unmarshal(rec.Body.Bytes(), &got); rec.Code != http.StatusOK || err != nil || got.Code != code {
			t.Errorf("GET %s%s: %d %s", problemsPath, code, rec.Code, rec.Body)
		}
	}
	if len(problemTypes) != len(backend.AllCodes) {
		t.Errorf("problemTypes has %d rows for %d codes", len(problemTypes), len(backend.AllCodes))
	}
}
