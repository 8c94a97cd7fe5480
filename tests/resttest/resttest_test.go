package resttest

import (
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/agent-deck/agent-deck/backend"
)

// seen is what the echo server received.
type seen struct {
	Method, Path, Auth, ContentType, Deck, Body string
}

func echoServer(t *testing.T) *httptest.Server {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		_ = json.NewEncoder(w).Encode(seen{Method: r.Method, Path: r.URL.RequestURI(), Auth: r.Header.Get("Authorization"),
			ContentType: r.Header.Get("Content-Type"), Deck: r.Header.Get(backend.HeaderDeck), Body: string(b)})
	}))
	t.Cleanup(srv.Close)
	return srv
}

func TestDo(t *testing.T) {
	srv := echoServer(t)
	c := &Client{URL: srv.URL, Header: http.Header{backend.HeaderDeck: {"ops"}}}
	cases := []struct {
		name    string
		token   string
		body    any
		headers []string
		want    seen
	}{
		{"no body, no token", "", nil, nil, seen{Method: "POST", Path: "/p?q=1", Deck: "ops"}},
		{"a value as JSON", "tok", map[string]int{"a": 1}, nil,
			seen{Method: "POST", Path: "/p?q=1", Auth: "Bearer tok", ContentType: "application/json", Deck: "ops", Body: `{"a":1}`}},
		{"a string as it is", "tok", `{"raw"`, nil,
			seen{Method: "POST", Path: "/p?q=1", Auth: "Bearer tok", ContentType: "application/json", Deck: "ops", Body: `{"raw"`}},
		{"bytes as they are, headers last", "", []byte("a=1"), []string{"Content-Type", "application/x-www-form-urlencoded", backend.HeaderDeck, "dev"},
			seen{Method: "POST", Path: "/p?q=1", ContentType: "application/x-www-form-urlencoded", Deck: "dev", Body: "a=1"}},
		{"an empty string is no body", "", "", nil, seen{Method: "POST", Path: "/p?q=1", Deck: "ops"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			a := c.Do(t, tc.token, http.MethodPost, "/p?q=1", tc.body, tc.headers...)
			var got seen
			a.Decode(t, &got)
			if a.Status != http.StatusOK || a.Header.Get("Content-Type") == "" {
				t.Errorf("status %d, header %v", a.Status, a.Header)
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("the server saw (-want +got):\n%s", diff)
			}
		})
	}
	if n := len(c.Bodies()); n != len(cases) {
		t.Errorf("%d bodies kept, want %d", n, len(cases))
	}
}

func TestMustSendsTheClientsToken(t *testing.T) {
	c := New(echoServer(t).URL, "admin")
	var got seen
	a := c.Must(t, http.StatusOK, http.MethodGet, "/x", nil, &got)
	if got.Auth != "Bearer admin" || got.Method != "GET" || a.Status != http.StatusOK {
		t.Errorf("the server saw %+v", got)
	}
}

func TestErr(t *testing.T) {
	a := Answer{Status: 400, Body: []byte(`{"type":"/api/v1/problems/INVALID_ARGUMENT","title":"Invalid argument","status":400,` +
		`"detail":"name is empty","instance":"/api/v1/decks","code":"INVALID_ARGUMENT","hint":"name accepts a name",` +
		`"details":{"field":"name"},"error":{"code":"INVALID_ARGUMENT","message":"name is empty","details":{"field":"name","hint":"name accepts a name"}}}`)}
	code, message, details := a.Err()
	if code != backend.CodeInvalidArgument || message != "name is empty" || details["field"] != "name" {
		t.Errorf("Err() = %q, %q, %v", code, message, details)
	}
	if p := a.Problem(); p.Hint != "name accepts a name" || p.Status != 400 || p.Instance != "/api/v1/decks" {
		t.Errorf("Problem() = %+v", p)
	}
	if code, _, _ := (Answer{Body: []byte("not json")}).Err(); code != "" {
		t.Errorf("the code of a body that is no error = %q", code)
	}
}

func TestServerErrorBodies(t *testing.T) {
	bodies := ServerErrorBodies(t)
	if len(bodies) == 0 {
		t.Fatal("no golden error bodies")
	}
	for name, b := range bodies {
		p := (Answer{Status: b.Status, Body: b.Body}).Problem()
		if b.Status < 400 || p.Code == "" || p.Detail == "" || p.Status != b.Status || p.Hint == "" {
			t.Errorf("%s: status %d, problem %+v", name, b.Status, p)
		}
	}
}
