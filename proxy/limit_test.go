package proxy_test

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/agent-deck/agent-deck/backend"
	"github.com/agent-deck/agent-deck/proxy"
	"github.com/agent-deck/agent-deck/tests/peertest"
)

// TestResultHardCap: a result over the hard cap is cut off as it arrives and the call fails
// with DOWNSTREAM_RESULT_TOO_LARGE, over stdio and Streamable HTTP; the same session then
// serves the next call, and a result just under the cap still spills.
func TestResultHardCap(t *testing.T) {
	const hardCap = 1 << 20
	p, _ := newProxy(t, proxy.Options{ResultHardCap: hardCap, MaxResultBytes: 1024})
	local, _ := localTarget(t)
	targets := map[string]backend.Target{
		"stdio":           local,
		"streamable_http": remoteTarget(peertest.Start(t, "http").URL, backend.TransportStreamableHTTP),
		"sse":             remoteTarget(peertest.Start(t, "sse").URL, backend.TransportSSE),
	}
	for name, tg := range targets {
		t.Run(name, func(t *testing.T) {
			tg.Timeout = time.Minute // a cut answer must fail the call at once, not at its deadline
			before := pidOf(t, p, tg)
			_, err := tryCall(context.Background(), p, tg, "big", map[string]any{"bytes": 4 * hardCap})
			wantCode(t, err, backend.CodeDownstreamResultTooLarge)
			if after := pidOf(t, p, tg); after != before {
				t.Errorf("the server was replaced (pid %s, then %s); the session should have gone on", before, after)
			}
			res, _ := call(t, p, tg, "big", map[string]any{"bytes": hardCap - 4096})
			if !strings.Contains(res.Content[0].Text, `"spilled":true`) {
				t.Errorf("a result under the hard cap was not spilled: %.200s", res.Content[0].Text)
			}
			if st, _ := p.Status(tg.ServiceID); st.Health.Status != backend.HealthHealthy {
				t.Errorf("health = %+v after an oversized result, want healthy", st.Health)
			}
		})
	}
}

// TestSpillFolderCap: the spill folder never holds more than its cap; the oldest files go first.
func TestSpillFolderCap(t *testing.T) {
	home := t.TempDir()
	p, _ := newProxy(t, proxy.Options{Home: home, MaxResultBytes: 1024, ResultDirCap: 50_000})
	tg, _ := localTarget(t)
	var paths []string
	for range 8 {
		res, _ := call(t, p, tg, "big", map[string]any{"bytes": 20_000})
		var d struct{ Path string }
		if err := json.Unmarshal(res.StructuredContent, &d); err != nil || d.Path == "" {
			t.Fatalf("not spilled: %s", res.StructuredContent)
		}
		paths = append(paths, d.Path)
		time.Sleep(5 * time.Millisecond) // distinct modification times, so "oldest" is defined
	}
	var total int64
	entries, _ := os.ReadDir(filepath.Join(home, "tool-results"))
	for _, e := range entries {
		info, _ := e.Info()
		total += info.Size()
	}
	if total > 50_000 {
		t.Errorf("spill folder holds %d bytes, cap 50000", total)
	}
	if _, err := os.Stat(paths[len(paths)-1]); err != nil {
		t.Errorf("the newest result was deleted: %v", err)
	}
	if _, err := os.Stat(paths[0]); err == nil {
		t.Errorf("the oldest result was kept")
	}
}

// TestRepeatedTimeoutsMarkUnhealthy: one call timeout leaves the service's status alone,
// three in a row mark it unhealthy with a last_error that says so, and a success resets it.
func TestRepeatedTimeoutsMarkUnhealthy(t *testing.T) {
	p, _ := newProxy(t, proxy.Options{})
	tg := remoteTarget(peertest.Start(t, "http").URL, backend.TransportStreamableHTTP)
	tg.Timeout = 200 * time.Millisecond
	call(t, p, tg, "echo", map[string]any{"message": "warm"})
	status := func() backend.Health { st, _ := p.Status(tg.ServiceID); return st.Health }
	for i := 1; i <= 3; i++ {
		_, err := tryCall(context.Background(), p, tg, "sleep", map[string]any{"ms": 5000})
		wantCode(t, err, backend.CodeDownstreamTimeout)
		h := status()
		if i < 3 && h.Status != backend.HealthHealthy {
			t.Fatalf("after %d timeout(s) health = %+v, want still healthy", i, h)
		}
		if i == 3 && (h.Status != backend.HealthUnhealthy || !strings.Contains(h.LastError, "3 calls in a row timed out")) {
			t.Fatalf("after 3 timeouts health = %+v, want unhealthy saying so", h)
		}
	}
	call(t, p, tg, "echo", map[string]any{"message": "back"})
	if h := status(); h.Status != backend.HealthHealthy {
		t.Errorf("after a success health = %+v, want healthy", h)
	}
	// A caller giving up is not the service timing out.
	for range 3 {
		ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
		_, _ = tryCall(ctx, p, tg, "sleep", map[string]any{"ms": 5000})
		cancel()
	}
	if h := status(); h.Status != backend.HealthHealthy {
		t.Errorf("after callers gave up health = %+v, want healthy", h)
	}
}

// BenchmarkOversizedResultMemory asks the peer's big tool for 200 MB over stdio and Streamable
// HTTP and reports the peak Go heap and the peak RSS of this process while the proxy refuses it
// (hard cap 32 MiB by default). Peak RSS is reset before each call where Linux allows it.
func BenchmarkOversizedResultMemory(b *testing.B) {
	const size = 200 << 20
	local, _ := localTarget(b)
	targets := map[string]backend.Target{
		"stdio":           local,
		"streamable_http": remoteTarget(peertest.Start(b, "http").URL, backend.TransportStreamableHTTP),
	}
	for name, tg := range targets {
		b.Run(name, func(b *testing.B) {
			p := proxy.New(proxy.Options{Home: b.TempDir()})
			b.Cleanup(func() { _ = p.Close(context.Background()) })
			tg.Timeout = 2 * time.Minute
			args := json.RawMessage(`{"bytes":` + itoa(size) + `}`)
			for range b.N {
				runtime.GC()
				debug.FreeOSMemory()
				resetPeakRSS()
				peak := heapPeak(func() {
					_, err := p.CallTool(context.Background(), tg, "big", args)
					if backend.ErrorCode(err) != backend.CodeDownstreamResultTooLarge {
						b.Fatalf("err = %v, want DOWNSTREAM_RESULT_TOO_LARGE", err)
					}
				})
				b.ReportMetric(float64(peak)/(1<<20), "peak-heap-MiB")
				if rss, ok := peakRSS(); ok {
					b.ReportMetric(float64(rss)/(1<<20), "peak-rss-MiB")
				}
			}
		})
	}
}

// heapPeak samples the heap in use while fn runs and returns the highest value seen.
func heapPeak(fn func()) uint64 {
	var peak atomic.Uint64
	done := make(chan struct{})
	go func() {
		var ms runtime.MemStats
		for {
			runtime.ReadMemStats(&ms)
			if ms.HeapInuse > peak.Load() {
				peak.Store(ms.HeapInuse)
			}
			select {
			case <-done:
				return
			case <-time.After(2 * time.Millisecond):
			}
		}
	}()
	fn()
	close(done)
	return peak.Load()
}

// resetPeakRSS resets the process's peak RSS (VmHWM) on Linux; elsewhere it does nothing.
func resetPeakRSS() { _ = os.WriteFile("/proc/self/clear_refs", []byte("5"), 0) }

// peakRSS reads the process's peak RSS (VmHWM) in bytes, on Linux.
func peakRSS() (uint64, bool) {
	b, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return 0, false
	}
	for _, line := range strings.Split(string(b), "\n") {
		if v, ok := strings.CutPrefix(line, "VmHWM:"); ok {
			var kb uint64
			if _, err := fmt.Sscan(strings.TrimSuffix(strings.TrimSpace(v), " kB"), &kb); err == nil {
				return kb << 10, true
			}
		}
	}
	return 0, false
}

func itoa(n int) string { b, _ := json.Marshal(n); return string(b) }
