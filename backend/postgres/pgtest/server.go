package pgtest

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/agent-deck/agent-deck/backend/postgres/cluster"
	"github.com/agent-deck/agent-deck/migrations"
)

// dirPrefix names the temp dirs of test clusters; leftovers of crashed runs are swept.
const dirPrefix = "agent-deck-pgtest-"

// settings make a throwaway cluster fast: durability is worthless for test data.
var settings = map[string]string{
	"fsync":              "off",
	"synchronous_commit": "off",
	"full_page_writes":   "off",
	"max_connections":    "300",
	"shared_buffers":     "32MB",
}

func startServer(ctx context.Context) (*server, error) {
	s := &server{}
	if base := os.Getenv(EnvURL); base != "" {
		s.baseURL = base
		s.template = fmt.Sprintf("agentdeck_tmpl_%d", os.Getpid())
	} else {
		sweepStale()
		dir, err := os.MkdirTemp("", dirPrefix)
		if err != nil {
			return nil, err
		}
		s.dir = dir
		// The harness's own dir: as root the cluster runs as postgres, which must pass through it.
		if err := os.Chmod(dir, 0o711); err != nil {
			return nil, err
		}
		_ = os.WriteFile(filepath.Join(dir, "owner.pid"), []byte(strconv.Itoa(os.Getpid())), 0o644)
		s.cluster, err = cluster.Start(ctx, cluster.Options{
			DataDir: filepath.Join(dir, "data"), SocketDir: filepath.Join(dir, "s"),
			SkipDatabase: true, Settings: settings, StopOnExit: true,
		})
		if err != nil {
			_ = os.RemoveAll(dir)
			return nil, err
		}
		s.template = "agentdeck_template"
	}
	if err := s.prepare(ctx); err != nil {
		s.stop()
		return nil, err
	}
	return s, nil
}

// prepare connects to the maintenance database and builds the migrated template.
func (s *server) prepare(ctx context.Context) error {
	cfg, err := pgxpool.ParseConfig(s.url("postgres"))
	if err != nil {
		return fmt.Errorf("parse admin URL: %w", err)
	}
	cfg.MaxConns = 4
	if s.admin, err = pgxpool.NewWithConfig(ctx, cfg); err != nil {
		return fmt.Errorf("connect: %w", err)
	}
	tmpl := pgx.Identifier{s.template}.Sanitize()
	if _, err := s.admin.Exec(ctx, "DROP DATABASE IF EXISTS "+tmpl+" WITH (FORCE)"); err != nil {
		return fmt.Errorf("drop old template: %w", err)
	}
	if _, err := s.admin.Exec(ctx, "CREATE DATABASE "+tmpl+" TEMPLATE template0"); err != nil {
		return fmt.Errorf("create template: %w", err)
	}
	if err := migrations.Up(ctx, s.url(s.template)); err != nil {
		return fmt.Errorf("migrate template: %w", err)
	}
	var version int
	if err := s.admin.QueryRow(ctx, "SELECT current_setting('server_version_num')::int").Scan(&version); err != nil {
		return fmt.Errorf("server version: %w", err)
	}
	if version >= 150000 {
		s.strategy = " STRATEGY FILE_COPY"
	}
	s.startWorkers()
	return nil
}

func (s *server) stop() {
	ctx := context.Background()
	if s.cluster == nil || s.cancel == nil {
		s.stopWorkers()
	} else {
		s.cancel() // a private cluster is thrown away whole: no need to drop one by one
	}
	if s.admin != nil {
		if s.cluster == nil {
			_, _ = s.admin.Exec(ctx, "DROP DATABASE IF EXISTS "+pgx.Identifier{s.template}.Sanitize()+" WITH (FORCE)")
		}
		s.admin.Close()
	}
	if s.cluster != nil {
		if err := s.cluster.Stop(ctx); err != nil {
			fmt.Fprintln(os.Stderr, "pgtest: stop cluster:", err)
			return // keep the dir for diagnosis
		}
	}
	if s.dir != "" {
		_ = os.RemoveAll(s.dir)
	}
}

// sweepStale removes test-cluster dirs whose owning test binary is gone and whose server is
// not running (a binary killed before its watchdog could clean up).
func sweepStale() {
	dirs, _ := filepath.Glob(filepath.Join(os.TempDir(), dirPrefix+"*"))
	for _, dir := range dirs {
		raw, err := os.ReadFile(filepath.Join(dir, "owner.pid"))
		if err != nil {
			continue
		}
		pid, err := strconv.Atoi(strings.TrimSpace(string(raw)))
		if err != nil || processAlive(pid) {
			continue
		}
		if pids, err := cluster.Processes(filepath.Join(dir, "data")); err != nil || len(pids) > 0 {
			continue
		}
		_ = os.RemoveAll(dir)
	}
}

func processAlive(pid int) bool {
	err := syscall.Kill(pid, 0)
	return err == nil || err == syscall.EPERM
}
