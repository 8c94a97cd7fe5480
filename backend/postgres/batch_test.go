package postgres_test

import (
	"errors"
	"fmt"
	"testing"

	"github.com/agent-deck/agent-deck/backend"
	"github.com/agent-deck/agent-deck/backend/postgres/pgtest"
)

// TestCreateBatchesNameTheFailingCard: a batch of cards is all or nothing inside its transaction,
// and its error says which card failed, with the code a single create would give.
func TestCreateBatchesNameTheFailingCard(t *testing.T) {
	t.Parallel()
	st := pgtest.NewStore(t)
	newService(t, st, "taken")
	var recs []*backend.ServiceRecord
	for _, name := range []string{"one", "two", "TAKEN", "four"} {
		recs = append(recs, &backend.ServiceRecord{ServiceCard: backend.ServiceCard{Name: name,
			Type: backend.ServiceRemote, URL: "http://127.0.0.1:1/mcp"}})
	}
	err := st.Transact(ctx, func(tx backend.Store) error { return tx.CreateServices(ctx, recs) })
	be, ok := errors.AsType[*backend.BatchError](err)
	if !ok || be.Index != 2 {
		t.Fatalf("CreateServices = %v, want a BatchError at index 2", err)
	}
	wantCode(t, err, backend.CodeConflict, "")
	list, err := st.ListServices(ctx)
	mustOK(t, err)
	if len(list) != 1 {
		t.Errorf("%d services after a failed batch, want only the one before it", len(list))
	}
	var pbs []*backend.Playbook
	for i := range 3 {
		pbs = append(pbs, &backend.Playbook{ID: fmt.Sprintf("pb_%d", i), Title: fmt.Sprintf("P%d", i), Body: "b"})
	}
	mustOK(t, st.Transact(ctx, func(tx backend.Store) error { return tx.CreatePlaybooks(ctx, pbs) }))
	if pbs[2].CreatedAt.IsZero() {
		t.Error("a batched playbook did not get its created_at back")
	}
}
