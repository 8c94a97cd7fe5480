package tests

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/agent-deck/agent-deck/cli"
)

// TestPapercutsStatusline holds issue 15 item 1: with the server up, the status line never says
// offline — input that is not the expected JSON falls back to the working directory, and a
// refused token gets its own line.
func TestPapercutsStatusline(t *testing.T) {
	e := startCLIEnv(t)
	tests := []struct {
		name  string
		args  []string
		stdin string
		want  string // "" = the deck line (neither offline nor token refused)
	}{
		{"garbage", nil, "garbage", ""},
		{"array", nil, "[1,2]", ""},
		{"cwd not a string", nil, `{"cwd":5}`, ""},
		{"workspace not an object", nil, `{"workspace":"x"}`, ""},
		{"bad token", []string{"--token", "ad_not_a_real_token"}, `{"cwd":"/"}`, cli.TokenRefusedLine},
		{"bad token, own server", []string{"--server", e.srv.URL(), "--token", "nope"}, "", cli.TokenRefusedLine},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			r := e.run(tc.stdin, append(tc.args, "statusline")...).wantCode(t, 0)
			if strings.Count(r.stdout, "\n") != 1 || !strings.HasSuffix(r.stdout, "\n") {
				t.Fatalf("output is not exactly one line: %q", r.stdout)
			}
			line := strings.TrimSuffix(r.stdout, "\n")
			switch {
			case tc.want != "" && line != tc.want:
				t.Errorf("line %q, want %q", line, tc.want)
			case tc.want == "" && (line == cli.OfflineLine || line == cli.TokenRefusedLine):
				t.Errorf("line %q while the server is up and the token good", line)
			}
		})
	}
}

// TestPapercutsServerToken holds issue 15 item 2: --server without --token sends the local admin
// token to this machine's own server, never to another one, and a refusal there names what to set.
func TestPapercutsServerToken(t *testing.T) {
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

// TestPapercutsStoppedServer holds issue 15 item 12: after the server stops, the CLI names the
// address it ran at, not the default one, and says how to start it.
func TestPapercutsStoppedServer(t *testing.T) {
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
