package pgtest

import (
	"context"
	"fmt"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/agent-deck/agent-deck/backend/postgres/cluster"
)

// readyDBs is how many migrated databases are cloned ahead of demand: a clone costs 0.1-0.3 s,
// which tests should not wait for.
const readyDBs = 2

// server is a running test server with a migrated template database, a producer cloning
// databases ahead of demand and a dropper removing used ones in the background.
type server struct {
	cluster  *cluster.Cluster // nil when testing against EnvURL
	dir      string           // the private cluster's temp dir
	baseURL  string           // EnvURL, when set
	admin    *pgxpool.Pool
	template string
	strategy string // " STRATEGY FILE_COPY" where the server has it (fast for small databases)
	seq      atomic.Int64

	cancel  context.CancelFunc
	ready   chan created
	drops   chan string
	workers sync.WaitGroup
}

type created struct {
	name string
	err  error
}

func (s *server) url(dbname string) string {
	if s.cluster != nil {
		return s.cluster.URL(dbname)
	}
	return replaceDB(s.baseURL, dbname)
}

func (s *server) create(ctx context.Context, name, template string) error {
	q := "CREATE DATABASE " + pgx.Identifier{name}.Sanitize() + " TEMPLATE " + pgx.Identifier{template}.Sanitize()
	if template != "template0" {
		q += s.strategy
	}
	if _, err := s.admin.Exec(ctx, q); err != nil {
		return fmt.Errorf("create database %s: %w", name, err)
	}
	return nil
}

// drop queues the database for removal in the background.
func (s *server) drop(name string) {
	s.drops <- name
}

// startWorkers starts the producer and the dropper; stop ends them.
func (s *server) startWorkers() {
	ctx, cancel := context.WithCancel(context.Background())
	s.cancel = cancel
	s.ready = make(chan created, readyDBs-1)
	s.drops = make(chan string, 10000)
	s.workers.Add(2)
	go s.produce(ctx)
	go s.dropAll()
}

func (s *server) produce(ctx context.Context) {
	defer s.workers.Done()
	defer close(s.ready)
	for {
		name := fmt.Sprintf("t%d", s.seq.Add(1))
		err := s.create(ctx, name, s.template)
		if ctx.Err() != nil {
			if err == nil {
				s.drop(name)
			}
			return
		}
		select {
		case s.ready <- created{name: name, err: err}:
		case <-ctx.Done():
			s.drop(name)
			return
		}
		if err != nil {
			return
		}
	}
}

func (s *server) dropAll() {
	defer s.workers.Done()
	for name := range s.drops {
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		_, _ = s.admin.Exec(ctx, "DROP DATABASE IF EXISTS "+pgx.Identifier{name}.Sanitize()+" WITH (FORCE)")
		cancel()
	}
}

// takeDB hands the test a fresh migrated database, dropped when the test ends.
func (s *server) takeDB(t testing.TB) string {
	t.Helper()
	var c created
	var ok bool
	select {
	case c, ok = <-s.ready:
	case <-time.After(2 * time.Minute):
		t.Fatal("pgtest: timed out waiting for a database")
	}
	if !ok {
		t.Fatal("pgtest: the database producer has stopped (see an earlier error)")
	}
	if c.err != nil {
		t.Fatalf("pgtest: %v", c.err)
	}
	t.Cleanup(func() { s.drop(c.name) })
	return s.url(c.name)
}

// stopWorkers stops producing and finishes the queued drops (which matter only on a shared
// server: a private cluster is thrown away whole).
func (s *server) stopWorkers() {
	if s.cancel == nil {
		return
	}
	s.cancel()
	for c := range s.ready {
		if c.err == nil {
			s.drop(c.name)
		}
	}
	close(s.drops)
	s.workers.Wait()
}
