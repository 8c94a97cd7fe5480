package tests

import (
	"fmt"
	"net/http"
	"os"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/agent-deck/agent-deck/backend/postgres/pgtest"
)

// Large results in parallel: the memory of downstream results that serve holds at once is
// bounded by --result-memory, whatever the number of calls (proxy/budget.go); calls over it
// wait, so the service's timeout is raised to let all twenty finish on a slow machine.
const (
	parallelResults    = 20
	parallelResultSize = 30_000_000
	// benchResultMemory is the byte budget the benchmark runs serve with (the default).
	benchResultMemory = 128 << 20
)

// BenchmarkServeParallelLargeResults starts the real agent-deck binary and a Go peer over
// Streamable HTTP, and makes 20 REST calls at once whose results are 30 MB each (each is spilled
// to a file). It reports serve's peak resident set (VmHWM, reset after a warm-up call) beside its
// target: twice the result byte budget plus the resident set before the burst.
func BenchmarkServeParallelLargeResults(b *testing.B) {
	srv := startServeBench(b, "AGENT_DECK_DATABASE_URL="+pgtest.NewDB(b),
		"AGENT_DECK_RESULT_MEMORY="+strconv.Itoa(benchResultMemory))
	peer := startHTTPPeer(b)
	srv.rest(b, http.StatusCreated, "POST", "/api/v1/services",
		`{"name":"big","type":"mcp","url":"`+peer+`","transport":"streamable_http","timeout_seconds":600}`, nil)
	call := func(bytes int) error {
		a := srv.api().Do(b, srv.token, "POST", "/api/v1/services/big/call",
			map[string]any{"tool_name": "big", "arguments": map[string]any{"bytes": bytes}})
		if a.Status != http.StatusOK || !strings.Contains(string(a.Body), `"spilled":true`) && bytes > 1<<20 {
			return fmt.Errorf("big %d: %d %.300s", bytes, a.Status, a.Body)
		}
		return nil
	}
	if err := call(parallelResultSize); err != nil { // connect, list the tools, warm the pools
		b.Fatal(err)
	}
	pid := srv.cmd.Process.Pid
	var peak, baseline int64
	b.ResetTimer()
	for range b.N {
		b.StopTimer()
		baseline = vmRSS(b, pid)
		resetPeak(b, pid)
		b.StartTimer()
		var wg sync.WaitGroup
		errs := make(chan error, parallelResults)
		for range parallelResults {
			wg.Go(func() {
				if err := call(parallelResultSize); err != nil {
					errs <- err
				}
			})
		}
		wg.Wait()
		close(errs)
		for err := range errs {
			b.Fatal(err)
		}
		peak = max(peak, vmHWM(b, pid))
	}
	b.StopTimer()
	b.ReportMetric(float64(peak)/1024, "peak-rss-MiB")
	b.ReportMetric(float64(2*benchResultMemory>>20)+float64(baseline)/1024, "peak-rss-MiB-max")
	b.ReportMetric(float64(baseline)/1024, "baseline-rss-MiB")
}

// resetPeak resets the peak resident set (VmHWM) of process pid.
func resetPeak(tb testing.TB, pid int) {
	tb.Helper()
	if err := os.WriteFile(fmt.Sprintf("/proc/%d/clear_refs", pid), []byte("5"), 0); err != nil {
		tb.Skipf("cannot reset the server's peak memory: %v", err)
	}
}

// vmHWM reads the peak resident set of process pid in KB.
func vmHWM(tb testing.TB, pid int) int64 {
	tb.Helper()
	raw, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		tb.Skipf("no /proc to read the server's memory from: %v", err)
	}
	for _, line := range strings.Split(string(raw), "\n") {
		if v, ok := strings.CutPrefix(line, "VmHWM:"); ok {
			var kb int64
			if _, err := fmt.Sscan(strings.TrimSuffix(strings.TrimSpace(v), " kB"), &kb); err == nil {
				return kb
			}
		}
	}
	tb.Fatalf("no VmHWM in /proc/%d/status", pid)
	return 0
}
