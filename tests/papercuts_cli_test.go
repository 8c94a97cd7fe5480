package tests

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/agent-deck/agent-deck/backend"
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

// TestPapercutsMCPStdioOrder holds issue 15 item 13: requests piped to mcp-stdio without waiting
// keep their order around bind_workspace, so the calls right after it see the binding. Each round
// is a fresh session; enough rounds catch the reordering the bridge used to allow.
func TestPapercutsMCPStdioOrder(t *testing.T) {
	s := startMCPStack(t, mcpStackOptions{})
	if _, err := s.svc.CreateDeck(s.adminCtx(), backend.DeckInput{Name: "dev"}); err != nil {
		t.Fatal(err)
	}
	opts := cli.StdioBridgeOptions{URL: s.URL + "/mcp", Token: s.token(backend.ScopeAgent)}
	const rounds, after = 25, 4
	for round := range rounds {
		lines := []string{
			`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"pipe","version":"1"}}}`,
			`{"jsonrpc":"2.0","method":"notifications/initialized"}`,
			fmt.Sprintf(`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"bind_workspace","arguments":{"workspaceRoot":"/w/%d","deckId":"dev"}}}`, round),
		}
		for i := range after {
			lines = append(lines, fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":"get_bound_deck","arguments":{}}}`, 10+i))
		}
		var out, errb syncBuffer
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		err := cli.RunMCPStdio(ctx, opts, strings.NewReader(strings.Join(lines, "\n")+"\n"), &out, &errb)
		cancel()
		if err != nil {
			t.Fatalf("round %d: bridge: %v (stderr %s)", round, err, errb.String())
		}
		answers := map[int]string{}
		sc := bufio.NewScanner(strings.NewReader(out.String()))
		sc.Buffer(nil, 1<<20)
		for sc.Scan() {
			var m struct {
				ID     int `json:"id"`
				Result struct {
					IsError bool `json:"isError"`
				} `json:"result"`
				Error json.RawMessage `json:"error"`
			}
			if json.Unmarshal(sc.Bytes(), &m) == nil && m.ID >= 10 && (m.Result.IsError || m.Error != nil) {
				answers[m.ID] = sc.Text()
			} else if m.ID >= 10 {
				answers[m.ID] = ""
			}
		}
		for i := range after {
			text, ok := answers[10+i]
			if !ok {
				t.Fatalf("round %d: no answer to request %d; stdout:\n%s", round, 10+i, out.String())
			}
			if text != "" {
				t.Fatalf("round %d: get_bound_deck piped after bind_workspace failed: %s", round, text)
			}
		}
	}
}
