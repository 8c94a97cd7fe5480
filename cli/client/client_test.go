package client

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/agent-deck/agent-deck/backend"
	"github.com/agent-deck/agent-deck/tests/resttest"
)

func TestLocalDiscovery(t *testing.T) {
	var gotAuth string
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		gotAuth = r.Header.Get("Authorization")
		w.WriteHeader(http.StatusNoContent)
	}))
	defer srv.Close()
	home := t.TempDir()
	write := func(name, body string) {
		if err := os.WriteFile(filepath.Join(home, name), []byte(body), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	write("server.json", `{"url":"`+srv.URL+`","pid":1}`)
	write("admin.token", "secret-admin\n")
	c, err := New(Options{Home: home})
	if err != nil {
		t.Fatal(err)
	}
	if err := c.DeleteService(context.Background(), "x"); err != nil {
		t.Fatal(err)
	}
	if gotAuth != "Bearer secret-admin" {
		t.Errorf("Authorization = %q", gotAuth)
	}
}

// TestErrorBodiesFromTheServer reads every error body the server sends (its golden file) back
// into the error the CLI renders: code, detail (the message), hint, details and the HTTP status,
// all read from the problem document's own members.
func TestErrorBodiesFromTheServer(t *testing.T) {
	for name, g := range resttest.ServerErrorBodies(t) {
		t.Run(name, func(t *testing.T) {
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				w.Header().Set("Content-Type", "application/problem+json")
				w.WriteHeader(g.Status)
				_, _ = w.Write(g.Body)
			}))
			defer srv.Close()
			p := resttest.Answer{Status: g.Status, Body: g.Body}.Problem()
			c, err := New(Options{Server: srv.URL, Token: "t"})
			if err != nil {
				t.Fatal(err)
			}
			err = c.DeleteService(context.Background(), "x")
			var se *StatusError
			if !errors.As(err, &se) || se.Status != g.Status {
				t.Fatalf("err = %#v, want a StatusError with status %d", err, g.Status)
			}
			want := &backend.Error{Code: p.Code, Message: p.Detail, Hint: p.Hint, Details: p.Details}
			if diff := cmp.Diff(want, se.Err, cmpopts.EquateEmpty(), cmpopts.IgnoreUnexported(backend.Error{})); diff != "" {
				t.Errorf("decoded error (-want +got):\n%s", diff)
			}
			if p.Hint == "" {
				t.Errorf("the golden body of %s carries no hint to check", name)
			}
		})
	}
}

// TestErrorBodyOfAnOlderServer: a server from before problem documents sent only the error
// object, with the hint in its details; the client still reads it.
func TestErrorBodyOfAnOlderServer(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusNotFound)
		_, _ = w.Write([]byte(`{"error":{"code":"NOT_FOUND","message":"no service \"x\"","details":{"hint":"list them","near":"y"}}}`))
	}))
	defer srv.Close()
	c, err := New(Options{Server: srv.URL, Token: "t"})
	if err != nil {
		t.Fatal(err)
	}
	var se *StatusError
	if err := c.DeleteService(context.Background(), "x"); !errors.As(err, &se) {
		t.Fatalf("err = %#v, want a StatusError", err)
	}
	want := &backend.Error{Code: backend.CodeNotFound, Message: `no service "x"`, Hint: "list them", Details: map[string]any{"near": "y"}}
	if diff := cmp.Diff(want, se.Err, cmpopts.IgnoreUnexported(backend.Error{})); diff != "" {
		t.Errorf("decoded error (-want +got):\n%s", diff)
	}
}

func TestUnreachable(t *testing.T) {
	c, err := New(Options{Server: "http://127.0.0.1:1", Token: "t"})
	if err != nil {
		t.Fatal(err)
	}
	_, err = c.ListDecks(context.Background())
	var ue *UnreachableError
	if !errors.As(err, &ue) || ue.Error() != "no server at http://127.0.0.1:1 — start it with `agent-deck serve`" {
		t.Fatalf("err = %v", err)
	}
	if _, err := New(Options{Server: "ftp://x"}); err == nil {
		t.Error("a non-http server URL was accepted")
	}
	if c, _ := New(Options{Home: t.TempDir()}); c.BaseURL != DefaultURL {
		t.Errorf("default URL = %s", c.BaseURL)
	}
}
