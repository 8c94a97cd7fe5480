package peertest

import (
	"context"
	"fmt"
	"net"
	"net/http"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/client/transport"
	"github.com/mark3labs/mcp-go/mcp"
)

// Stats are one call path's latencies and throughput at one concurrency.
type Stats struct {
	P50, P99 time.Duration
	PerSec   float64
}

// Measure runs n calls of op spread over workers goroutines, timing each.
func Measure(tb testing.TB, workers, n int, op func(context.Context) error) Stats {
	tb.Helper()
	lat := make([]time.Duration, n)
	next := make(chan int, n)
	for i := range n {
		next <- i
	}
	close(next)
	var wg sync.WaitGroup
	var once sync.Once
	var firstErr error
	start := time.Now()
	for range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range next {
				t0 := time.Now()
				if err := op(context.Background()); err != nil {
					once.Do(func() { firstErr = err })
					return
				}
				lat[i] = time.Since(t0)
			}
		}()
	}
	wg.Wait()
	elapsed := time.Since(start)
	if firstErr != nil {
		tb.Fatal(firstErr)
	}
	slices.Sort(lat)
	at := func(p float64) time.Duration { return lat[int(float64(len(lat)-1)*p/100)] }
	return Stats{P50: at(50), P99: at(99), PerSec: float64(n) / elapsed.Seconds()}
}

// Path is one way of making the same call, for side-by-side benchmarks.
type Path struct {
	Name string
	Call func(context.Context) error
}

// Compare runs every path at each concurrency as sub-benchmarks (after a warm-up), reports
// p50-ms, p99-ms and calls/s, and returns a table of each path against the first one.
func Compare(b *testing.B, paths []Path, concurrency []int) string {
	for _, p := range paths { // connections, tool lists, compiled schemas
		Measure(b, 4, 200, p.Call)
	}
	results := map[string]Stats{}
	for _, workers := range concurrency {
		for _, p := range paths {
			key := fmt.Sprintf("%s/c%d", p.Name, workers)
			b.Run(key, func(b *testing.B) {
				st := Measure(b, workers, max(b.N, workers), p.Call)
				b.ReportMetric(ms(st.P50), "p50-ms")
				b.ReportMetric(ms(st.P99), "p99-ms")
				b.ReportMetric(st.PerSec, "calls/s")
				results[key] = st
			})
		}
	}
	var sb strings.Builder
	fmt.Fprintf(&sb, "\n%-8s  conc   p50 ms  (vs %s)    p99 ms  (vs %[2]s)    calls/s  (x %[2]s)\n", "path", paths[0].Name)
	for _, workers := range concurrency {
		base := results[fmt.Sprintf("%s/c%d", paths[0].Name, workers)]
		for _, p := range paths {
			s, ok := results[fmt.Sprintf("%s/c%d", p.Name, workers)]
			if !ok || base.PerSec == 0 {
				continue
			}
			fmt.Fprintf(&sb, "%-8s  %4d  %7.3f  (%+7.3f)   %7.3f  (%+7.3f)   %7.0f  (%.2f)\n", p.Name, workers,
				ms(s.P50), ms(s.P50)-ms(base.P50), ms(s.P99), ms(s.P99)-ms(base.P99), s.PerSec, s.PerSec/base.PerSec)
		}
	}
	return sb.String()
}

func ms(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }

// DirectClient is an mcp-go client straight to url, pinned to 2025-11-25, with the same HTTP
// pool settings as the proxy, so a comparison measures the proxy and nothing else.
func DirectClient(tb testing.TB, url string) *client.Client {
	tb.Helper()
	httpc := &http.Client{Transport: &http.Transport{
		DialContext:         (&net.Dialer{Timeout: 10 * time.Second}).DialContext,
		MaxIdleConns:        128,
		MaxIdleConnsPerHost: 128,
		IdleConnTimeout:     90 * time.Second,
	}}
	tr, err := transport.NewStreamableHTTP(url, transport.WithHTTPBasicClient(httpc))
	if err != nil {
		tb.Fatal(err)
	}
	c := client.NewClient(tr, client.WithProtocolVersion("2025-11-25"))
	ctx := context.Background()
	if err := c.Start(ctx); err != nil {
		tb.Fatal(err)
	}
	req := mcp.InitializeRequest{}
	req.Params.ProtocolVersion = "2025-11-25"
	req.Params.ClientInfo = mcp.Implementation{Name: "bench", Version: "1"}
	if _, err := c.Initialize(ctx, req); err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { _ = c.Close() })
	return c
}

// EchoRequest is the echo call both sides of a comparison make.
func EchoRequest() mcp.CallToolRequest {
	req := mcp.CallToolRequest{}
	req.Params.Name = "echo"
	req.Params.Arguments = map[string]any{"message": "bench"}
	return req
}
