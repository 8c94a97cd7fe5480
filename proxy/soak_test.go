package proxy_test

import (
	"context"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/agent-deck/agent-deck/backend"
	"github.com/agent-deck/agent-deck/proxy"
	"github.com/agent-deck/agent-deck/tests/peertest"
)

// TestStdioSoak makes 1,000 calls to a local server killed every 100 calls, with a call in
// flight at each kill: exactly those calls fail, every other succeeds, and no process is left.
func TestStdioSoak(t *testing.T) {
	if testing.Short() {
		t.Skip("soak")
	}
	p, _ := newProxy(t, proxyOptions{}.opts())
	tg, marker := localTarget(t)
	start := time.Now()
	failed := soak(t, p, tg, marker)
	t.Logf("1000 calls, 10 kills, %d failed, %s", failed, time.Since(start))
	if failed != 10 {
		t.Errorf("%d calls failed, want the 10 in flight at a kill", failed)
	}
	closeAndCheck(t, p, marker)
}

// soak runs the 1,000 calls and returns how many failed; any failure other than the call in
// flight at a kill stops the test.
func soak(tb testing.TB, p *proxy.Proxy, tg backend.Target, marker string) int {
	tb.Helper()
	failed := 0
	for i := 1; i <= 1000; i++ {
		if i%100 != 0 {
			if _, err := tryCall(context.Background(), p, tg, "echo", map[string]any{"message": "soak"}); err != nil {
				tb.Fatalf("call %d: %v", i, err)
			}
			continue
		}
		pids := peertest.Processes(tb, marker)
		if len(pids) != 1 {
			tb.Fatalf("call %d: processes = %v, want 1", i, pids)
		}
		time.AfterFunc(30*time.Millisecond, func() { _ = syscall.Kill(pids[0], syscall.SIGKILL) })
		_, err := tryCall(context.Background(), p, tg, "sleep", map[string]any{"ms": 2000})
		wantCode(tb, err, backend.CodeDownstreamUnreachable)
		failed++
	}
	return failed
}

// TestStdioSoakConcurrent: 8 callers share the server while it is killed every 100 calls; only
// calls in flight at a kill may fail (at most one per caller per kill).
func TestStdioSoakConcurrent(t *testing.T) {
	if testing.Short() {
		t.Skip("soak")
	}
	const workers, total = 8, 1000
	p, _ := newProxy(t, proxyOptions{}.opts())
	tg, marker := localTarget(t)
	var done, failed, kills atomic.Int64
	var wg sync.WaitGroup
	for range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for done.Load() < total {
				_, err := tryCall(context.Background(), p, tg, "echo", map[string]any{"message": "soak"})
				if n := done.Add(1); n%100 == 0 && n < total {
					for _, pid := range peertest.Processes(t, marker) {
						_ = syscall.Kill(pid, syscall.SIGKILL)
					}
					kills.Add(1)
				}
				if err != nil {
					if backend.ErrorCode(err) != backend.CodeDownstreamUnreachable {
						t.Errorf("unexpected error: %v", err)
					}
					failed.Add(1)
				}
			}
		}()
	}
	wg.Wait()
	t.Logf("%d calls by %d callers, %d kills, %d failed", done.Load(), workers, kills.Load(), failed.Load())
	if failed.Load() > kills.Load()*workers {
		t.Errorf("%d calls failed for %d kills of %d callers", failed.Load(), kills.Load(), workers)
	}
	closeAndCheck(t, p, marker)
}

func closeAndCheck(t testing.TB, p *proxy.Proxy, marker string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := p.Close(ctx); err != nil {
		t.Fatal(err)
	}
	if pids := peertest.Processes(t, marker); len(pids) != 0 {
		t.Errorf("processes left after close: %v", pids)
	}
}
