package tests

import (
	"bytes"
	"context"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/agent-deck/agent-deck/backend"
	"github.com/agent-deck/agent-deck/backend/core"
	"github.com/agent-deck/agent-deck/cli"
)

// statuslineHang tells a status line that waits on something (an open stdin, a server that does
// not answer) from one that answers: far above the real cost, so machine load never fails it.
// How fast it answers is BenchmarkStatuslineServerDown's job (target 50 ms).
const statuslineHang = 10 * time.Second

func TestCLIStatusline(t *testing.T) {
	e := startCLIEnv(t)
	ws := t.TempDir()
	down := t.TempDir()
	tests := []struct {
		name    string
		home    string
		args    []string
		stdin   func() io.Reader
		offline bool
	}{
		{"server up", e.home, nil, func() io.Reader {
			return strings.NewReader(`{"session_id":"x","workspace":{"current_dir":"` + ws + `"},"cwd":"/"}`)
		}, false},
		{"server up, cwd only", e.home, nil, func() io.Reader { return strings.NewReader(`{"cwd":"` + ws + `"}`) }, false},
		{"server down", down, []string{"--server", "http://127.0.0.1:1"}, func() io.Reader {
			return strings.NewReader(`{"workspace":{"current_dir":"` + ws + `"}}`)
		}, true},
		{"stdin left open and silent", e.home, nil, func() io.Reader { r, _ := io.Pipe(); return r }, false},
		{"stdin left open after the JSON", e.home, nil, func() io.Reader {
			r, w := io.Pipe()
			go func() { _, _ = w.Write([]byte(`{"cwd":"` + ws + `"}`)) }()
			return r
		}, false},
		{"malformed JSON", e.home, nil, func() io.Reader { return strings.NewReader(`{"workspace":`) }, false},
		{"not JSON at all", e.home, nil, func() io.Reader { return strings.NewReader("hello") }, false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			start := time.Now()
			r := runCLI(tc.home, tc.stdin(), append(tc.args, "statusline")...)
			elapsed := time.Since(start)
			if r.code != 0 {
				t.Errorf("exit code %d, want 0 (stderr %q)", r.code, r.stderr)
			}
			if elapsed > statuslineHang {
				t.Errorf("took %v: it waited on something instead of answering", elapsed)
			}
			if strings.Count(r.stdout, "\n") != 1 || !strings.HasSuffix(r.stdout, "\n") || r.stdout == "\n" {
				t.Errorf("output is not exactly one line: %q", r.stdout)
			}
			if offline := r.stdout == cli.OfflineLine+"\n"; offline != tc.offline {
				t.Errorf("line %q; offline %v, want %v", r.stdout, offline, tc.offline)
			}
		})
	}
}

// TestCLIStatuslineBinary runs the real binary the way Claude Code does: server down, stdin
// never closed.
func TestCLIStatuslineBinary(t *testing.T) {
	bin := agentDeckBinary(t)
	cmd := exec.Command(bin, "--home", t.TempDir(), "--server", "http://127.0.0.1:1", "statusline")
	var out bytes.Buffer
	cmd.Stdout = &out
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	defer stdin.Close()
	start := time.Now()
	if err := cmd.Run(); err != nil {
		t.Fatalf("statusline: %v", err)
	}
	if elapsed := time.Since(start); elapsed > statuslineHang {
		t.Errorf("took %v: it waited on the open stdin instead of answering", elapsed)
	}
	if out.String() != cli.OfflineLine+"\n" {
		t.Errorf("output %q", out.String())
	}
}

// BenchmarkStatuslineServerDown measures the status line with nothing listening, as the real
// binary (what the editor runs; target 50 ms) and in process (a component figure).
func BenchmarkStatuslineServerDown(b *testing.B) {
	home := b.TempDir()
	input := `{"workspace":{"current_dir":"/tmp"}}`
	b.Run("component-in-process", func(b *testing.B) {
		for b.Loop() {
			runCLI(home, strings.NewReader(input), "--server", "http://127.0.0.1:1", "statusline")
		}
	})
	b.Run("binary", func(b *testing.B) {
		bin := agentDeckBinary(b)
		start := time.Now()
		for b.Loop() {
			cmd := exec.Command(bin, "--home", home, "--server", "http://127.0.0.1:1", "statusline")
			cmd.Stdin = strings.NewReader(input)
			if err := cmd.Run(); err != nil {
				b.Fatal(err)
			}
		}
		b.ReportMetric(float64(time.Since(start).Microseconds())/1000/float64(b.N), "ms/op")
		b.ReportMetric(50, "ms/op-max")
	})
}

// TestCLIStatuslineWhileServerUp holds issue 15 item 1 and issue 27 item 6: with the server up,
// the status line never says offline — input that is not the expected JSON says it was not
// understood (it no longer stands for the working directory), and a refused token gets its own
// line.
func TestCLIStatuslineWhileServerUp(t *testing.T) {
	e := startCLIEnv(t)
	tests := []struct {
		name  string
		args  []string
		stdin string
		want  string // "" = the deck line (neither offline nor token refused)
	}{
		{"garbage", nil, "garbage", cli.NotUnderstoodLine},
		{"array", nil, "[1,2]", cli.NotUnderstoodLine},
		{"cwd not a string", nil, `{"cwd":5}`, cli.NotUnderstoodLine},
		{"workspace not an object", nil, `{"workspace":"x"}`, cli.NotUnderstoodLine},
		{"no directory at all", nil, `{"session_id":"x"}`, cli.NotUnderstoodLine},
		{"nothing on stdin", nil, "", ""},
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

// TestCLIStatuslinePinned holds issue 27 item 6: a folder pinned with `agent-deck use` shows
// its deck before any session binds there, marked as not bound yet; once a session is bound in
// it, the session's line.
func TestCLIStatuslinePinned(t *testing.T) {
	e := startCLIEnv(t)
	d, err := e.svc.CreateDeck(e.ctx, core.DeckInput{Name: "pinned-dev"})
	if err != nil {
		t.Fatal(err)
	}
	proj := t.TempDir()
	if err := os.MkdirAll(filepath.Join(proj, ".agent-deck"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(proj, ".agent-deck", "use.json"), []byte(`{"deck_name":"pinned-dev"}`), 0o644); err != nil {
		t.Fatal(err)
	}
	sub := filepath.Join(proj, "src")
	line := func() string {
		t.Helper()
		r := e.run(`{"cwd":"`+sub+`"}`, "statusline").wantCode(t, 0)
		return strings.TrimSuffix(r.stdout, "\n")
	}
	if got, want := line(), "◆ pinned-dev · 0 MCP · 0 keys · 0 playbooks · pinned, no session bound yet"; got != want {
		t.Errorf("pinned, unbound: %q, want %q", got, want)
	}
	agent := backend.WithActor(context.Background(), backend.Actor{Scope: backend.ScopeAgent, Kind: backend.ActorAgent})
	sess, err := e.svc.OpenSession(agent, core.OpenSessionInput{})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := e.svc.BindWorkspace(agent, sess.ID, core.BindInput{WorkspaceRoot: proj, Deck: d.ID}); err != nil {
		t.Fatal(err)
	}
	if got, want := line(), "◆ pinned-dev · 0 MCP · 0 keys · 0 playbooks · ⌘"+sess.Badge; got != want {
		t.Errorf("pinned, bound: %q, want %q", got, want)
	}
}
