package tests

import (
	"context"
	"fmt"
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/agent-deck/agent-deck/backend"
	"github.com/agent-deck/agent-deck/backend/core"
	"github.com/agent-deck/agent-deck/cli"
)

// openSessionFlatTarget bounds the p50 of opening a session at the most live sessions measured
// over the p50 at none: flat up to noise.
const openSessionFlatTarget = 1.5

// BenchmarkOpenSession measures opening an MCP session as an agent does, an initialize POST to
// /mcp on a real server (badge picked, row written, the token's cap enforced), with 0, 1,000 and
// 10,000 other live sessions held by other tokens. Target: the p50 at 10,000 live within 1.5× of
// the p50 at none; opening used to list every live session to pick a badge, which made it about
// 46× at 2,000. Each opened session is ended again with a DELETE, outside the timing, so the
// live count stays put. The live sessions are seeded in bulk into the one database every row
// shares.
func BenchmarkOpenSession(b *testing.B) { benchOpenSession(b, false) }

// BenchmarkOpenSessionOneToken is BenchmarkOpenSession with every live session held by the
// token that opens the next one (its cap raised above them): the cap's check used to read all of
// the token's sessions, which made opening 2.6× slower at 10,000. Same target.
func BenchmarkOpenSessionOneToken(b *testing.B) { benchOpenSession(b, true) }

func benchOpenSession(b *testing.B, oneToken bool) {
	s := startMCPStack(b, mcpStackOptions{Serve: func(c *cli.ServeConfig) { c.MaxSessionsPerToken = 20000 }})
	created, err := s.svc.CreateToken(s.adminCtx(), core.TokenInput{Name: "bench-open", Scope: backend.ScopeAgent})
	if err != nil {
		b.Fatal(err)
	}
	tok, holder := created.Secret, ""
	if oneToken {
		holder = created.ID
	}
	url := s.URL + "/mcp"
	hc := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: 4}}
	// Every phase starts from vacuumed, analyzed tables, so background maintenance after the
	// seeding does not land in one phase only.
	settle := func() { execSQL(b, s.dbURL, `VACUUM ANALYZE mcp_sessions, mcp_badge_levels, mcp_token_live`) }
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
	var atZero time.Duration
	for _, live := range []int{0, 1000, 10000} {
		seedLiveSessions(b, s, live, holder)
		settle()
		b.Run(fmt.Sprintf("live=%d", live), func(b *testing.B) {
			p50 := measure(b)
			b.ReportMetric(float64(p50.Microseconds()), "p50-µs")
			if live == 0 {
				atZero = p50
			} else if atZero > 0 {
				b.ReportMetric(float64(p50)/float64(atZero), "x-of-live0")
				if live == 10000 {
					b.ReportMetric(openSessionFlatTarget, "x-of-live0-max")
				}
			}
		})
	}
}

// seedLiveSessions tops the live MCP sessions of s up to n (a multiple of the badge pool, or 0),
// held by the token with id holder ("" for none). The first pool's worth is opened through the
// service, which draws every plain badge word; the levels above are written in one INSERT that
// gives each word the suffixes 2, 3, …, as opening them one by one would, so the table and the
// level (and token) counts look as after n real opens.
func seedLiveSessions(tb testing.TB, s *mcpStack, n int, holder string) {
	tb.Helper()
	if n == 0 {
		return
	}
	if n%core.BadgePoolSize != 0 {
		tb.Fatalf("seed %d live sessions: want a multiple of the badge pool (%d)", n, core.BadgePoolSize)
	}
	live := int(execSQL(tb, s.dbURL, `SELECT 1 FROM mcp_sessions WHERE terminated_at IS NULL`))
	if live == 0 {
		ctx := backend.WithActor(context.Background(), backend.SystemActor)
		if holder != "" {
			ctx = backend.WithActor(context.Background(), backend.Actor{TokenID: holder, Scope: backend.ScopeAgent, Kind: backend.ActorAgent})
		}
		for range core.BadgePoolSize {
			if _, err := s.svc.OpenSession(ctx, core.OpenSessionInput{Profile: "standard"}); err != nil {
				tb.Fatal(err)
			}
		}
		live = core.BadgePoolSize
	}
	if live%core.BadgePoolSize != 0 || live > n {
		tb.Fatalf("%d live sessions before seeding %d", live, n)
	}
	execSQL(tb, s.dbURL, `
		INSERT INTO mcp_sessions (id, badge, profile, scope, token_id)
		SELECT 'seed-' || w.badge || '-' || l, w.badge || l, 'standard', 'agent', NULLIF($3, '')::uuid
		FROM (SELECT badge FROM mcp_sessions WHERE terminated_at IS NULL AND badge !~ '[0-9]$') w,
			generate_series($1::int, $2::int) l`, live/core.BadgePoolSize+1, n/core.BadgePoolSize, holder)
	if got := int(execSQL(tb, s.dbURL, `SELECT 1 FROM mcp_sessions WHERE terminated_at IS NULL`)); got != n {
		tb.Fatalf("seeded %d live sessions, want %d", got, n)
	}
}
