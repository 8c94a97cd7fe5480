package tests

import (
	"context"
	"crypto/rand"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/agent-deck/agent-deck/backend/postgres/pgtest"
	"github.com/agent-deck/agent-deck/tests/peertest"
)

// sharedServe starts one real `serve` on first use and keeps it for the rest of the parent test,
// so the serve attack rows that can share a server (and its embedded cluster) pay for one start.
type sharedServe struct {
	parent *testing.T
	env    []string
	once   sync.Once
	home   string
	p      *serveProcess
	err    error
	// before is each mode of the home's parents before serve started, for the o+x row.
	before map[string]os.FileMode
}

// get returns the running server, starting it on first use (with its cleanup on the parent).
func (s *sharedServe) get(t *testing.T) *serveProcess {
	t.Helper()
	s.once.Do(func() {
		s.home = filepath.Join(s.parent.TempDir(), "home")
		if err := os.MkdirAll(s.home, 0o700); err != nil {
			s.err = err
			return
		}
		s.before = dirModes(s.home)
		removeSystemDataDir(s.parent, s.home)
		s.p, s.err = launchServe(s.parent, s.home, s.env...)
	})
	if s.err != nil {
		t.Fatalf("shared serve: %v", s.err)
	}
	return s.p
}

// launchServe is startServe that reports instead of failing, so a subtest can use it on behalf
// of its parent (whose cleanup stops the process).
func launchServe(cleanup *testing.T, home string, env ...string) (*serveProcess, error) {
	cmd := exec.Command(agentDeckBinary(cleanup), "serve", "--addr", "127.0.0.1:0")
	cmd.Env = append(os.Environ(), append([]string{"AGENT_DECK_HOME=" + home, "AGENT_DECK_DATABASE_URL="}, env...)...)
	p := &serveProcess{cmd: cmd, stderr: &syncBuffer{}, done: make(chan error, 1)}
	cmd.Stderr = p.stderr
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	go func() { p.done <- cmd.Wait() }()
	cleanup.Cleanup(func() { p.stop(cleanup) })
	deadline := time.Now().Add(60 * time.Second)
	for time.Now().Before(deadline) {
		select {
		case err := <-p.done:
			p.done <- err
			return nil, errors.New("serve exited early: " + errString(err) + "\n" + p.stderr.String())
		default:
		}
		if url := readServerURL(home); url != "" && readyStatus(url) == http.StatusOK {
			p.url = url
			tok, _ := os.ReadFile(filepath.Join(home, "admin.token"))
			p.token = strings.TrimSpace(string(tok))
			return p, nil
		}
		time.Sleep(50 * time.Millisecond)
	}
	return nil, errors.New("serve never became ready\n" + p.stderr.String())
}

func errString(err error) string {
	if err == nil {
		return "exit 0"
	}
	return err.Error()
}

// readyStatus is the status of GET /readyz, 0 when the server does not answer.
func readyStatus(url string) int {
	resp, err := http.Get(url + "/readyz")
	if err != nil {
		return 0
	}
	resp.Body.Close()
	return resp.StatusCode
}

// runServeOnce runs `agent-deck serve` to completion (it is expected to refuse to start) and
// returns its exit code and combined output; a serve that is still running after the deadline is
// killed and fails the test.
func runServeOnce(t *testing.T, home string, args []string, env ...string) (int, string) {
	t.Helper()
	cmd := exec.Command(agentDeckBinary(t), append([]string{"serve", "--addr", "127.0.0.1:0"}, args...)...)
	cmd.Env = append(os.Environ(), append([]string{"AGENT_DECK_HOME=" + home, "AGENT_DECK_DATABASE_URL="}, env...)...)
	var out syncBuffer
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	select {
	case err := <-done:
		var ee *exec.ExitError
		if err == nil {
			return 0, out.String()
		}
		if errors.As(err, &ee) {
			return ee.ExitCode(), out.String()
		}
		t.Fatalf("serve: %v", err)
	case <-time.After(30 * time.Second):
		_ = cmd.Process.Signal(syscall.SIGTERM)
		<-done
		t.Fatalf("serve did not exit on its own within 30 s; it should have refused to start\n%s", out.String())
	}
	return 0, ""
}

// dirModes records the mode of dir and of every parent up to /.
func dirModes(dir string) map[string]os.FileMode {
	modes := map[string]os.FileMode{}
	for p := dir; ; p = filepath.Dir(p) {
		if info, err := os.Stat(p); err == nil {
			modes[p] = info.Mode()
		}
		if p == filepath.Dir(p) {
			return modes
		}
	}
}

// pollUntil calls check until it returns true or the deadline passes; false on timeout.
func pollUntil(within time.Duration, check func() bool) bool {
	for deadline := time.Now().Add(within); time.Now().Before(deadline); time.Sleep(50 * time.Millisecond) {
		if check() {
			return true
		}
	}
	return check()
}

// attackSecondServeOnLockedHome starts a second serve on a home a running serve owns: it must
// exit at once with code 1, name the owner's URL and PID, and leave the first one serving.
func attackSecondServeOnLockedHome(shared *sharedServe) func(t *testing.T) {
	return func(t *testing.T) {
		first := shared.get(t)
		code, out := runServeOnce(t, shared.home, nil)
		if code != 1 {
			t.Errorf("second serve exit code = %d, want 1\n%s", code, out)
		}
		pid := first.cmd.Process.Pid
		for _, want := range []string{first.url, "pid " + itoa(pid)} {
			if !strings.Contains(out, want) {
				t.Errorf("second serve's message does not name %q:\n%s", want, out)
			}
		}
		if got := readServerURL(shared.home); got != first.url {
			t.Errorf("server.json now names %q, want the first server %q", got, first.url)
		}
		if s := readyStatus(first.url); s != http.StatusOK {
			t.Fatalf("first server /readyz = %d after the second start, want 200\n%s", s, first.stderr)
		}
		if code, body := first.do(t, "POST", "/api/v1/decks", `{"name":"StillMine"}`); code != http.StatusCreated {
			t.Fatalf("first server REST after the second start: %d %s", code, body)
		}
	}
}

// attackSecretFilesOpenToOthers leaves secret.key and admin.token readable by others: serve must
// warn naming each file and the fix, and refuse to start with --strict-perms.
func attackSecretFilesOpenToOthers(t *testing.T) {
	home := filepath.Join(t.TempDir(), "home")
	if err := os.MkdirAll(home, 0o700); err != nil {
		t.Fatal(err)
	}
	key := filepath.Join(home, "secret.key")
	tok := filepath.Join(home, "admin.token")
	if err := os.WriteFile(key, []byte(randomKeyB64(t)+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(tok, []byte("not-a-token\n"), 0o640); err != nil {
		t.Fatal(err)
	}
	code, out := runServeOnce(t, home, []string{"--strict-perms"})
	if code != 1 {
		t.Errorf("serve --strict-perms with loose secret files: exit %d, want 1\n%s", code, out)
	}
	for _, want := range []string{key, tok, "chmod 600"} {
		if !strings.Contains(out, want) {
			t.Errorf("refusal does not mention %q:\n%s", want, out)
		}
	}
	if _, err := os.Stat(filepath.Join(home, "server.json")); err == nil {
		t.Errorf("a refused serve wrote server.json")
	}
	// Without --strict-perms it starts, warning about each file (against the shared test cluster,
	// so this costs no initdb).
	code, out = runServeOnce(t, home, []string{"--log-level", "error"}, "AGENT_DECK_STRICT_PERMS=1")
	if code != 1 {
		t.Errorf("AGENT_DECK_STRICT_PERMS=1: exit %d, want 1\n%s", code, out)
	}
	p, err := launchServe(t, home, "AGENT_DECK_DATABASE_URL="+newTestDBURL(t))
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range []string{key, tok} {
		if !strings.Contains(p.stderr.String(), "level=WARN") || !strings.Contains(p.stderr.String(), "chmod 600 "+f) {
			t.Errorf("no warning naming %s and the fix in the log:\n%s", f, p.stderr)
		}
	}
}

func itoa(n int) string { return strconv.Itoa(n) }

// randomKeyB64 is a fresh secret key in the format of <home>/secret.key.
func randomKeyB64(t *testing.T) string {
	t.Helper()
	b := make([]byte, 32)
	if _, err := rand.Read(b); err != nil {
		t.Fatal(err)
	}
	return base64.StdEncoding.EncodeToString(b)
}

// newTestDBURL is a fresh database on the test binary's shared cluster.
func newTestDBURL(t *testing.T) string { return pgtest.NewDB(t) }

// embeddedDataDir is the data directory of the embedded cluster a serve reports in server.json
// ("embedded (<dir>)").
func embeddedDataDir(t *testing.T, home string) string {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(home, "server.json"))
	if err != nil {
		t.Fatal(err)
	}
	var si struct{ Database string }
	if err := json.Unmarshal(data, &si); err != nil {
		t.Fatal(err)
	}
	dir, ok := strings.CutPrefix(si.Database, "embedded (")
	if !ok {
		t.Fatalf("server.json database %q is not the embedded cluster", si.Database)
	}
	return strings.TrimSuffix(dir, ")")
}

// attackKillEmbeddedPostgres kills the embedded cluster's postmaster with SIGKILL while serve
// runs: the deck must report the outage as a coded UNAVAILABLE (never an internal error), /readyz
// must say 503 while it lasts, and serve must bring the database back by itself.
func attackKillEmbeddedPostgres(shared *sharedServe) func(t *testing.T) {
	return func(t *testing.T) {
		p := shared.get(t)
		dataDir := embeddedDataDir(t, shared.home)
		pidFile := filepath.Join(dataDir, "postmaster.pid")
		raw, err := os.ReadFile(pidFile)
		if err != nil {
			t.Fatal(err)
		}
		first, _, _ := strings.Cut(string(raw), "\n")
		pid, err := strconv.Atoi(strings.TrimSpace(first))
		if err != nil {
			t.Fatalf("postmaster.pid: %q", raw)
		}
		if err := syscall.Kill(pid, syscall.SIGKILL); err != nil {
			t.Fatal(err)
		}
		sawDown, sawMCPDown := false, false
		recovered := pollUntil(60*time.Second, func() bool {
			code, body := p.do(t, "GET", "/api/v1/decks", "")
			switch {
			case code == http.StatusOK:
			case code == http.StatusServiceUnavailable && strings.Contains(body, `"code":"UNAVAILABLE"`) &&
				strings.Contains(body, `"hint"`) && !strings.Contains(strings.ToLower(body), "internal"):
			default:
				t.Errorf("while the database is down: %d %s", code, body)
			}
			// The MCP endpoint says the same: a coded UNAVAILABLE with its hint, never an
			// internal error, whether the token check or the session's row meets the outage.
			if code, body := mcpInitialize(t, p.url, p.token); code != http.StatusOK {
				if !strings.Contains(body, `"code":"UNAVAILABLE"`) || !strings.Contains(body, `"hint":`) ||
					strings.Contains(strings.ToLower(body), "internal") {
					t.Errorf("MCP while the database is down: %d %s", code, body)
				}
				sawMCPDown = true
			}
			switch readyStatus(p.url) {
			case http.StatusServiceUnavailable:
				sawDown = true
			case http.StatusOK:
				return sawDown && code == http.StatusOK
			}
			return false
		})
		if !sawDown {
			t.Errorf("/readyz never said 503 after the postmaster was killed")
		}
		t.Logf("an MCP initialize met the outage: %v", sawMCPDown)
		if !recovered {
			t.Fatalf("the deck did not recover by itself\n%s", p.stderr)
		}
		if code, body := p.do(t, "POST", "/api/v1/decks", `{"name":"AfterRestart"}`); code != http.StatusCreated {
			t.Fatalf("REST after the restart: %d %s", code, body)
		}
		if !pollUntil(10*time.Second, func() bool { return strings.Contains(p.stderr.String(), "postgres restarted") }) {
			t.Errorf("no restart in the log:\n%s", p.stderr)
		}
		if p.cmd.ProcessState != nil {
			t.Fatalf("serve exited")
		}
	}
}

// attackCancelCountedAsOutage cancels requests while the server is querying the database: a
// cancel is the client's doing, so it must show as 499 in /metrics and never as a 503 or an
// UNAVAILABLE line in the log.
func attackCancelCountedAsOutage(t *testing.T) {
	d := startRESTDeck(t)
	token := d.srv.AdminToken()
	url := d.srv.URL() + "/api/v1/decks"
	cancelled := func() {
		var wg sync.WaitGroup
		for i := range 32 {
			wg.Go(func() {
				ctx, cancel := context.WithTimeout(context.Background(), time.Duration(i%8)*250*time.Microsecond)
				defer cancel()
				req, _ := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
				req.Header.Set("Authorization", "Bearer "+token)
				if resp, err := http.DefaultClient.Do(req); err == nil {
					_, _ = io.Copy(io.Discard, resp.Body)
					resp.Body.Close()
				}
			})
		}
		wg.Wait()
	}
	series := func(status string) bool {
		a := d.api.Do(t, token, http.MethodGet, "/metrics", nil)
		return strings.Contains(string(a.Body), `status="`+status+`",surface="api"`)
	}
	// Keep cancelling until a cancel has landed while a request was being served.
	if !pollUntil(60*time.Second, func() bool { cancelled(); return series("499") || series("503") }) {
		t.Fatal("no cancel landed while a request was served within the deadline")
	}
	if series("503") || !series("499") {
		t.Errorf("cancelled requests were not counted as 499 (client closed) but as 503 (an outage) in /metrics")
	}
	for _, line := range strings.Split(d.logs.String(), "\n") {
		if strings.Contains(line, "UNAVAILABLE") || strings.Contains(line, "unavailable") {
			t.Errorf("a cancelled request was logged as an outage: %s", line)
			break
		}
	}
}

// attackOrphanOutlivesKilledServe kills serve with SIGKILL while a local server it started has a
// child of its own: no process of that server's group, and not the grandchild, may survive.
func attackOrphanOutlivesKilledServe(t *testing.T) {
	home := filepath.Join(t.TempDir(), "home")
	p, err := launchServe(t, home, "AGENT_DECK_DATABASE_URL="+newTestDBURL(t))
	if err != nil {
		t.Fatal(err)
	}
	marker := "PEER_MARKER=orphan-" + randomKeyB64(t)[:8]
	svc, _ := json.Marshal(map[string]any{"name": "Spawner", "type": "local-mcp",
		"local_command": peertest.Build(t), "local_args": []string{"-transport", "stdio"},
		"local_env": map[string]string{"PEER_MARKER": strings.TrimPrefix(marker, "PEER_MARKER=")}})
	if code, body := p.do(t, "POST", "/api/v1/services", string(svc)); code != http.StatusCreated {
		t.Fatalf("register the local server: %d %s", code, body)
	}
	code, body := p.do(t, "POST", "/api/v1/services/Spawner/call", `{"tool_name":"spawn","arguments":{}}`)
	m := regexp.MustCompile(`"text":\s*"(\d+)"`).FindStringSubmatch(body)
	if code != http.StatusOK || m == nil {
		t.Fatalf("spawn: %d %s", code, body)
	}
	grandchild, _ := strconv.Atoi(m[1])
	_, pgid, ok := procPgid(grandchild)
	if !ok {
		t.Fatalf("the grandchild %d is not running", grandchild)
	}
	if err := p.cmd.Process.Kill(); err != nil {
		t.Fatal(err)
	}
	p.done <- <-p.done
	var left []int
	gone := pollUntil(10*time.Second, func() bool {
		left = nil
		entries, _ := os.ReadDir("/proc")
		for _, e := range entries {
			pid, err := strconv.Atoi(e.Name())
			if err != nil {
				continue
			}
			if state, g, ok := procPgid(pid); ok && state != 'Z' && (g == pgid || pid == grandchild) {
				left = append(left, pid)
			}
		}
		return len(left) == 0 && len(peertest.Processes(t, marker)) == 0
	})
	if !gone {
		for _, pid := range left {
			_ = syscall.Kill(pid, syscall.SIGKILL)
		}
		t.Fatalf("processes of the local server's group %d survived serve's SIGKILL: %v (grandchild %d)", pgid, left, grandchild)
	}
}

// procPgid reads a process's state and process group from /proc.
func procPgid(pid int) (state byte, pgid int, ok bool) {
	raw, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return 0, 0, false
	}
	i := strings.LastIndexByte(string(raw), ')')
	if i < 0 {
		return 0, 0, false
	}
	var ppid int
	if _, err := fmt.Sscanf(string(raw[i+1:]), " %c %d %d", &state, &ppid, &pgid); err != nil {
		return 0, 0, false
	}
	return state, pgid, true
}

// removeSystemDataDir deletes, when the test ends (after the servers it started stopped), the
// cluster a root serve placed outside the home (recorded in <home>/postgres.location).
func removeSystemDataDir(t *testing.T, home string) {
	t.Cleanup(func() {
		data, err := os.ReadFile(filepath.Join(home, "postgres.location"))
		if err != nil {
			return
		}
		dir := strings.TrimSpace(string(data))
		if filepath.Base(dir) == "postgres" && strings.HasPrefix(dir, "/var/lib/agent-deck/") {
			_ = os.RemoveAll(filepath.Dir(dir))
		}
	})
}

// attackRootServeOpensUpHome runs serve as root with the embedded cluster: it must not change
// the mode of the home or of any directory above it (it used to add o+x to each so the postgres
// user could reach the cluster).
func attackRootServeOpensUpHome(shared *sharedServe) func(t *testing.T) {
	return func(t *testing.T) {
		if os.Geteuid() != 0 {
			t.Skip("only a root serve runs the cluster as another user")
		}
		shared.get(t)
		for dir, was := range shared.before {
			info, err := os.Stat(dir)
			if err != nil {
				t.Errorf("%s: %v", dir, err)
				continue
			}
			if info.Mode() != was {
				t.Errorf("serve changed the mode of %s from %v to %v", dir, was, info.Mode())
			}
		}
		if dataDir := embeddedDataDir(t, shared.home); strings.HasPrefix(dataDir, shared.home) {
			t.Errorf("the cluster is in the closed home (%s); the postgres user cannot reach it", dataDir)
		}
	}
}

// mcpInitialize opens an MCP session with a raw initialize request and returns the HTTP status
// and body.
func mcpInitialize(t *testing.T, base, token string) (int, string) {
	t.Helper()
	body := `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25",` +
		`"capabilities":{},"clientInfo":{"name":"outage-probe","version":"1"}}}`
	req, err := http.NewRequest(http.MethodPost, base+"/mcp", strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Authorization", "Bearer "+token)
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatalf("POST /mcp: %v", err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(b)
}

// attackZombieServeOwnsCluster kills serve with SIGKILL and, as a careless parent would, does not
// reap it: the process stays a zombie. A zombie owns nothing; the next serve on the home must take
// over the embedded cluster the dead one left running instead of refusing it as a live owner's.
func attackZombieServeOwnsCluster(t *testing.T) {
	home := filepath.Join(t.TempDir(), "home")
	must(t, os.MkdirAll(home, 0o700))
	removeSystemDataDir(t, home)
	cmd := exec.Command(agentDeckBinary(t), "serve", "--addr", "127.0.0.1:0")
	cmd.Env = append(os.Environ(), "AGENT_DECK_HOME="+home, "AGENT_DECK_DATABASE_URL=")
	stderr := &syncBuffer{}
	cmd.Stderr = stderr
	must(t, cmd.Start())
	reaped := false
	t.Cleanup(func() {
		if !reaped {
			_ = cmd.Process.Kill()
			_ = cmd.Wait()
		}
	})
	if !pollUntil(60*time.Second, func() bool { u := readServerURL(home); return u != "" && readyStatus(u) == http.StatusOK }) {
		t.Fatalf("the first serve never became ready\n%s", stderr)
	}
	must(t, cmd.Process.Signal(syscall.SIGKILL))
	pid := cmd.Process.Pid
	if !pollUntil(10*time.Second, func() bool { return procState(pid) == "Z" }) {
		t.Fatalf("the killed serve is not a zombie (state %q)", procState(pid))
	}
	second, err := launchServe(t, home)
	if err != nil {
		t.Fatalf("a serve on the home of a zombie: %v", err)
	}
	if code, body := second.do(t, "POST", "/api/v1/decks", `{"name":"AfterZombie"}`); code != http.StatusCreated {
		t.Errorf("the new serve: %d %s", code, body)
	}
	if procState(pid) != "Z" {
		t.Errorf("the first serve was reaped during the test (state %q): the row proved nothing", procState(pid))
	}
	_ = cmd.Wait()
	reaped = true
}

// procState is the state letter of a process in /proc/PID/stat ("Z" for a zombie), "" when gone.
func procState(pid int) string {
	raw, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return ""
	}
	i := strings.LastIndexByte(string(raw), ')')
	if i < 0 || len(raw) < i+3 {
		return ""
	}
	return string(raw[i+2])
}
