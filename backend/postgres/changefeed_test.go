package postgres_test

import (
	"fmt"
	"slices"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/agent-deck/agent-deck/backend"
	"github.com/agent-deck/agent-deck/backend/postgres/pgtest"
)

// TestChangeFeedAnnouncesAStatementOnce: a write of one card names it; a bulk write (an import's
// COPY) is announced once for its table, not once per row; deck links name their deck once.
func TestChangeFeedAnnouncesAStatementOnce(t *testing.T) {
	t.Parallel()
	st := pgtest.NewStore(t)
	changes := make(chan backend.Change, 1000)
	st.Subscribe(ctx, func(c backend.Change) { changes <- c })
	if c := <-changes; !c.Listening {
		t.Fatalf("first change %+v, want the feed listening", c)
	}
	// next collects the changes of write, sorted, up to the sentinel deck's, which commits last.
	sentinels := 0
	next := func(write func() error) []string {
		t.Helper()
		mustOK(t, write())
		sentinels++
		sentinel := newDeck(t, st, fmt.Sprintf("sentinel-%d", sentinels))
		var got []string
		for c := range changes {
			if c.Table == "decks" && c.ID == sentinel.ID {
				slices.Sort(got)
				return got
			}
			got = append(got, c.Table+":"+c.ID)
		}
		return got
	}

	one := &backend.CredentialRecord{Credential: backend.Credential{ID: "cred_one", Label: "One", EnvName: "ONE_KEY"}}
	got := next(func() error { return st.CreateCredentials(ctx, []*backend.CredentialRecord{one}) })
	if diff := cmp.Diff([]string{"credentials:cred_one"}, got); diff != "" {
		t.Errorf("one credential (-want +got):\n%s", diff)
	}

	var creds []*backend.CredentialRecord
	var ids []string
	for i := range 50 {
		id := fmt.Sprintf("cred_%02d", i)
		creds = append(creds, &backend.CredentialRecord{Credential: backend.Credential{ID: id,
			Label: fmt.Sprintf("K%02d", i), EnvName: fmt.Sprintf("K%02d_KEY", i)}})
		ids = append(ids, id)
	}
	d := newDeck(t, st, "all")
	<-changes // the deck's own
	got = next(func() error {
		return st.Transact(ctx, func(tx backend.Store) error {
			if err := tx.CreateCredentials(ctx, creds); err != nil {
				return err
			}
			return tx.ReplaceLinks(ctx, d.ID, backend.CardCredential, ids)
		})
	})
	if diff := cmp.Diff([]string{"credentials:", "deck_cards:" + d.ID}, got); diff != "" {
		t.Errorf("50 credentials linked to a deck (-want +got):\n%s", diff)
	}

	creds[7].Label = "Renamed"
	got = next(func() error { return st.UpdateCredential(ctx, creds[7]) })
	if diff := cmp.Diff([]string{"credentials:cred_07"}, got); diff != "" {
		t.Errorf("one credential renamed (-want +got):\n%s", diff)
	}
	got = next(func() error { return st.DeleteCredential(ctx, "cred_08") })
	if diff := cmp.Diff([]string{"credentials:cred_08", "deck_cards:" + d.ID}, got); diff != "" {
		t.Errorf("one credential deleted (-want +got):\n%s", diff)
	}
}
