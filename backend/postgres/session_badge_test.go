package postgres_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/agent-deck/agent-deck/backend/postgres"
	"github.com/agent-deck/agent-deck/backend/postgres/pgtest"
)

// TestBadgeLevelCounts: the per-level live counts that OpenSession relies on stay equal to the
// live sessions through opens, terminations, idle expiry and deletes, so a level is never
// skipped while it has a free word nor picked once it is full.
func TestBadgeLevelCounts(t *testing.T) {
	t.Parallel()
	url := pgtest.NewDB(t)
	ctx := context.Background()
	st, err := postgres.Open(ctx, url)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(st.Close)
	conn, err := pgx.Connect(ctx, url)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = conn.Close(ctx) })
	check := func(when string) {
		t.Helper()
		var mismatches int
		err := conn.QueryRow(ctx, `
			SELECT count(*) FROM (
				SELECT level, live FROM mcp_badge_levels WHERE live > 0
				EXCEPT
				SELECT agent_deck_badge_level(badge), count(*)::integer FROM mcp_sessions
				WHERE terminated_at IS NULL GROUP BY 1) d`).Scan(&mismatches)
		if err != nil {
			t.Fatal(err)
		}
		var live, counted int
		_ = conn.QueryRow(ctx, `SELECT count(*) FROM mcp_sessions WHERE terminated_at IS NULL`).Scan(&live)
		_ = conn.QueryRow(ctx, `SELECT COALESCE(sum(live), 0) FROM mcp_badge_levels`).Scan(&counted)
		if mismatches != 0 || live != counted {
			t.Errorf("%s: %d live sessions, %d counted, %d level rows differ", when, live, counted, mismatches)
		}
	}
	pool := make([]string, 3)
	for i := range pool {
		pool[i] = fmt.Sprintf("w%c", 'a'+i)
	}
	old := time.Now().Add(-time.Hour)
	var ids []string
	for i := 0; i < 8; i++ {
		m := newSession(fmt.Sprintf("6f1c1a52-8a54-4a58-9d7e-0c39f4f1a%03d", i), "", old)
		if _, err := st.OpenSession(ctx, m, pool, 0); err != nil {
			t.Fatalf("open %d: %v", i, err)
		}
		ids = append(ids, m.ID)
	}
	check("after 8 opens over a pool of 3")
	var top string
	_ = conn.QueryRow(ctx, `SELECT badge FROM mcp_sessions WHERE id = $1`, ids[7]).Scan(&top)
	if top != "wa3" && top != "wb3" && top != "wc3" {
		t.Errorf("the 8th badge over a pool of 3 is %q, want a word+3", top)
	}
	mustOK(t, st.TerminateSession(ctx, ids[0], time.Now()))
	mustOK(t, st.TerminateSession(ctx, ids[0], time.Now()))
	check("after terminating one twice")
	m := newSession("6f1c1a52-8a54-4a58-9d7e-0c39f4f1a100", "", time.Now())
	if _, err := st.OpenSession(ctx, m, pool, 0); err != nil {
		t.Fatal(err)
	}
	if len(m.Badge) != 2 {
		t.Errorf("after freeing a plain word the next badge is %q, want that plain word", m.Badge)
	}
	check("after reopening at level 1")
	if n, err := st.ExpireSessions(ctx, time.Now().Add(-time.Minute)); err != nil || n != 7 {
		t.Fatalf("ExpireSessions = %d, %v; want 7", n, err)
	}
	check("after idle expiry")
	if _, err := conn.Exec(ctx, `DELETE FROM mcp_sessions`); err != nil {
		t.Fatal(err)
	}
	check("after deleting every session")
}
