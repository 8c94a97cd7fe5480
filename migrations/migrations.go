// Package migrations holds Agent Deck's schema as numbered golang-migrate files embedded in the
// binary, and Up, which applies them under golang-migrate's advisory lock so several replicas
// can start at once.
package migrations

import (
	"context"
	"embed"
	"errors"
	"fmt"
	"net/url"
	"strings"

	"github.com/golang-migrate/migrate/v4"
	_ "github.com/golang-migrate/migrate/v4/database/pgx/v5" // registers the pgx5:// driver
	"github.com/golang-migrate/migrate/v4/source/iofs"
)

// FS holds the migration files (NNNN_name.up.sql / NNNN_name.down.sql).
//
//go:embed *.sql
var FS embed.FS

// Up applies every pending migration to the database at databaseURL (a postgres:// URL).
//
// Each migration file runs as one implicit transaction, so a failed one leaves the schema as
// it was but golang-migrate's version marked dirty; Up then resets the version to the one
// before and tries again, so a fixed release can start without manual repair.
func Up(ctx context.Context, databaseURL string) error {
	m, err := open(databaseURL)
	if err != nil {
		return err
	}
	defer closeMigrate(m)
	err = run(ctx, m, m.Up)
	var dirty migrate.ErrDirty
	if !errors.As(err, &dirty) {
		return err
	}
	if ferr := m.Force(previous(dirty.Version)); ferr != nil {
		return fmt.Errorf("migrations: reset dirty version %d: %w", dirty.Version, ferr)
	}
	return run(ctx, m, m.Up)
}

// previous returns the version before v among the embedded migrations (-1: none).
func previous(v int) int {
	src, err := iofs.New(FS, ".")
	if err != nil {
		return -1
	}
	defer src.Close()
	prev, err := src.Prev(uint(v))
	if err != nil {
		return -1
	}
	return int(prev)
}

// Down reverts every migration; the migration-pair check uses it.
func Down(ctx context.Context, databaseURL string) error {
	m, err := open(databaseURL)
	if err != nil {
		return err
	}
	defer closeMigrate(m)
	return run(ctx, m, m.Down)
}

func open(databaseURL string) (*migrate.Migrate, error) {
	src, err := iofs.New(FS, ".")
	if err != nil {
		return nil, fmt.Errorf("migrations: read embedded files: %w", err)
	}
	dbURL, err := driverURL(databaseURL)
	if err != nil {
		return nil, err
	}
	m, err := migrate.NewWithSourceInstance("iofs", src, dbURL)
	if err != nil {
		return nil, fmt.Errorf("migrations: connect: %w", err)
	}
	return m, nil
}

// run applies fn, asking golang-migrate to stop between migrations when ctx is done.
func run(ctx context.Context, m *migrate.Migrate, fn func() error) error {
	done := make(chan struct{})
	defer close(done)
	go func() {
		select {
		case <-ctx.Done():
			select {
			case m.GracefulStop <- true:
			default:
			}
		case <-done:
		}
	}()
	if err := fn(); err != nil && !errors.Is(err, migrate.ErrNoChange) {
		return fmt.Errorf("migrations: %w", err)
	}
	return ctx.Err()
}

func closeMigrate(m *migrate.Migrate) {
	_, _ = m.Close()
}

// driverURL turns a postgres:// URL (or key=value DSN-less URL) into golang-migrate's pgx5://
// form.
func driverURL(databaseURL string) (string, error) {
	u, err := url.Parse(databaseURL)
	if err != nil || (u.Scheme != "postgres" && u.Scheme != "postgresql" && u.Scheme != "pgx5") {
		return "", errors.New("migrations: database URL must be a postgres:// URL")
	}
	u.Scheme = "pgx5"
	if !strings.HasPrefix(u.Path, "/") || len(u.Path) < 2 {
		return "", errors.New("migrations: database URL must name a database")
	}
	return u.String(), nil
}
