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

	"github.com/agent-deck/agent-deck/backend"
)

func TestLocalDiscoveryAndErrorBody(t *testing.T) {
	var gotAuth string
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		gotAuth = r.Header.Get("Authorization")
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusConflict)
		_, _ = w.Write([]byte(`{"error":{"code":"PLAYBOOK_DEPENDENCY","message":"cannot delete","hint":"h","details":{"playbooks":[{"id":"pb_a","title":"A"}]}}}`))
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
	err = c.DeleteService(context.Background(), "x")
	var be *backend.Error
	if !errors.As(err, &be) || be.Code != backend.CodePlaybookDependency || be.Hint != "h" {
		t.Fatalf("err = %#v", err)
	}
	want := []any{map[string]any{"id": "pb_a", "title": "A"}}
	if diff := cmp.Diff(want, be.Details["playbooks"]); diff != "" {
		t.Errorf("details (-want +got):\n%s", diff)
	}
	if gotAuth != "Bearer secret-admin" {
		t.Errorf("Authorization = %q", gotAuth)
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
