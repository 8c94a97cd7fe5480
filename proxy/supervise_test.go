package proxy_test

import (
	"context"
	"net"
	"strconv"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/agent-deck/agent-deck/backend"
	"github.com/agent-deck/agent-deck/proxy"
	"github.com/agent-deck/agent-deck/tests/peertest"
)

// TestKilledChild: after a local server is killed, the next call fails fast with
// DOWNSTREAM_UNREACHABLE and the one after runs on a fresh process.
func TestKilledChild(t *testing.T) {
	p, _ := newProxy(t, proxyOptions{}.opts())
	tg, marker := localTarget(t)
	first := pidOf(t, p, tg)
	pid, _ := strconv.Atoi(first)
	if err := syscall.Kill(pid, syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	waitFor(t, "the killed child to be noticed", func() bool {
		st, _ := p.Status(tg.ServiceID)
		return st.Health.Status == backend.HealthUnhealthy
	})

	start := time.Now()
	_, err := tryCall(context.Background(), p, tg, "pid", nil)
	be := wantCode(t, err, backend.CodeDownstreamUnreachable)
	if d := time.Since(start); d > 500*time.Millisecond {
		t.Errorf("failing call took %s, want fast", d)
	}
	if !strings.Contains(be.Message, "stopped (signal: killed)") {
		t.Errorf("message = %q", be.Message)
	}
	st, _ := p.Status(tg.ServiceID)
	if !strings.Contains(st.Health.Stderr, "peer: starting") {
		t.Errorf("stderr tail = %q", st.Health.Stderr)
	}

	second := pidOf(t, p, tg)
	if second == first {
		t.Errorf("pid after restart = %s, want a fresh process", second)
	}
	if pids := peertest.Processes(t, marker); len(pids) != 1 {
		t.Errorf("processes = %v, want exactly the fresh one", pids)
	}
}

// TestCrashInFlight: a call that crashes the server fails; the next one succeeds at once.
func TestCrashInFlight(t *testing.T) {
	p, _ := newProxy(t, proxyOptions{}.opts())
	tg, _ := localTarget(t)
	first := pidOf(t, p, tg)
	_, err := tryCall(context.Background(), p, tg, "crash", map[string]any{"code": 7})
	be := wantCode(t, err, backend.CodeDownstreamUnreachable)
	if be.Details["phase"] != "call" {
		t.Errorf("details = %v", be.Details)
	}
	if second := pidOf(t, p, tg); second == first {
		t.Errorf("pid = %s after crash, want a fresh process", second)
	}
}

// TestNoOrphans: Close stops local servers and everything they started.
func TestNoOrphans(t *testing.T) {
	p, _ := newProxy(t, proxyOptions{}.opts())
	var markers []string
	for range 3 {
		tg, marker := localTarget(t)
		markers = append(markers, marker)
		res, _ := call(t, p, tg, "spawn", nil)
		if _, err := strconv.Atoi(res.Content[0].Text); err != nil {
			t.Fatalf("spawn = %+v", res)
		}
		if pids := peertest.Processes(t, marker); len(pids) != 2 {
			t.Fatalf("processes before close = %v, want server and grandchild", pids)
		}
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := p.Close(ctx); err != nil {
		t.Fatal(err)
	}
	for _, m := range markers {
		if pids := peertest.Processes(t, m); len(pids) != 0 {
			t.Errorf("after close, still running: %v", pids)
		}
	}
	_, err := tryCall(context.Background(), p, backend.Target{ServiceID: "x", Type: backend.ServiceLocal}, "echo", nil)
	wantCode(t, err, backend.CodeDownstreamUnreachable)
}

// TestIdleStop: an idle local server is stopped, and the next call starts it again.
func TestIdleStop(t *testing.T) {
	p, _ := newProxy(t, proxyOptions{idle: 300 * time.Millisecond}.opts())
	tg, marker := localTarget(t)
	first := pidOf(t, p, tg)
	peertest.WaitGone(t, marker, 5*time.Second)
	if second := pidOf(t, p, tg); second == first {
		t.Errorf("pid = %s after idle stop, want a new process", second)
	}
}

// TestRestartBackoff: a server that cannot start is retried at once, then only after backoff;
// Check retries regardless.
func TestRestartBackoff(t *testing.T) {
	p, _ := newProxy(t, proxyOptions{backoffMin: time.Hour}.opts())
	tg := backend.Target{ServiceID: uniqueID("broken"), ServiceName: "broken", Type: backend.ServiceLocal,
		LocalCommand: "/bin/false", Revision: "1"}
	for i, want := range []string{"could not connect", "could not connect", "not retried"} {
		_, err := tryCall(context.Background(), p, tg, "echo", nil)
		be := wantCode(t, err, backend.CodeDownstreamUnreachable)
		if !strings.Contains(be.Message, want) {
			t.Errorf("attempt %d: message = %q, want %q", i+1, be.Message, want)
		}
	}
	h := p.Check(context.Background(), tg)
	if h.Status != backend.HealthUnhealthy || h.LastCheckedAt == nil || h.LastError == "" {
		t.Errorf("check = %+v", h)
	}
	missing := tg
	missing.ServiceID, missing.LocalCommand = uniqueID("missing"), "no-such-command-anywhere"
	_, err := tryCall(context.Background(), p, missing, "echo", nil)
	be := wantCode(t, err, backend.CodeDownstreamUnreachable)
	if !strings.Contains(be.Hint, "local_command") {
		t.Errorf("hint = %q", be.Hint)
	}
}

// TestReconnectOnChange: a change to what shapes the connection (command, env, a rotated
// secret) replaces it; a new revision that changes only tool settings keeps it.
func TestReconnectOnChange(t *testing.T) {
	p, _ := newProxy(t, proxyOptions{}.opts())
	tg, marker := localTarget(t)
	pid := pidOf(t, p, tg)
	steps := []struct {
		name    string
		change  func(*backend.Target)
		restart bool
	}{
		{"tool settings only", func(t *backend.Target) { t.Revision = "2"; t.DisabledTools = []string{"fail"} }, false},
		{"timeout only", func(t *backend.Target) { t.Timeout = time.Minute }, false},
		{"args", func(t *backend.Target) { t.LocalArgs = append(t.LocalArgs, "-page-size", "50") }, true},
		{"credential linked", func(t *backend.Target) {
			t.Credential = &backend.TargetCredential{ID: "c", Scheme: backend.SchemeBearer, EnvName: "K", Secret: "first-secret"}
		}, true},
		{"secret rotated", func(t *backend.Target) { t.Credential.Secret = "rotated-secret" }, true},
	}
	for _, st := range steps {
		st.change(&tg)
		next := pidOf(t, p, tg)
		if (next != pid) != st.restart {
			t.Errorf("%s: pid %s -> %s, want restart=%v", st.name, pid, next, st.restart)
		}
		pid = next
	}
	waitFor(t, "old servers to stop", func() bool { return len(peertest.Processes(t, marker)) == 1 })
}

// TestForget drops the connection and its server.
func TestForget(t *testing.T) {
	p, _ := newProxy(t, proxyOptions{}.opts())
	tg, marker := localTarget(t)
	pidOf(t, p, tg)
	p.Forget(tg.ServiceID)
	if _, ok := p.Status(tg.ServiceID); ok {
		t.Errorf("status still known after Forget")
	}
	peertest.WaitGone(t, marker, 5*time.Second)
}

func waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// TestCloseDuringConnect: Close aborts a connection still opening and returns promptly; the
// waiting call fails instead of hanging.
func TestCloseDuringConnect(t *testing.T) {
	hang, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer hang.Close()
	p, _ := newProxy(t, proxyOptions{connect: time.Minute}.opts())
	errs := make(chan error, 1)
	go func() {
		_, err := tryCall(context.Background(), p, remoteTarget("http://"+hang.Addr().String()+"/mcp", backend.TransportAuto), "echo", nil)
		errs <- err
	}()
	time.Sleep(100 * time.Millisecond)
	start := time.Now()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if err := p.Close(ctx); err != nil {
		t.Fatal(err)
	}
	if d := time.Since(start); d > 3*time.Second {
		t.Errorf("close took %s", d)
	}
	select {
	case err := <-errs:
		if err == nil {
			t.Error("call succeeded against a hanging server")
		}
	case <-time.After(3 * time.Second):
		t.Error("call still waiting after close")
	}
}

// TestEveryCrashIsCounted holds issue 27 item 20: a local server that exits on its own is a
// crash, counted once, even when the call that saw it die has the proxy tear the connection
// down before the exit is reaped; a server the proxy stops (here, at Close) is not. The test
// waits on each crash event, not on a clock.
func TestEveryCrashIsCounted(t *testing.T) {
	crashed := make(chan string, 64)
	var started atomic.Int32
	opts := proxyOptions{}.opts()
	opts.Events = proxy.Events{
		LocalStarted: func(string) { started.Add(1) },
		LocalCrashed: func(service string) { crashed <- service },
	}
	p, _ := newProxy(t, opts)
	tg, _ := localTarget(t)
	const rounds = 12
	for i := range rounds {
		pidOf(t, p, tg)
		if _, err := tryCall(context.Background(), p, tg, "crash", map[string]any{"code": 3}); err == nil {
			t.Fatalf("round %d: the crash call succeeded", i)
		}
		select {
		case s := <-crashed:
			if s != tg.ServiceName {
				t.Errorf("crash of %q, want %q", s, tg.ServiceName)
			}
		case <-time.After(time.Minute): // a hang guard: the event comes at once or never
			t.Fatalf("round %d: the crash was never counted (%d starts)", i, started.Load())
		}
	}
	pidOf(t, p, tg) // a live server the proxy will stop
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := p.Close(ctx); err != nil {
		t.Fatal(err)
	}
	select {
	case s := <-crashed:
		t.Errorf("a server the proxy stopped was counted as a crash (%s)", s)
	default:
	}
}
