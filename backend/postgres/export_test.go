package postgres

import (
	"context"
	"fmt"

	"github.com/agent-deck/agent-deck/backend"
)

// RowsReadInTx is how many rows of table the transaction of st (a Store inside Transact) has
// read so far: its own statistics, exact and without a clock.
func RowsReadInTx(ctx context.Context, st backend.Store, table string) (int64, error) {
	tx, ok := st.(*Store)
	if !ok || !tx.inTx {
		return 0, fmt.Errorf("RowsReadInTx needs the Store of a transaction, got %T", st)
	}
	var n int64
	err := tx.db.QueryRow(ctx, `SELECT COALESCE(sum(seq_tup_read + COALESCE(idx_tup_fetch, 0)), 0)::bigint
		FROM pg_stat_xact_user_tables WHERE relname = $1`, table).Scan(&n)
	return n, err
}

// Exec runs one statement on the Store's pool, for tests that seed rows in bulk.
func (s *Store) Exec(ctx context.Context, sql string, args ...any) error {
	_, err := s.pool.Exec(ctx, sql, args...)
	return err
}

// QueryRow reads one row on the Store's pool into dest, for tests that check counters.
func (s *Store) QueryRow(ctx context.Context, sql string, dest ...any) error {
	return s.pool.QueryRow(ctx, sql).Scan(dest...)
}
