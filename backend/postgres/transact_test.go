package postgres_test

import (
	"errors"
	"testing"

	"github.com/agent-deck/agent-deck/backend"
	"github.com/agent-deck/agent-deck/backend/postgres/pgtest"
)

func TestTransact(t *testing.T) {
	t.Parallel()
	errBoom := errors.New("boom")
	tests := []struct {
		name    string
		fn      func(backend.Store) error
		wantErr func(error) bool
		want    []string // deck names afterwards
	}{
		{
			name: "commit",
			fn: func(s backend.Store) error {
				return s.CreateDeck(ctx, &backend.Deck{Name: "one"})
			},
			wantErr: func(err error) bool { return err == nil },
			want:    []string{"one"},
		},
		{
			name: "an error rolls back every write",
			fn: func(s backend.Store) error {
				mustOK(t, s.CreateDeck(ctx, &backend.Deck{Name: "one"}))
				mustOK(t, s.CreateDeck(ctx, &backend.Deck{Name: "two"}))
				return errBoom
			},
			wantErr: func(err error) bool { return errors.Is(err, errBoom) },
			want:    []string{},
		},
		{
			name: "a nested transaction joins the outer one",
			fn: func(s backend.Store) error {
				mustOK(t, s.Transact(ctx, func(inner backend.Store) error {
					return inner.CreateDeck(ctx, &backend.Deck{Name: "inner"})
				}))
				return errBoom
			},
			wantErr: func(err error) bool { return errors.Is(err, errBoom) },
			want:    []string{},
		},
		{
			name: "a store error inside is returned classified",
			fn: func(s backend.Store) error {
				mustOK(t, s.CreateDeck(ctx, &backend.Deck{Name: "one"}))
				return s.CreateDeck(ctx, &backend.Deck{Name: "ONE"})
			},
			wantErr: func(err error) bool { return backend.ErrorCode(err) == backend.CodeConflict },
			want:    []string{},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			st := pgtest.NewStore(t)
			if err := st.Transact(ctx, tt.fn); !tt.wantErr(err) {
				t.Fatalf("Transact error: %v", err)
			}
			decks, err := st.ListDecks(ctx)
			mustOK(t, err)
			names := []string{}
			for _, d := range decks {
				names = append(names, d.Name)
			}
			if len(names) != len(tt.want) {
				t.Fatalf("decks %v, want %v", names, tt.want)
			}
		})
	}
}

func TestTransactPanicRollsBack(t *testing.T) {
	t.Parallel()
	st := pgtest.NewStore(t)
	func() {
		defer func() {
			if recover() == nil {
				t.Fatal("panic not propagated")
			}
		}()
		_ = st.Transact(ctx, func(s backend.Store) error {
			mustOK(t, s.CreateDeck(ctx, &backend.Deck{Name: "one"}))
			panic("boom")
		})
	}()
	decks, err := st.ListDecks(ctx)
	mustOK(t, err)
	if len(decks) != 0 {
		t.Fatalf("panic left %d decks", len(decks))
	}
}

func TestOpenFailures(t *testing.T) {
	t.Parallel()
	_, err := pgtestOpen("postgres://postgres@/agentdeck?host=/nonexistent-dir&connect_timeout=2")
	wantCode(t, err, backend.CodeUnavailable, "")
	_, err = pgtestOpen("::not a url::")
	wantCode(t, err, backend.CodeInvalidArgument, "")
}
