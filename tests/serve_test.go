package tests

import (
	"encoding/json"
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

// serveProcess is `agent-deck serve` running as a real child process.
type serveProcess struct {
	cmd    *exec.Cmd
	url    string
	token  string
	stderr *syncBuffer
	done   chan error
}

// startServe runs the real binary against home and waits until /readyz answers.
func startServe(t *testing.T, home string, env ...string) *serveProcess {
	t.Helper()
	cmd := exec.Command(agentDeckBinary(t), "serve", "--addr", "127.0.0.1:0")
	cmd.Env = append(os.Environ(), append([]string{"AGENT_DECK_HOME=" + home, "AGENT_DECK_DATABASE_URL="}, env...)...)
	p := &serveProcess{cmd: cmd, stderr: &syncBuffer{}, done: make(chan error, 1)}
	cmd.Stderr = p.stderr
	if err := cmd.Start(); err != nil {
		t.Fatalf("start serve: %v", err)
	}
	go func() { p.done <- cmd.Wait() }()
	removeSystemDataDir(t, home)
	t.Cleanup(func() { p.stop(t) })
	deadline := time.Now().Add(60 * time.Second)
	for time.Now().Before(deadline) {
		select {
		case err := <-p.done:
			p.done <- err
			t.Fatalf("serve exited early: %v\n%s", err, p.stderr)
		default:
		}
		if url := readServerURL(home); url != "" {
			if resp, err := http.Get(url + "/readyz"); err == nil {
				resp.Body.Close()
				if resp.StatusCode == http.StatusOK {
					p.url = url
					tok, _ := os.ReadFile(filepath.Join(home, "admin.token"))
					p.token = strings.TrimSpace(string(tok))
					return p
				}
			}
		}
		time.Sleep(50 * time.Millisecond)
	}
	t.Fatalf("serve never became ready\n%s", p.stderr)
	return nil
}

// readServerURL returns the URL a running serve wrote to <home>/server.json, or "".
func readServerURL(home string) string {
	info, err := os.ReadFile(filepath.Join(home, "server.json"))
	if err != nil {
		return ""
	}
	var si struct{ URL string }
	if json.Unmarshal(info, &si) != nil {
		return ""
	}
	return si.URL
}

// stop sends SIGTERM and waits for a clean exit.
func (p *serveProcess) stop(t *testing.T) {
	t.Helper()
	if p.cmd.ProcessState != nil {
		return
	}
	_ = p.cmd.Process.Signal(syscall.SIGTERM)
	select {
	case err := <-p.done:
		p.done <- err
		if err != nil {
			t.Errorf("serve exited with %v after SIGTERM\n%s", err, p.stderr)
		}
	case <-time.After(30 * time.Second):
		_ = p.cmd.Process.Kill()
		t.Errorf("serve did not exit within 30 s of SIGTERM\n%s", p.stderr)
	}
}

// do sends one REST request as the admin and returns the status and body.
func (p *serveProcess) do(t *testing.T, method, path, body string) (int, string) {
	t.Helper()
	a := resttest.New(p.url, p.token).Do(t, p.token, method, path, body)
	return a.Status, string(a.Body)
}

// postgresProcesses lists the PIDs of processes whose command line mentions dir.
func postgresProcesses(t *testing.T, dir string) []string {
	t.Helper()
	entries, err := os.ReadDir("/proc")
	if err != nil {
		t.Fatal(err)
	}
	var pids []string
	for _, e := range entries {
		cmdline, err := os.ReadFile(filepath.Join("/proc", e.Name(), "cmdline"))
		if err != nil {
			continue
		}
		line := strings.ReplaceAll(string(cmdline), "\x00", " ")
		if strings.Contains(line, "postgres") && strings.Contains(line, dir) {
			pids = append(pids, fmt.Sprintf("%s: %s", e.Name(), line))
		}
	}
	return pids
}

// TestServeEmbeddedPostgres: serve against an empty home comes up, keeps its data across a
// restart, and leaves no PostgreSQL process behind after SIGTERM.
func TestServeEmbeddedPostgres(t *testing.T) {
	home := filepath.Join(t.TempDir(), "home")

	first := startServe(t, home)
	dataDir := embeddedDataDir(t, home) // in the home, or outside it for a root serve
	for _, f := range []string{"admin.token", "secret.key"} {
		st, err := os.Stat(filepath.Join(home, f))
		if err != nil {
			t.Fatalf("%s not created: %v", f, err)
		}
		if st.Mode().Perm() != 0o600 {
			t.Errorf("%s mode = %v, want 0600", f, st.Mode().Perm())
		}
	}
	if code, body := first.do(t, "POST", "/api/v1/decks", `{"name":"Survivor"}`); code != http.StatusCreated {
		t.Fatalf("create deck: %d %s", code, body)
	}
	code, metrics := first.do(t, "GET", "/metrics", "")
	if code != http.StatusOK || !strings.Contains(metrics, `agent_deck_http_requests_total{method="POST",status="201",surface="api"} 1`) {
		t.Errorf("metrics: %d, no count of the deck creation in:\n%.2000s", code, metrics)
	}
	resp, err := http.Get(first.url + "/metrics")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusUnauthorized {
		t.Errorf("metrics without a token: %d, want 401", resp.StatusCode)
	}
	first.stop(t)
	if left := postgresProcesses(t, dataDir); len(left) > 0 {
		t.Fatalf("postgres still running after SIGTERM:\n%s", strings.Join(left, "\n"))
	}
	if _, err := os.Stat(filepath.Join(home, "server.json")); !os.IsNotExist(err) {
		t.Errorf("server.json left behind after shutdown (err=%v)", err)
	}

	second := startServe(t, home)
	if second.token != first.token {
		t.Errorf("admin token changed across restart")
	}
	code, body := second.do(t, "GET", "/api/v1/decks/Survivor", "")
	if code != http.StatusOK || !strings.Contains(body, "Survivor") {
		t.Fatalf("deck lost across restart: %d %s", code, body)
	}
	second.stop(t)
	if left := postgresProcesses(t, dataDir); len(left) > 0 {
		t.Fatalf("postgres still running after second SIGTERM:\n%s", strings.Join(left, "\n"))
	}
}

// TestServeRefusesNonLoopback: binding elsewhere needs explicit configuration.
func TestServeRefusesNonLoopback(t *testing.T) {
	cmd := exec.Command(agentDeckBinary(t), "serve", "--addr", "0.0.0.0:0")
	cmd.Env = append(os.Environ(), "AGENT_DECK_HOME="+t.TempDir())
	out, err := cmd.CombinedOutput()
	var exitErr *exec.ExitError
	if err == nil || !asExitError(err, &exitErr) || exitErr.ExitCode() == 0 {
		t.Fatalf("serve on 0.0.0.0 without --allow-remote: err=%v\n%s", err, out)
	}
	if !strings.Contains(string(out), "--allow-remote") {
		t.Errorf("error does not say how to allow it:\n%s", out)
	}
}
