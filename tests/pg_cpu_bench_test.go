package tests

import (
	"context"
	"testing"

	"github.com/jackc/pgx/v5"
)

// pgCPU measures the CPU time the PostgreSQL backends serving one database spend: the hub's
// share of the database, which a hub CPU figure taken from the server process alone leaves out
// (audit writes, session touches). Each test database has its own backends, so every backend
// connected to it serves the server under test (or the benchmark's own setup, idle while it
// measures).
type pgCPU struct {
	tb     testing.TB
	dbURL  string
	before map[int]int64
}

// startPGCPU notes the CPU time of the database's backends now.
func startPGCPU(tb testing.TB, dbURL string) *pgCPU {
	tb.Helper()
	return &pgCPU{tb: tb, dbURL: dbURL, before: pgBackendTicks(tb, dbURL)}
}

// since is the CPU time, in clock ticks, the database's backends spent since start. A backend
// that connected since counts whole; one that disconnected since is lost (pools keep theirs).
func (p *pgCPU) since() int64 {
	p.tb.Helper()
	var n int64
	for pid, t := range pgBackendTicks(p.tb, p.dbURL) {
		n += t - p.before[pid]
	}
	return n
}

// pgBackendTicks reads utime+stime of every backend connected to the database, by pid.
func pgBackendTicks(tb testing.TB, dbURL string) map[int]int64 {
	tb.Helper()
	pids := pgBackendPIDs(tb, dbURL)
	out := make(map[int]int64, len(pids))
	for _, pid := range pids {
		out[pid] = processCPU(tb, pid)
	}
	return out
}

// pgBackendPIDs lists the pids of the PostgreSQL backends connected to the database, but the
// one asking: the hub's share of PostgreSQL (each test database has its own backends).
func pgBackendPIDs(tb testing.TB, dbURL string) []int {
	tb.Helper()
	ctx := context.Background()
	conn, err := pgx.Connect(ctx, dbURL)
	if err != nil {
		tb.Fatal(err)
	}
	defer conn.Close(ctx)
	rows, err := conn.Query(ctx, `SELECT pid FROM pg_stat_activity
		WHERE datname = current_database() AND pid <> pg_backend_pid()`)
	if err != nil {
		tb.Fatal(err)
	}
	pids, err := pgx.CollectRows(rows, func(row pgx.CollectableRow) (int, error) {
		var pid int32
		err := row.Scan(&pid)
		return int(pid), err
	})
	if err != nil {
		tb.Fatal(err)
	}
	return pids
}
