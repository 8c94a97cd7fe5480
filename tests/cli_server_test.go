package tests

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"
)

// TestCLIServerFlagToken holds issue 15 item 2: --server without --token sends the local admin
// token to this machine's own server, never to another one, and a refusal there names what to set.
func TestCLIServerFlagToken(t *testing.T) {
	e := startCLIEnv(t)
	t.Run("own server", func(t *testing.T) {
		e.run("", "--server", e.srv.URL()+"/", "deck", "list").wantCode(t, 0)
	})
	t.Run("foreign server", func(t *testing.T) {
		var mu sync.Mutex
		var auths []string
		foreign := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			mu.Lock()
			auths = append(auths, r.Header.Get("Authorization"))
			mu.Unlock()
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(http.StatusUnauthorized)
			_, _ = w.Write([]byte(`{"error":{"code":"UNAUTHENTICATED","message":"a bearer token is required"}}`))
		}))
		defer foreign.Close()
		r := e.run("", "--server", foreign.URL, "deck", "list")
		if r.code == 0 {
			t.Fatalf("deck list against a refusing server exited 0")
		}
		mu.Lock()
		defer mu.Unlock()
		for _, a := range auths {
			if a != "" {
				t.Errorf("a foreign server got Authorization %q", a)
			}
		}
		if !strings.Contains(r.stderr, "--token") || !strings.Contains(r.stderr, "AGENT_DECK_TOKEN") {
			t.Errorf("the refusal does not say which flag or variable to set:\n%s", r.stderr)
		}
	})
}

// TestCLIStoppedServer holds issue 15 item 12: after the server stops, the CLI names the
// address it ran at, not the default one, and says how to start it.
func TestCLIStoppedServer(t *testing.T) {
	e := startCLIEnv(t)
	url := e.srv.URL()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if err := e.srv.Close(ctx); err != nil {
		t.Fatal(err)
	}
	r := e.run("", "deck", "list").wantCode(t, 2)
	want := "the server that ran at " + url + " is not running; start it with `make run` or `agent-deck serve`"
	if !strings.Contains(r.stderr, want) {
		t.Errorf("stderr %q, want it to contain %q", r.stderr, want)
	}
}
