package tests

import (
	"context"
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/agent-deck/agent-deck/backend"
)

// BenchmarkOpenSession measures opening an MCP session as an agent does, an initialize POST to
// /mcp on a real server (badge picked, row written, the token's cap enforced), with no other
// live session and with 2,000. Target: the p50 at 2,000 live sessions within 2× of the p50 at
// none, i.e. flat up to noise; opening used to list every live session to pick a badge, which
// made it about 46×. Each opened session is ended again with a DELETE, outside the timing, so
// the live count stays put.
func BenchmarkOpenSession(b *testing.B) {
	s := startMCPStack(b, mcpStackOptions{})
	tok := s.token(backend.ScopeAgent)
	url := s.URL + "/mcp"
	hc := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: 4}}
	// Both phases start from vacuumed, analyzed tables, so background maintenance after the
	// seeding does not land in one phase only.
	settle := func() { execSQL(b, s.dbURL, `VACUUM ANALYZE mcp_sessions, mcp_badge_levels`) }
	measure := func(b *testing.B) time.Duration {
		b.Helper()
		d := make([]time.Duration, 0, b.N)
		for i := 0; i < b.N; i++ {
			req, _ := http.NewRequest(http.MethodPost, url, strings.NewReader(mcpInitializeBody))
			req.Header.Set("Content-Type", "application/json")
			req.Header.Set("Accept", "application/json, text/event-stream")
			req.Header.Set("Authorization", "Bearer "+tok)
			t0 := time.Now()
			resp, err := hc.Do(req)
			if err != nil {
				b.Fatal(err)
			}
			resp.Body.Close()
			d = append(d, time.Since(t0))
			id := resp.Header.Get("Mcp-Session-Id")
			if resp.StatusCode != http.StatusOK || id == "" {
				b.Fatalf("initialize: %s", resp.Status)
			}
			del, _ := http.NewRequest(http.MethodDelete, url, nil)
			del.Header.Set("Authorization", "Bearer "+tok)
			del.Header.Set("Mcp-Session-Id", id)
			if resp, err = hc.Do(del); err != nil {
				b.Fatal(err)
			}
			resp.Body.Close()
		}
		slices.Sort(d)
		return percentile(d, 50)
	}
	const target = 2.0
	var atZero time.Duration
	settle()
	b.Run("live=0", func(b *testing.B) {
		atZero = measure(b)
		b.ReportMetric(float64(atZero.Microseconds()), "p50-µs")
	})
	ctx := backend.WithActor(context.Background(), backend.SystemActor)
	for i := 0; i < 2000; i++ {
		if _, err := s.svc.OpenSession(ctx, backend.OpenSessionInput{Profile: "standard"}); err != nil {
			b.Fatal(err)
		}
	}
	settle()
	b.Run("live=2000", func(b *testing.B) {
		p50 := measure(b)
		b.ReportMetric(float64(p50.Microseconds()), "p50-µs")
		if atZero > 0 {
			b.ReportMetric(float64(p50)/float64(atZero), "x-of-live0")
			b.ReportMetric(target, "x-of-live0-max")
		}
	})
}
