package migrations_test

import (
	"context"
	"io/fs"
	"slices"
	"testing"

	"github.com/jackc/pgx/v5"

	"github.com/agent-deck/agent-deck/backend/postgres/pgtest"
	"github.com/agent-deck/agent-deck/migrations"
)

// TestExplicitDependenciesBackfill (issue 15, item 3): a playbook stored before 0008
// keeps every dependency, now recorded as explicit, so no delete guard is lost.
func TestExplicitDependenciesBackfill(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	conn, err := pgx.Connect(ctx, pgtest.NewEmptyDB(t))
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(ctx)
	files, err := fs.Glob(migrations.FS, "*.up.sql")
	if err != nil {
		t.Fatal(err)
	}
	slices.Sort(files)
	apply := func(name string) {
		t.Helper()
		sql, err := fs.ReadFile(migrations.FS, name)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := conn.Exec(ctx, string(sql)); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
	}
	i := slices.Index(files, "0008_playbook_explicit_deps.up.sql")
	if i < 0 {
		t.Fatalf("0008_playbook_explicit_deps.up.sql is missing from %v", files)
	}
	for _, f := range files[:i] {
		apply(f)
	}
	if _, err := conn.Exec(ctx, `INSERT INTO playbooks (id, title, depends_on_credential_ids, depends_on_service_ids)
		VALUES ('pb_old', 'Old', '{cred_a,cred_b}', '{svc}')`); err != nil {
		t.Fatal(err)
	}
	apply(files[i])
	var creds, svcs []string
	if err := conn.QueryRow(ctx, `SELECT explicit_credential_ids, explicit_service_ids FROM playbooks WHERE id = 'pb_old'`).
		Scan(&creds, &svcs); err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(creds, []string{"cred_a", "cred_b"}) || !slices.Equal(svcs, []string{"svc"}) {
		t.Errorf("explicit = %v %v, want every existing dependency", creds, svcs)
	}
}
