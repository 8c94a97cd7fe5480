package postgres_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/agent-deck/agent-deck/backend"
	"github.com/agent-deck/agent-deck/backend/postgres"
	"github.com/agent-deck/agent-deck/backend/postgres/pgtest"
)

// TestOpenSessionReadsNoMoreForABusyToken: opening a session for a token reads as many rows of
// mcp_sessions whether the token holds 10 live sessions or 2,000, under its cap and at it
// (where it expires one). The rows read are this transaction's own statistics
// (pg_stat_xact_user_tables), so the count is exact and needs no clock.
func TestOpenSessionReadsNoMoreForABusyToken(t *testing.T) {
	ctx := context.Background()
	rowsRead := func(t *testing.T, live, maxPerToken int) int64 {
		t.Helper()
		st, err := postgres.Open(ctx, pgtest.NewDB(t))
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(st.Close)
		tok := backend.TokenRecord{Token: backend.Token{Name: "busy", Scope: backend.ScopeAgent, CreatedAt: time.Now()},
			Hash: backend.HashToken(fmt.Sprintf("secret-%d-%d", live, maxPerToken))}
		if err := st.CreateToken(ctx, &tok); err != nil {
			t.Fatal(err)
		}
		if err := st.Exec(ctx, `
			INSERT INTO mcp_sessions (id, badge, profile, scope, token_id, created_at, last_seen_at)
			SELECT gen_random_uuid(), 'seed-' || i, 'standard', 'agent', $1::uuid,
				now() - make_interval(secs => i), now() - make_interval(secs => i)
			FROM generate_series(1, $2) AS i`, tok.ID, live); err != nil {
			t.Fatal(err)
		}
		var read int64
		err = st.Transact(ctx, func(tx backend.Store) error {
			stat := func() int64 {
				t.Helper()
				n, err := postgres.RowsReadInTx(ctx, tx, "mcp_sessions")
				if err != nil {
					t.Fatal(err)
				}
				return n
			}
			before := stat()
			m := &backend.MCPSession{ID: "6f1c1a52-8a54-4a58-9d7e-0c39f4f1a0ff", Profile: "standard",
				Scope: backend.ScopeAgent, TokenID: tok.ID}
			expired, err := tx.OpenSession(ctx, m, []string{"otter", "heron"}, maxPerToken)
			if err != nil {
				return err
			}
			if over := live + 1 - maxPerToken; over > 0 && len(expired) != over {
				t.Errorf("%d live, cap %d: expired %d sessions, want %d", live, maxPerToken, len(expired), over)
			}
			read = stat() - before
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
		return read
	}
	for _, tc := range []struct {
		name string
		cap  func(live int) int
	}{
		{"under the cap", func(int) int { return 100000 }},
		{"at the cap", func(live int) int { return live }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			few, many := rowsRead(t, 10, tc.cap(10)), rowsRead(t, 2000, tc.cap(2000))
			t.Logf("rows of mcp_sessions read: %d with 10 live sessions, %d with 2,000", few, many)
			if many > few+2 {
				t.Errorf("opening a session read %d rows of mcp_sessions with 2,000 live sessions of the token, %d with 10: it grows with the token's sessions", many, few)
			}
		})
	}
}

// TestTokenLiveCounts: the per-token live counts that OpenSession's cap reads stay equal to
// each token's live sessions through opens, cap expiry, terminations, idle expiry and a token
// deleted under its sessions.
func TestTokenLiveCounts(t *testing.T) {
	ctx := context.Background()
	url := pgtest.NewDB(t)
	st, err := postgres.Open(ctx, url)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(st.Close)
	check := func(when string) {
		t.Helper()
		var differ int
		err := st.QueryRow(ctx, `SELECT count(*) FROM (
			(SELECT token_id, live FROM mcp_token_live WHERE live > 0
			 EXCEPT SELECT token_id, count(*)::integer FROM mcp_sessions
			 WHERE terminated_at IS NULL AND token_id IS NOT NULL GROUP BY 1)
			UNION ALL
			(SELECT token_id, count(*)::integer FROM mcp_sessions
			 WHERE terminated_at IS NULL AND token_id IS NOT NULL GROUP BY 1
			 EXCEPT SELECT token_id, live FROM mcp_token_live)) d`, &differ)
		if err != nil {
			t.Fatal(err)
		}
		if differ != 0 {
			t.Errorf("%s: %d tokens' live counts differ from their live sessions", when, differ)
		}
	}
	var toks []backend.TokenRecord
	for i := range 2 {
		tok := backend.TokenRecord{Token: backend.Token{Name: fmt.Sprintf("t%d", i), Scope: backend.ScopeAgent,
			CreatedAt: time.Now()}, Hash: backend.HashToken(fmt.Sprintf("secret-%d", i))}
		if err := st.CreateToken(ctx, &tok); err != nil {
			t.Fatal(err)
		}
		toks = append(toks, tok)
	}
	old := time.Now().Add(-48 * time.Hour)
	var ids []string
	for i := range 9 {
		m := &backend.MCPSession{ID: fmt.Sprintf("6f1c1a52-8a54-4a58-9d7e-0c39f4f1b%03d", i), Profile: "standard",
			Scope: backend.ScopeAgent, TokenID: toks[i%2].ID}
		if i < 3 {
			m.CreatedAt, m.LastSeenAt = old, old
		}
		if _, err := st.OpenSession(ctx, m, []string{"otter", "heron", "wren"}, 4); err != nil {
			t.Fatalf("open %d: %v", i, err)
		}
		ids = append(ids, m.ID)
	}
	check("after opens past the cap")
	if err := st.TerminateSession(ctx, ids[8], time.Now()); err != nil {
		t.Fatal(err)
	}
	check("after a termination")
	if _, err := st.ExpireSessions(ctx, time.Now().Add(-24*time.Hour)); err != nil {
		t.Fatal(err)
	}
	check("after idle expiry")
	if err := st.Exec(ctx, `DELETE FROM tokens WHERE id = $1`, toks[1].ID); err != nil {
		t.Fatal(err)
	}
	check("after a token is deleted")
}
