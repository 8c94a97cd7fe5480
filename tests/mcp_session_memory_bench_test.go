package tests

import (
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/agent-deck/agent-deck/tests/resttest"
)

// idleSessionTargetKB is the resident memory one idle bound MCP session may cost the server, at
// 10,000 of them (BenchmarkGrowthIdleSessionRSS).
const idleSessionTargetKB = 16

// vmRSS reads the resident set of process pid in KB.
func vmRSS(tb testing.TB, pid int) int64 {
	tb.Helper()
	raw, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		tb.Skipf("no /proc to read the server's memory from: %v", err)
	}
	for _, line := range strings.Split(string(raw), "\n") {
		if v, ok := strings.CutPrefix(line, "VmRSS:"); ok {
			var kb int64
			if _, err := fmt.Sscan(strings.TrimSuffix(strings.TrimSpace(v), " kB"), &kb); err == nil {
				return kb
			}
		}
	}
	tb.Fatalf("no VmRSS in /proc/%d/status", pid)
	return 0
}

// benchServer is the real binary serving for a benchmark.
type benchServer struct {
	cmd        *exec.Cmd
	url, token string
	stderr     *syncBuffer
}

// startServeBench runs `agent-deck serve` with env added and waits until /readyz answers; it is
// stopped with SIGTERM when the benchmark ends. Its token limits are far above what a benchmark
// makes, so the rate limiter's path is paid for on every call and never refuses one.
func startServeBench(tb testing.TB, env ...string) *benchServer {
	tb.Helper()
	home := filepath.Join(tb.TempDir(), "home")
	cmd := exec.Command(agentDeckBinary(tb), "serve", "--addr", "127.0.0.1:0")
	cmd.Env = append(os.Environ(), append([]string{"AGENT_DECK_HOME=" + home,
		"AGENT_DECK_TOKEN_CALLS_PER_MINUTE=100000000", "AGENT_DECK_TOKEN_CONCURRENT_CALLS=10000"}, env...)...)
	s := &benchServer{cmd: cmd, stderr: &syncBuffer{}}
	cmd.Stderr = s.stderr
	if err := cmd.Start(); err != nil {
		tb.Fatalf("start serve: %v", err)
	}
	done := make(chan struct{})
	go func() { _ = cmd.Wait(); close(done) }()
	tb.Cleanup(func() {
		_ = cmd.Process.Signal(syscall.SIGTERM)
		select {
		case <-done:
		case <-time.After(30 * time.Second):
			_ = cmd.Process.Kill()
			<-done
		}
	})
	for deadline := time.Now().Add(60 * time.Second); time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
		select {
		case <-done:
			tb.Fatalf("serve exited early\n%s", s.stderr)
		default:
		}
		url := readServerURL(home)
		if url == "" {
			continue
		}
		if resp, err := http.Get(url + "/readyz"); err == nil {
			resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				tok, err := os.ReadFile(filepath.Join(home, "admin.token"))
				if err != nil {
					tb.Fatal(err)
				}
				s.url, s.token = url, strings.TrimSpace(string(tok))
				return s
			}
		}
	}
	tb.Fatalf("serve never became ready\n%s", s.stderr)
	return nil
}

// rest sends body to path as the admin, wants status, and decodes the answer into out unless nil.
func (s *benchServer) rest(tb testing.TB, want int, method, path, body string, out any) {
	tb.Helper()
	s.api().Must(tb, want, method, path, body, out)
}

// api is a REST client of the server whose Must sends the admin token.
func (s *benchServer) api() *resttest.Client { return resttest.New(s.url, s.token) }
