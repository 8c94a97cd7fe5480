// Package pgtest gives tests a real PostgreSQL: one cluster per test binary (started on first
// use, in a temp dir, Unix socket only), a template database migrated once, and a fresh
// database per test cloned from it. Every test package that needs the database says
//
//	func TestMain(m *testing.M) { pgtest.Main(m) }
//
// and each test calls NewDB or NewStore. Both are safe under t.Parallel().
//
// Set AGENT_DECK_TEST_DATABASE_URL to a superuser URL of an existing server to use it instead
// of starting a cluster.
package pgtest

import (
	"context"
	"fmt"
	"net/url"
	"os"
	"regexp"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/agent-deck/agent-deck/backend/postgres"
)

// EnvURL names an existing server to test against instead of a private cluster.
const EnvURL = "AGENT_DECK_TEST_DATABASE_URL"

// harness is the one database server of a test binary. A test helper package cannot avoid
// package state: Main owns it, NewDB borrows it.
type harness struct {
	once     sync.Once
	err      error
	srv      *server
	mainSeen atomic.Bool
}

var h harness

// Main runs the tests of a package and stops its database cluster afterwards, even when tests
// fail. The cluster starts on the first NewDB, so binaries whose selected tests need no database
// pay nothing.
func Main(m *testing.M) {
	h.mainSeen.Store(true)
	code := m.Run()
	if h.srv != nil {
		h.srv.stop()
	}
	os.Exit(code)
}

func get(t testing.TB) *server {
	t.Helper()
	if !h.mainSeen.Load() {
		t.Fatal("pgtest: the package's TestMain must call pgtest.Main(m)")
	}
	h.once.Do(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
		defer cancel()
		h.srv, h.err = startServer(ctx)
	})
	if h.err != nil {
		t.Fatalf("pgtest: %v", h.err)
	}
	return h.srv
}

// NewDB creates a fresh, fully migrated database for this test and returns its URL. The
// database is dropped when the test ends.
func NewDB(t testing.TB) string {
	t.Helper()
	return get(t).takeDB(t)
}

// NewEmptyDB creates a database without any migration applied (for migration tests and for
// checking that startup migrates) and returns its URL; dropped when the test ends.
func NewEmptyDB(t testing.TB) string {
	t.Helper()
	srv := get(t)
	name := dbName(srv.seq.Add(1), t.Name())
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	if err := srv.create(ctx, name, "template0"); err != nil {
		t.Fatalf("pgtest: %v", err)
	}
	t.Cleanup(func() { srv.drop(name) })
	return srv.url(name)
}

// NewStore opens a Store on a fresh database; it is closed and dropped when the test ends.
func NewStore(t testing.TB) *postgres.Store {
	t.Helper()
	url := NewDB(t)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	st, err := postgres.Open(ctx, url)
	if err != nil {
		t.Fatalf("pgtest: open store: %v", err)
	}
	t.Cleanup(st.Close)
	return st
}

var unsafeChars = regexp.MustCompile(`[^a-z0-9_]+`)

// dbName makes a database name that says which test owns it, within the 63-byte limit.
func dbName(seq int64, testName string) string {
	name := fmt.Sprintf("t%d_%s", seq, unsafeChars.ReplaceAllString(strings.ToLower(testName), "_"))
	if len(name) > 63 {
		name = name[:63]
	}
	return name
}

// replaceDB swaps the database name in a postgres:// URL.
func replaceDB(rawURL, dbname string) string {
	u, err := url.Parse(rawURL)
	if err != nil {
		return rawURL
	}
	u.Path = "/" + dbname
	return u.String()
}
