package tests

import (
	"context"
	"fmt"
	"net/http"
	"strings"
	"sync"
	"testing"

	"github.com/mark3labs/mcp-go/client"

	"github.com/agent-deck/agent-deck/backend/postgres/pgtest"
)

// The growth curves of the README's performance section come from these benchmarks and from
// BenchmarkSnapshotSize (snapshot bytes and tokens by deck size) and BenchmarkOpenSession (open
// time by live sessions). Each reports its values as metrics of sub-benchmarks named
// "<parameter>=<value>"; tests/benchtable turns them into tables. They carry no targets of their
// own: the targets at the points that have one are in the other benchmarks.

// BenchmarkGrowthCallSessions measures a proxied call (call_service_tool of the Go peer's echo,
// a real downstream process over HTTP) through the real agent-deck binary at 1, 16 and 100
// concurrent sessions of a Go client: latency at p50 and p99, calls per second, and the CPU time
// the server process spends per call (utime+stime from /proc).
func BenchmarkGrowthCallSessions(b *testing.B) {
	sizes := []int{1, 16, 100}
	dbURL := pgtest.NewDB(b)
	srv := startServeBench(b, "AGENT_DECK_DATABASE_URL="+dbURL,
		fmt.Sprintf("AGENT_DECK_MAX_SESSIONS_PER_TOKEN=%d", 2*sizes[len(sizes)-1]))
	peer := startHTTPPeer(b)
	var svc struct{ ID string }
	srv.rest(b, http.StatusCreated, "POST", "/api/v1/decks", `{"name":"growth"}`, nil)
	srv.rest(b, http.StatusCreated, "POST", "/api/v1/services",
		fmt.Sprintf(`{"name":"peer","type":"mcp","url":%q}`, peer), &svc)
	srv.rest(b, http.StatusOK, "POST", "/api/v1/decks/growth/cards",
		fmt.Sprintf(`{"card_type":"service","card_id":%q}`, svc.ID), nil)
	var tok struct{ Secret string }
	srv.rest(b, http.StatusCreated, "POST", "/api/v1/tokens", `{"name":"bench","scope":"agent"}`, &tok)
	ctx := context.Background()
	clients := mcpClients(b, srv.url+"/mcp", map[string]string{"Authorization": "Bearer " + tok.Secret}, sizes[len(sizes)-1])
	for _, c := range clients {
		if err := mcpEcho(ctx, c, "bind_workspace", map[string]any{"workspaceRoot": "/growth", "deckId": "growth"}); err != nil {
			b.Fatal(err)
		}
	}
	echo := func(c *client.Client) error {
		return mcpEcho(ctx, c, "call_service_tool", map[string]any{"serviceId": svc.ID, "toolName": "echo",
			"arguments": map[string]any{"message": "bench"}})
	}
	for _, k := range sizes {
		b.Run(fmt.Sprintf("sessions=%d", k), func(b *testing.B) {
			mcpMeasure(b, clients[:k], 2*k, echo) // warm every session's connection
			n := max(b.N, 500)
			b.ResetTimer()
			before, pg := processCPU(b, srv.cmd.Process.Pid), startPGCPU(b, dbURL)
			r := mcpMeasure(b, clients[:k], n, echo)
			after, pgTicks := processCPU(b, srv.cmd.Process.Pid), pg.since()
			b.StopTimer()
			b.ReportMetric(ms(r.p50), "p50-ms")
			b.ReportMetric(ms(r.p99), "p99-ms")
			b.ReportMetric(r.perSec, "calls/s")
			b.ReportMetric(float64(after-before)*1000/clockTicks/float64(n), "hub-cpu-ms/call")
			b.ReportMetric(float64(after-before+pgTicks)*1000/clockTicks/float64(n), "hub+pg-cpu-ms/call")
		})
	}
}

// BenchmarkGrowthIdleSessionRSS starts the real agent-deck binary, opens bound MCP sessions over
// plain HTTP (no client state kept) up to 1,000 and then 10,000, and reports the server process's
// resident set (VmRSS) at each count and its growth per session over the set before the first
// session. The sessions are opened once, by 8 workers, whatever b.N and -count. At 10,000
// sessions the growth per session has its target.
func BenchmarkGrowthIdleSessionRSS(b *testing.B) {
	sizes := []int{1000, 10000}
	last := sizes[len(sizes)-1]
	srv := startServeBench(b, "AGENT_DECK_DATABASE_URL="+pgtest.NewDB(b),
		fmt.Sprintf("AGENT_DECK_MAX_SESSIONS_PER_TOKEN=%d", 2*last))
	srv.rest(b, http.StatusCreated, "POST", "/api/v1/decks", `{"name":"mem"}`, nil)
	var tok struct{ Secret string }
	srv.rest(b, http.StatusCreated, "POST", "/api/v1/tokens", `{"name":"bench","scope":"agent"}`, &tok)
	hc := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: 8}}
	open := func(tb testing.TB) {
		id := mcpRawOpen(tb, hc, srv.url+"/mcp", tok.Secret)
		body := `{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"bind_workspace",` +
			`"arguments":{"workspaceRoot":"/mem","deckId":"mem"}}}`
		if status, out := mcpRawPost(tb, hc, srv.url+"/mcp", tok.Secret, id, body); status != 200 || strings.Contains(out, `"isError":true`) {
			tb.Fatalf("bind: %d %s", status, out)
		}
	}
	openN := func(n int) {
		const workers = 8
		var wg sync.WaitGroup
		for w := range workers {
			wg.Add(1)
			go func() {
				defer wg.Done()
				for i := w; i < n; i += workers {
					open(b)
				}
			}()
		}
		wg.Wait()
	}
	openN(20) // warm up pools and caches
	base := vmRSS(b, srv.cmd.Process.Pid)
	opened := 0
	for _, n := range sizes {
		openN(n - opened)
		opened = n
		rss := vmRSS(b, srv.cmd.Process.Pid)
		b.Run(fmt.Sprintf("sessions=%d", n), func(b *testing.B) {
			for b.Loop() {
				rss = vmRSS(b, srv.cmd.Process.Pid)
			}
			b.ReportMetric(float64(rss)/1024, "server-rss-MiB")
			b.ReportMetric(float64(rss-base)/float64(n), "KB/session")
			if n == last {
				b.ReportMetric(idleSessionTargetKB, "KB/session-max")
			}
		})
	}
}
