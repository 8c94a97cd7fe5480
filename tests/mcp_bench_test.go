package tests

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/mcp"
	"github.com/pkoukk/tiktoken-go"
	tiktoken_loader "github.com/pkoukk/tiktoken-go-loader"

	"github.com/agent-deck/agent-deck/backend"
	"github.com/agent-deck/agent-deck/mcptools"
)

// mcpLatency is one side of the proxy benchmark: latencies and throughput of N calls.
type mcpLatency struct {
	p50, p99 time.Duration
	perSec   float64
}

// mcpMeasure runs n calls of op spread over the given clients (one goroutine each) and returns
// the latency percentiles and calls per second.
func mcpMeasure(tb testing.TB, clients []*client.Client, n int, op func(*client.Client) error) mcpLatency {
	tb.Helper()
	durations := make([]time.Duration, n)
	next := make(chan int, n)
	for i := 0; i < n; i++ {
		next <- i
	}
	close(next)
	var wg sync.WaitGroup
	errs := make(chan error, len(clients))
	start := time.Now()
	for _, c := range clients {
		wg.Add(1)
		go func(c *client.Client) {
			defer wg.Done()
			for i := range next {
				t0 := time.Now()
				if err := op(c); err != nil {
					errs <- err
					return
				}
				durations[i] = time.Since(t0)
			}
		}(c)
	}
	wg.Wait()
	return latencies(tb, durations, time.Since(start), errs)
}

// mcpMeasurePaced runs n calls of op spread over the given clients, each client starting one
// call every interval (staggered across clients) instead of back to back: the load of many
// sessions that each call now and then, as agents do between model turns. A call that starts late
// because the previous one ran long counts from when it was due, so that wait is not hidden.
func mcpMeasurePaced(tb testing.TB, clients []*client.Client, n int, every time.Duration, op func(*client.Client) error) mcpLatency {
	tb.Helper()
	durations := make([]time.Duration, n)
	var wg sync.WaitGroup
	errs := make(chan error, len(clients))
	start := time.Now()
	for ci, c := range clients {
		wg.Add(1)
		go func() {
			defer wg.Done()
			due := start.Add(every * time.Duration(ci) / time.Duration(len(clients)))
			for i := ci; i < n; i += len(clients) {
				t0 := due // late: the wait behind the previous call counts
				if d := time.Until(due); d > 0 {
					time.Sleep(d)
					t0 = time.Now() // on time: a timer waking late is not the server's
				}
				if err := op(c); err != nil {
					errs <- err
					return
				}
				durations[i] = time.Since(t0)
				due = due.Add(every)
			}
		}()
	}
	wg.Wait()
	return latencies(tb, durations, time.Since(start), errs)
}

// latencies ends a measurement: the first error fails it, else the percentiles of durations
// and the calls per second over wall.
func latencies(tb testing.TB, durations []time.Duration, wall time.Duration, errs chan error) mcpLatency {
	tb.Helper()
	close(errs)
	for err := range errs {
		tb.Fatal(err)
	}
	slices.Sort(durations)
	return mcpLatency{p50: percentile(durations, 50), p99: percentile(durations, 99),
		perSec: float64(len(durations)) / wall.Seconds()}
}

// mcpClients opens k sessions to url with the given headers.
func mcpClients(tb testing.TB, url string, headers map[string]string, k int) []*client.Client {
	tb.Helper()
	out := make([]*client.Client, k)
	for i := range out {
		out[i] = dialMCP(tb, url, headers, "").c
	}
	return out
}

func mcpEcho(ctx context.Context, c *client.Client, name string, args map[string]any) error {
	req := mcp.CallToolRequest{}
	req.Params.Name, req.Params.Arguments = name, args
	res, err := c.CallTool(ctx, req)
	if err != nil {
		return err
	}
	if res.IsError {
		return fmt.Errorf("%s failed: %s", name, mcpText(res))
	}
	return nil
}

// boundDeckP99TargetMS is the p99 of get_bound_deck on 100 cards at 16 sessions, through /mcp.
const boundDeckP99TargetMS = 5

// sessionPace is how often each of 16 paced sessions calls: 320 calls/s in all, a fifth of what
// two cores serve and far more than 16 agents ask for between model turns (seconds each).
const sessionPace = 50 * time.Millisecond

// BenchmarkMCPBoundDeck measures get_bound_deck on a deck of 100 cards under 16 concurrent
// sessions through HTTP to /mcp. "paced": each session calls every 50 ms, and the p99 is held
// to its target. "saturated": the sessions call back to back, which measures how many calls
// the machine serves; its latency is the queue that load builds (16 calls in flight divided by
// the calls per second), so it carries no latency target.
func BenchmarkMCPBoundDeck(b *testing.B) {
	s := startMCPStack(b, mcpStackOptions{})
	seedDeck100(b, s.svc, s.adminCtx())
	clients := mcpClients(b, s.URL+"/mcp", map[string]string{"Authorization": "Bearer " + s.token(backend.ScopeAgent)}, 16)
	ctx := context.Background()
	for _, c := range clients {
		if err := mcpEcho(ctx, c, "bind_workspace", map[string]any{"workspaceRoot": "/b", "deckId": "hundred"}); err != nil {
			b.Fatal(err)
		}
	}
	op := func(c *client.Client) error { return mcpEcho(ctx, c, "get_bound_deck", nil) }
	mcpMeasure(b, clients, 32, op)
	b.Run("paced/16-sessions", func(b *testing.B) {
		r := mcpMeasurePaced(b, clients, b.N, sessionPace, op)
		b.ReportMetric(ms(r.p50), "p50-ms")
		b.ReportMetric(ms(r.p99), "p99-ms")
		b.ReportMetric(boundDeckP99TargetMS, "p99-ms-max")
		b.ReportMetric(r.perSec, "calls/s")
	})
	b.Run("saturated/16-sessions", func(b *testing.B) {
		r := mcpMeasure(b, clients, max(b.N, 100), op)
		b.ReportMetric(ms(r.p50), "p50-ms")
		b.ReportMetric(ms(r.p99), "p99-ms")
		b.ReportMetric(r.perSec, "calls/s")
	})
}

// mcpRawOpen initializes a session over plain HTTP and returns its id.
func mcpRawOpen(tb testing.TB, hc *http.Client, url, tok string) string {
	tb.Helper()
	return mcpRawInitialize(tb, hc, url, tok, mcpInitializeBody)
}

// mcpRawInitialize sends the initialize request body, then notifications/initialized, and
// returns the new session's id.
func mcpRawInitialize(tb testing.TB, hc *http.Client, url, tok, body string) string {
	tb.Helper()
	req, _ := http.NewRequest(http.MethodPost, url, strings.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	req.Header.Set("Authorization", "Bearer "+tok)
	resp, err := hc.Do(req)
	if err != nil {
		tb.Fatal(err)
	}
	resp.Body.Close()
	id := resp.Header.Get("Mcp-Session-Id")
	if resp.StatusCode != 200 || id == "" {
		tb.Fatalf("initialize: %s", resp.Status)
	}
	mcpRawPost(tb, hc, url, tok, id, `{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	return id
}

func mcpRawPost(tb testing.TB, hc *http.Client, url, tok, id, body string) (int, string) {
	tb.Helper()
	req, _ := http.NewRequest(http.MethodPost, url, strings.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	req.Header.Set("Authorization", "Bearer "+tok)
	req.Header.Set("Mcp-Session-Id", id)
	req.Header.Set("Mcp-Protocol-Version", "2025-06-18")
	resp, err := hc.Do(req)
	if err != nil {
		tb.Fatal(err)
	}
	defer resp.Body.Close()
	var sb strings.Builder
	buf := make([]byte, 4096)
	for {
		k, err := resp.Body.Read(buf)
		sb.Write(buf[:k])
		if err != nil {
			break
		}
	}
	return resp.StatusCode, sb.String()
}

// BenchmarkMCPToolListSize reports the bytes and o200k tokens of each profile's tools array,
// exactly as /mcp serves it.
func BenchmarkMCPToolListSize(b *testing.B) {
	tiktoken.SetBpeLoader(tiktoken_loader.NewOfflineLoader())
	enc, err := tiktoken.GetEncoding("o200k_base")
	if err != nil {
		b.Fatal(err)
	}
	s := startMCPStack(b, mcpStackOptions{Profile: "legacy"})
	tok := s.token(backend.ScopeAgent)
	for _, p := range mcptools.Profiles {
		b.Run(string(p), func(b *testing.B) {
			var raw []byte
			for i := 0; i < b.N; i++ {
				raw = mcpServedTools(b, s, tok, p)
			}
			b.ReportMetric(float64(len(raw)), "bytes")
			b.ReportMetric(float64(len(enc.Encode(string(raw), nil, nil))), "o200k-tokens")
		})
	}
}

// mcpServedTools returns the raw tools array a new session of profile p is served.
func mcpServedTools(tb testing.TB, s *mcpStack, tok string, p mcptools.Profile) []byte {
	tb.Helper()
	url := s.URL + "/mcp?profile=" + string(p)
	id := mcpRawOpen(tb, http.DefaultClient, url, tok)
	status, out := mcpRawPost(tb, http.DefaultClient, url, tok, id, mcpToolsListBody)
	var r struct {
		Result struct {
			Tools json.RawMessage `json:"tools"`
		} `json:"result"`
	}
	if err := json.Unmarshal([]byte(out), &r); status != 200 || err != nil {
		tb.Fatalf("tools/list: %d %s", status, out)
	}
	return r.Result.Tools
}
