package migrations_test

import (
	"context"
	"slices"
	"testing"
)

// TestExplicitDependenciesBackfill (issue 15, item 3): a playbook stored before 0008
// keeps every dependency, now recorded as explicit, so no delete guard is lost.
func TestExplicitDependenciesBackfill(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	conn, rest, apply := beforeMigration(t, "0008_playbook_explicit_deps.")
	if _, err := conn.Exec(ctx, `INSERT INTO playbooks (id, title, depends_on_credential_ids, depends_on_service_ids)
		VALUES ('pb_old', 'Old', '{cred_a,cred_b}', '{svc}')`); err != nil {
		t.Fatal(err)
	}
	apply(rest[0])
	var creds, svcs []string
	if err := conn.QueryRow(ctx, `SELECT explicit_credential_ids, explicit_service_ids FROM playbooks WHERE id = 'pb_old'`).
		Scan(&creds, &svcs); err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(creds, []string{"cred_a", "cred_b"}) || !slices.Equal(svcs, []string{"svc"}) {
		t.Errorf("explicit = %v %v, want every existing dependency", creds, svcs)
	}
}
