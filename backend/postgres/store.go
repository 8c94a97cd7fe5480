// Package postgres implements backend.Store on PostgreSQL with pgx: plain SQL beside the
// function that runs it, one file per aggregate, one transaction helper, and SQLSTATE → error
// code mapping in one place (errors.go).
package postgres

import (
	"context"
	"fmt"
	"sync"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/agent-deck/agent-deck/backend"
)

// defaultMaxConns sizes the pool for a handful of concurrent agents and dashboard requests
// when the URL does not say (pool_max_conns).
const defaultMaxConns = 16

// dbtx is what both the pool and a transaction offer; every query goes through it.
type dbtx interface {
	Exec(ctx context.Context, sql string, args ...any) (pgconn.CommandTag, error)
	Query(ctx context.Context, sql string, args ...any) (pgx.Rows, error)
	QueryRow(ctx context.Context, sql string, args ...any) pgx.Row
	SendBatch(ctx context.Context, b *pgx.Batch) pgx.BatchResults
	CopyFrom(ctx context.Context, table pgx.Identifier, cols []string, src pgx.CopyFromSource) (int64, error)
}

// Store is backend.Store on a pgx pool. Inside Transact it is bound to one transaction.
type Store struct {
	pool *pgxpool.Pool
	db   dbtx
	inTx bool
	// closeCtx ends change listeners when the Store closes; listeners is waited for, so no
	// listening connection outlives the Store.
	closeCtx  context.Context
	closeFn   context.CancelFunc
	listeners *sync.WaitGroup
}

var _ backend.Store = (*Store)(nil)

// Open connects to the database at url (a postgres:// URL or key=value string) and checks it
// answers. Failures are UNAVAILABLE (connection) or INVALID_ARGUMENT (a malformed URL).
func Open(ctx context.Context, url string) (*Store, error) {
	cfg, err := pgxpool.ParseConfig(url)
	if err != nil {
		return nil, &backend.Error{Code: backend.CodeInvalidArgument, Message: "invalid database URL", Err: err}
	}
	if !hasParam(url, "pool_max_conns") {
		cfg.MaxConns = defaultMaxConns
	}
	cfg.MaxConnIdleTime = 5 * time.Minute
	pool, err := pgxpool.NewWithConfig(ctx, cfg)
	if err != nil {
		return nil, classify("connect to the database", err)
	}
	if err := pool.Ping(ctx); err != nil {
		pool.Close()
		return nil, classify("connect to the database", err)
	}
	closeCtx, closeFn := context.WithCancel(context.Background())
	return &Store{pool: pool, db: pool, closeCtx: closeCtx, closeFn: closeFn, listeners: &sync.WaitGroup{}}, nil
}

// Close closes every connection, the change listeners' included. The Store must not be used
// afterwards.
func (s *Store) Close() {
	s.closeFn()
	s.listeners.Wait()
	s.pool.Close()
}

// Ping checks the database answers.
func (s *Store) Ping(ctx context.Context) error {
	if err := s.pool.Ping(ctx); err != nil {
		return classify("ping the database", err)
	}
	return nil
}

// Transact runs fn in one transaction and commits when fn returns nil; any error (or panic)
// rolls everything back. A Transact inside fn joins the outer transaction. A store error inside
// fn aborts the transaction, so fn should return it.
func (s *Store) Transact(ctx context.Context, fn func(backend.Store) error) (err error) {
	if s.inTx {
		return fn(s)
	}
	tx, err := s.pool.Begin(ctx)
	if err != nil {
		return classify("begin a transaction", err)
	}
	defer func() {
		if p := recover(); p != nil {
			_ = tx.Rollback(context.WithoutCancel(ctx))
			panic(p)
		}
	}()
	if err := fn(&Store{pool: s.pool, db: tx, inTx: true, closeCtx: s.closeCtx, closeFn: s.closeFn, listeners: s.listeners}); err != nil {
		_ = tx.Rollback(context.WithoutCancel(ctx))
		return err
	}
	if err := tx.Commit(ctx); err != nil {
		return classify("commit", err)
	}
	return nil
}

// transact is Transact for the store's own multi-statement writes.
func (s *Store) transact(ctx context.Context, fn func(*Store) error) error {
	return s.Transact(ctx, func(st backend.Store) error {
		inner, ok := st.(*Store)
		if !ok {
			return fmt.Errorf("postgres: unexpected store %T in transaction", st)
		}
		return fn(inner)
	})
}

// stmt is one statement of a batch: its SQL, arguments, how its row is read back, and the
// operation its error names.
type stmt struct {
	op   string
	sql  string
	args []any
	scan func(pgx.Row) error
}

// copyIn writes rows into table in one COPY, the fast way to write thousands of rows; stmts are
// the same rows as single INSERTs. COPY stops at the first bad row without saying which in a form
// worth trusting, so on failure the COPY is rolled back (to a savepoint: the caller's transaction
// goes on) and the rows are written again as stmts, whose error names the row (a *BatchError).
func (s *Store) copyIn(ctx context.Context, table string, cols []string, rows [][]any, stmts []stmt) error {
	if len(rows) == 0 {
		return nil
	}
	return s.transact(ctx, func(tx *Store) error {
		if _, err := tx.db.Exec(ctx, "SAVEPOINT agent_deck_copy"); err != nil {
			return classify("copy into "+table, err)
		}
		_, err := tx.db.CopyFrom(ctx, pgx.Identifier{table}, cols, pgx.CopyFromRows(rows))
		if err == nil {
			_, err = tx.db.Exec(ctx, "RELEASE SAVEPOINT agent_deck_copy")
			return classify("copy into "+table, err)
		}
		if _, rerr := tx.db.Exec(ctx, "ROLLBACK TO SAVEPOINT agent_deck_copy"); rerr != nil {
			return classify("copy into "+table, err)
		}
		return tx.runBatch(ctx, stmts)
	})
}

// fillTimes sets empty creation and update times to now, as the INSERTs' COALESCE(…, now()) do.
func fillTimes(created, updated *time.Time, now time.Time) {
	if created.IsZero() {
		*created = now
	}
	if updated.IsZero() {
		*updated = *created
	}
}

// runBatch sends stmts in one round trip and reads their rows in order; the first failure is a
// *backend.BatchError with its index. Inside a transaction a failure leaves the transaction
// failed, so none of the batch is kept.
func (s *Store) runBatch(ctx context.Context, stmts []stmt) error {
	if len(stmts) == 0 {
		return nil
	}
	b := &pgx.Batch{}
	for _, st := range stmts {
		b.Queue(st.sql, st.args...)
	}
	br := s.db.SendBatch(ctx, b)
	for i, st := range stmts {
		if err := st.scan(br.QueryRow()); err != nil {
			_ = br.Close()
			return &backend.BatchError{Index: i, Err: classify(st.op, err)}
		}
	}
	return classify("batch", br.Close())
}
