package tests

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/agent-deck/agent-deck/backend"
	"github.com/agent-deck/agent-deck/backend/core"
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
	if _, err := s.svc.CreateDeck(s.adminCtx(), core.DeckInput{Name: "dev"}); err != nil {
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

// TestPapercutsReadableLists holds the CLI half of issue 15 item 9: tables show names, not
// UUIDs; a long service target is clipped in the table, whole in JSON; an import report of many
// cards is a summary unless --verbose (or --json) asks for every name.
func TestPapercutsReadableLists(t *testing.T) {
	e := startCLIEnv(t)
	e.seed()
	longArgs := []string{"--root", "/srv/" + strings.Repeat("very-long-directory-name/", 4), "--read-only"}
	long, err := e.svc.CreateService(e.ctx, core.ServiceInput{Name: "long", Type: backend.ServiceLocal,
		LocalCommand: "server-files", LocalArgs: longArgs})
	if err != nil {
		t.Fatal(err)
	}
	const many = 30
	for i := range many {
		if _, err := e.svc.CreateService(e.ctx, core.ServiceInput{Name: fmt.Sprintf("bulk-%02d", i),
			Type: backend.ServiceRemote, URL: fmt.Sprintf("https://bulk%02d.example.test/mcp", i)}); err != nil {
			t.Fatal(err)
		}
	}
	t.Run("playbook list depends on", func(t *testing.T) {
		out := e.run("", "playbook", "list").wantCode(t, 0).stdout
		if cliUUIDRE.MatchString(out) || !strings.Contains(out, "github-mcp") {
			t.Errorf("DEPENDS ON should name services, not show ids:\n%s", out)
		}
	})
	t.Run("service list target", func(t *testing.T) {
		full := "server-files " + strings.Join(longArgs, " ")
		for _, line := range strings.Split(e.run("", "service", "list").wantCode(t, 0).stdout, "\n") {
			if strings.Contains(line, long.ID) && (strings.Contains(line, full) || !strings.Contains(line, "…")) {
				t.Errorf("the target column is not clipped: %q", line)
			}
		}
		if js := e.run("", "service", "list", "--json").wantCode(t, 0).stdout; !strings.Contains(js, longArgs[1]) {
			t.Errorf("--json lost the whole target")
		}
	})
	bundle := filepath.Join(t.TempDir(), "b.json")
	e.run("", "export", "-o", bundle).wantCode(t, 0)
	t.Run("import report summarised", func(t *testing.T) {
		out := e.run("", "import", "--dry-run", bundle).wantCode(t, 0).stdout
		for _, line := range strings.Split(out, "\n") {
			if strings.Contains(line, "bulk-") && strings.Count(line, "bulk-") > 10 {
				t.Errorf("a report line lists %d names: %q", strings.Count(line, "bulk-"), line)
			}
		}
		if !strings.Contains(out, fmt.Sprint(many+3)) || !strings.Contains(out, "--verbose") {
			t.Errorf("the summary should give the count and say how to see every name:\n%s", out)
		}
	})
	t.Run("import report verbose", func(t *testing.T) {
		out := e.run("", "import", "--dry-run", "--verbose", bundle).wantCode(t, 0).stdout
		for i := range many {
			if name := fmt.Sprintf("bulk-%02d", i); !strings.Contains(out, name) {
				t.Errorf("--verbose report misses %s", name)
			}
		}
	})
}
