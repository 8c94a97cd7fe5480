package migrations_test

import (
	"context"
	"io/fs"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/jackc/pgx/v5"

	"github.com/agent-deck/agent-deck/backend/postgres/pgtest"
	"github.com/agent-deck/agent-deck/migrations"
)

func TestMain(m *testing.M) { pgtest.Main(m) }

var fileName = regexp.MustCompile(`^(\d{4})_([a-z0-9_]+)\.(up|down)\.sql$`)

// TestMigrationPairs is the migration-pair check: every file is well named and every up file
// has its down file (and the reverse).
func TestMigrationPairs(t *testing.T) {
	entries, err := fs.ReadDir(migrations.FS, ".")
	if err != nil {
		t.Fatal(err)
	}
	dirs := map[string][]string{} // version_name → directions
	versions := map[string]string{}
	for _, e := range entries {
		m := fileName.FindStringSubmatch(e.Name())
		if m == nil {
			t.Errorf("%s: want NNNN_name.up.sql or NNNN_name.down.sql", e.Name())
			continue
		}
		if other, ok := versions[m[1]]; ok && other != m[2] {
			t.Errorf("version %s used by both %s and %s", m[1], other, m[2])
		}
		versions[m[1]] = m[2]
		dirs[m[1]+"_"+m[2]] = append(dirs[m[1]+"_"+m[2]], m[3])
	}
	if len(dirs) == 0 {
		t.Fatal("no migrations embedded")
	}
	for name, d := range dirs {
		sort.Strings(d)
		if diff := cmp.Diff([]string{"down", "up"}, d); diff != "" {
			t.Errorf("%s: up/down pair incomplete (-want +got):\n%s", name, diff)
		}
	}
}

// released lists the versions of every migration in a release of main. A database of a release
// is at its highest version, and golang-migrate never applies a file numbered below that: a new
// migration must be numbered above every released one. Add a release's new versions here.
var released = []int{1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20, 40,
	41, 42, 47, 50, 51, 52, 53, 54, 55, 56, 57, 58, 59, 60, 61, 64}

// TestNewMigrationsComeAfterTheReleased: a migration that is not released is numbered above the
// last released one, so an upgraded database applies it.
func TestNewMigrationsComeAfterTheReleased(t *testing.T) {
	entries, err := fs.ReadDir(migrations.FS, ".")
	if err != nil {
		t.Fatal(err)
	}
	last := slices.Max(released)
	for _, e := range entries {
		m := fileName.FindStringSubmatch(e.Name())
		if m == nil {
			continue
		}
		v, _ := strconv.Atoi(m[1])
		if v < last && !slices.Contains(released, v) {
			t.Errorf("%s: version %d is below the released %04d; a database already at %d would never apply it: number it above %d",
				e.Name(), v, last, last, last)
		}
	}
}

func tables(t *testing.T, url string) []string {
	t.Helper()
	ctx := context.Background()
	conn, err := pgx.Connect(ctx, url)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(ctx)
	rows, _ := conn.Query(ctx, `SELECT tablename FROM pg_tables WHERE schemaname = 'public'
		AND tablename <> 'schema_migrations' ORDER BY tablename`)
	names, err := pgx.CollectRows(rows, pgx.RowTo[string])
	if err != nil {
		t.Fatal(err)
	}
	return names
}

var wantTables = []string{"credential_person_secrets", "credentials", "dashboard_signin_codes", "deck_audit_settings", "deck_cards", "deck_playbook_review", "deck_sampling", "deck_service_settings", "deck_shares", "deck_tool_projection", "decks", "exec_audit", "feedback_signals", "mcp_badge_levels", "mcp_relay_answers", "mcp_resource_subscriptions", "mcp_sessions", "mcp_token_live", "oauth_clients", "oauth_codes", "oauth_refresh_tokens", "people", "playbook_fetches", "playbook_proposals", "playbook_versions", "playbooks", "rate_buckets", "rate_inflight", "rate_limit_settings", "secret_key_state", "service_oauth", "service_person_oauth", "service_tool_holds", "service_tool_pins", "services", "tokens", "tool_calls"}

// TestUpDownUp proves every down file undoes its up file on a real database.
func TestUpDownUp(t *testing.T) {
	t.Parallel()
	url := pgtest.NewEmptyDB(t)
	ctx := context.Background()
	steps := []struct {
		name string
		run  func(context.Context, string) error
		want []string
	}{
		{"up", migrations.Up, wantTables},
		{"down", migrations.Down, []string{}},
		{"up again", migrations.Up, wantTables},
		{"up when current", migrations.Up, wantTables},
	}
	for _, step := range steps {
		if err := step.run(ctx, url); err != nil {
			t.Fatalf("%s: %v", step.name, err)
		}
		if diff := cmp.Diff(step.want, tables(t, url)); diff != "" {
			t.Fatalf("%s: tables (-want +got):\n%s", step.name, diff)
		}
	}
}

// TestConcurrentUp is what several replicas starting at once do: the advisory lock lets one
// migrate while the others wait, and all succeed.
func TestConcurrentUp(t *testing.T) {
	t.Parallel()
	url := pgtest.NewEmptyDB(t)
	const replicas = 5
	errs := make([]error, replicas)
	var wg sync.WaitGroup
	for i := range replicas {
		wg.Add(1)
		go func() {
			defer wg.Done()
			errs[i] = migrations.Up(context.Background(), url)
		}()
	}
	wg.Wait()
	for i, err := range errs {
		if err != nil {
			t.Errorf("replica %d: %v", i, err)
		}
	}
	if diff := cmp.Diff(wantTables, tables(t, url)); diff != "" {
		t.Fatalf("tables (-want +got):\n%s", diff)
	}
}

func TestUpRejectsBadURL(t *testing.T) {
	tests := []struct{ name, url string }{
		{"not postgres", "mysql://localhost/x"},
		{"no database", "postgres://localhost"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if err := migrations.Up(context.Background(), tt.url); err == nil {
				t.Fatal("want an error")
			}
		})
	}
}

// TestUpRecoversFromFailedMigration: a migration that failed left the schema untouched (one
// transaction) but the version dirty; the next Up resets it and applies the migration.
func TestUpRecoversFromFailedMigration(t *testing.T) {
	t.Parallel()
	url := pgtest.NewEmptyDB(t)
	ctx := context.Background()
	conn, err := pgx.Connect(ctx, url)
	if err != nil {
		t.Fatal(err)
	}
	_, err = conn.Exec(ctx, `CREATE TABLE schema_migrations (version bigint NOT NULL PRIMARY KEY, dirty boolean NOT NULL);
		INSERT INTO schema_migrations VALUES (1, true)`)
	conn.Close(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if err := migrations.Up(ctx, url); err != nil {
		t.Fatalf("Up: %v", err)
	}
	if diff := cmp.Diff(wantTables, tables(t, url)); diff != "" {
		t.Fatalf("tables (-want +got):\n%s", diff)
	}
}
