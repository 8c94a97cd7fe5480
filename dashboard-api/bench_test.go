package dashboardapi

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"slices"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/agent-deck/agent-deck/backend"
	"github.com/agent-deck/agent-deck/backend/core"
)

// benchClients is the number of concurrent clients of the snapshot benchmarks.
const benchClients = 16

// snapshotP99TargetMS is the p99 a deck snapshot of 100 cards may take at 16 clients, over HTTP.
const snapshotP99TargetMS = 5

// clientPace is how often each of the 16 paced clients asks: 320 requests/s in all.
const clientPace = 50 * time.Millisecond

// BenchmarkDeckSnapshot reads a deck of 100 linked cards with 16 concurrent clients through REST
// (GET /api/v1/decks/{deck}/snapshot over loopback HTTP, the hop the dashboard pays for) and
// through the service layer alone as a component figure (a cache lookup once warm; no
// end-to-end target). Over REST, "paced" clients each ask every 50 ms and the p99 is held to its
// target; "saturated" clients ask back to back, which measures requests per second, and their
// latency is the queue that load builds (16 in flight divided by the rate), without a target.
func BenchmarkDeckSnapshot(b *testing.B) {
	s := newTestServer(b, Options{})
	seedBenchDeck(b, s, 100)
	admin := backend.WithActor(context.Background(), backend.Actor{Scope: backend.ScopeAdmin, Kind: backend.ActorUser})

	b.Run(fmt.Sprintf("component-service/clients=%d", benchClients), func(b *testing.B) {
		runConcurrent(b, 0, func() error {
			snap, err := s.svc.DeckSnapshot(admin, "Bench")
			if err == nil && len(snap.Services)+len(snap.Credentials)+len(snap.Playbooks) != 100 {
				err = fmt.Errorf("snapshot has the wrong number of cards")
			}
			return err
		})
	})
	get := func() error {
		req, _ := http.NewRequest(http.MethodGet, s.url+"/api/v1/decks/Bench/snapshot", nil)
		req.Header.Set("Authorization", "Bearer "+s.admin)
		resp, err := s.api.HTTP.Do(req)
		if err != nil {
			return err
		}
		defer resp.Body.Close()
		if _, err := io.Copy(io.Discard, resp.Body); err != nil {
			return err
		}
		if resp.StatusCode != http.StatusOK {
			return fmt.Errorf("status %d", resp.StatusCode)
		}
		return nil
	}
	b.Run(fmt.Sprintf("rest-paced/clients=%d", benchClients), func(b *testing.B) {
		runPaced(b, clientPace, snapshotP99TargetMS, get)
	})
	b.Run(fmt.Sprintf("rest-saturated/clients=%d", benchClients), func(b *testing.B) {
		runConcurrent(b, 0, get)
	})
}

// runPaced runs op b.N times from benchClients goroutines, each starting one call every interval
// (staggered across clients), and reports as runConcurrent does. A call that starts late because
// the previous one ran long counts from when it was due, so that wait is not hidden.
func runPaced(b *testing.B, every time.Duration, p99TargetMS float64, op func() error) {
	durations := make([]time.Duration, b.N)
	var failed atomic.Value
	var wg sync.WaitGroup
	b.ResetTimer()
	start := time.Now()
	for c := range benchClients {
		wg.Go(func() {
			due := start.Add(every * time.Duration(c) / benchClients)
			for i := c; i < b.N; i += benchClients {
				t0 := due // late: the wait behind the previous call counts
				if d := time.Until(due); d > 0 {
					time.Sleep(d)
					t0 = time.Now() // on time: a timer waking late is not the server's
				}
				if err := op(); err != nil {
					failed.CompareAndSwap(nil, err)
				}
				durations[i] = time.Since(t0)
				due = due.Add(every)
			}
		})
	}
	wg.Wait()
	report(b, durations, time.Since(start), p99TargetMS, &failed)
}

// runConcurrent runs op b.N times from benchClients goroutines, timing each call, and reports
// p50, p99 (ms) and calls per second, and p99TargetMS as "p99-ms-max" unless it is 0.
func runConcurrent(b *testing.B, p99TargetMS float64, op func() error) {
	durations := make([]time.Duration, b.N)
	var next atomic.Int64
	var failed atomic.Value
	var wg sync.WaitGroup
	b.ResetTimer()
	start := time.Now()
	for range benchClients {
		wg.Go(func() {
			for {
				i := next.Add(1) - 1
				if i >= int64(b.N) {
					return
				}
				t0 := time.Now()
				if err := op(); err != nil {
					failed.CompareAndSwap(nil, err)
				}
				durations[i] = time.Since(t0)
			}
		})
	}
	wg.Wait()
	report(b, durations, time.Since(start), p99TargetMS, &failed)
}

// report ends a concurrent benchmark: p50, p99 (ms), calls per second, and p99TargetMS as
// "p99-ms-max" unless it is 0.
func report(b *testing.B, durations []time.Duration, elapsed time.Duration, p99TargetMS float64, failed *atomic.Value) {
	b.StopTimer()
	if err, _ := failed.Load().(error); err != nil {
		b.Fatalf("a call failed: %v", err)
	}
	slices.Sort(durations)
	ms := func(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }
	b.ReportMetric(ms(durations[len(durations)/2]), "p50-ms")
	b.ReportMetric(ms(durations[min(len(durations)-1, len(durations)*99/100)]), "p99-ms")
	b.ReportMetric(float64(b.N)/elapsed.Seconds(), "calls/s")
	if p99TargetMS > 0 {
		b.ReportMetric(p99TargetMS, "p99-ms-max")
	}
}

// seedBenchDeck creates deck "Bench" with n cards spread over the three types.
func seedBenchDeck(b *testing.B, s *testServer, n int) {
	b.Helper()
	s.must(b, http.StatusCreated, "POST", "/api/v1/decks", map[string]any{"name": "Bench"}, nil)
	for i := range n {
		var typ, id string
		switch i % 3 {
		case 0:
			var sc backend.ServiceCard
			s.must(b, http.StatusCreated, "POST", "/api/v1/services", map[string]any{
				"name": fmt.Sprintf("svc-%03d", i), "type": "mcp", "url": fmt.Sprintf("http://127.0.0.1:9/mcp/%d", i),
				"description": "a downstream server for the benchmark"}, &sc)
			typ, id = "service", sc.ID
		case 1:
			var c backend.Credential
			s.must(b, http.StatusCreated, "POST", "/api/v1/credentials", map[string]any{
				"label": fmt.Sprintf("Key %03d", i), "value": "v", "tags": []string{"bench"}}, &c)
			typ, id = "credential", c.ID
		default:
			var p core.PlaybookResult
			s.must(b, http.StatusCreated, "POST", "/api/v1/playbooks", map[string]any{
				"title": fmt.Sprintf("Runbook %03d", i), "body": "Steps.", "triggers": []string{fmt.Sprintf("run book %d", i)},
				"auto_detect_dependencies": false}, &p)
			typ, id = "playbook", p.ID
		}
		s.must(b, http.StatusOK, "POST", "/api/v1/decks/Bench/cards", map[string]any{"card_type": typ, "card_id": id}, nil)
	}
}
