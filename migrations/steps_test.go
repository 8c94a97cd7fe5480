package migrations_test

import (
	"context"
	"io/fs"
	"slices"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5"

	"github.com/agent-deck/agent-deck/backend/postgres/pgtest"
	"github.com/agent-deck/agent-deck/migrations"
)

// beforeMigration opens a new empty database with every migration below the one whose file
// name starts with prefix applied, for a test that seeds data of the older schema. It returns
// the connection, the migration files from that one on, in order, and apply, which runs files.
func beforeMigration(t *testing.T, prefix string) (*pgx.Conn, []string, func(names ...string)) {
	t.Helper()
	ctx := context.Background()
	conn, err := pgx.Connect(ctx, pgtest.NewEmptyDB(t))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { conn.Close(context.Background()) })
	files, err := fs.Glob(migrations.FS, "*.up.sql")
	if err != nil {
		t.Fatal(err)
	}
	slices.Sort(files)
	first := slices.IndexFunc(files, func(f string) bool { return strings.HasPrefix(f, prefix) })
	if first < 0 {
		t.Fatalf("no migration %s* in %v", prefix, files)
	}
	apply := func(names ...string) {
		t.Helper()
		for _, name := range names {
			sql, err := fs.ReadFile(migrations.FS, name)
			if err != nil {
				t.Fatal(err)
			}
			if _, err := conn.Exec(ctx, string(sql)); err != nil {
				t.Fatalf("%s: %v", name, err)
			}
		}
	}
	apply(files[:first]...)
	return conn, files[first:], apply
}
