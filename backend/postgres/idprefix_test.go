package postgres_test

import (
	"slices"
	"testing"

	"github.com/agent-deck/agent-deck/backend"
	"github.com/agent-deck/agent-deck/backend/postgres/pgtest"
)

// TestListIDsWithPrefix: every kind of row addressed by id has its table, and the ids that start
// with a prefix come back in order, whatever the case of the prefix, up to the limit.
func TestListIDsWithPrefix(t *testing.T) {
	t.Parallel()
	st := pgtest.NewStore(t)
	for _, kind := range backend.IDKinds {
		if _, err := st.ListIDsWithPrefix(ctx, kind, "abcd", 5); err != nil {
			t.Errorf("%s: %v", kind, err)
		}
	}
	a := newDeck(t, st, "A")
	newDeck(t, st, "B")
	got, err := st.ListIDsWithPrefix(ctx, backend.IDDeck, a.ID[:8], 5)
	if err != nil || !slices.Equal(got, []string{a.ID}) {
		t.Errorf("deck prefix %s = %v, %v; want %s", a.ID[:8], got, err, a.ID)
	}
	all, err := st.ListIDsWithPrefix(ctx, backend.IDDeck, "", 1)
	if err != nil || len(all) != 1 {
		t.Errorf("limit 1 = %v, %v", all, err)
	}
	newPlaybook(t, st, "pb_deploy_a", "Deploy A")
	newPlaybook(t, st, "pb_other", "Other")
	for _, p := range []string{"PB_Deploy", "pb_deploy"} {
		got, err := st.ListIDsWithPrefix(ctx, backend.IDPlaybook, p, 5)
		if err != nil || !slices.Equal(got, []string{"pb_deploy_a"}) {
			t.Errorf("playbook prefix %q = %v, %v", p, got, err)
		}
	}
	if _, err := st.ListIDsWithPrefix(ctx, "cards", "abcd", 5); backend.ErrorCode(err) != backend.CodeInvalidArgument {
		t.Errorf("unknown kind: %v", err)
	}
}
