package postgres_test

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/agent-deck/agent-deck/backend"
	"github.com/agent-deck/agent-deck/backend/postgres/pgtest"
)

func TestDeckLookupAndUniqueness(t *testing.T) {
	t.Parallel()
	st := pgtest.NewStore(t)
	work := newDeck(t, st, "Work")

	tests := []struct {
		name string
		ref  string
		code backend.Code
	}{
		{"by id", work.ID, ""},
		{"by exact name", "Work", ""},
		{"by name other case", "wORK", ""},
		{"unknown name", "play", backend.CodeNotFound},
		{"unknown uuid", "00000000-0000-0000-0000-000000000000", backend.CodeNotFound},
		{"empty", "", backend.CodeNotFound},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := st.GetDeck(ctx, tt.ref)
			if tt.code != "" {
				wantCode(t, err, tt.code, "")
				return
			}
			mustOK(t, err)
			if got.ID != work.ID || got.Name != "Work" {
				t.Fatalf("GetDeck(%q) = %+v", tt.ref, got)
			}
		})
	}

	t.Run("duplicate name any case is a conflict on name", func(t *testing.T) {
		err := st.CreateDeck(ctx, &backend.Deck{Name: "WORK"})
		wantCode(t, err, backend.CodeConflict, "name")
	})
	t.Run("non-ASCII names fold case too", func(t *testing.T) {
		newDeck(t, st, "Über")
		wantCode(t, st.CreateDeck(ctx, &backend.Deck{Name: "üBER"}), backend.CodeConflict, "name")
		got, err := st.GetDeck(ctx, "ÜBER")
		mustOK(t, err)
		if got.Name != "Über" {
			t.Fatalf("GetDeck(ÜBER) = %+v", got)
		}
	})
	t.Run("rename onto another deck's name", func(t *testing.T) {
		other := newDeck(t, st, "Other")
		other.Name = "work"
		wantCode(t, st.UpdateDeck(ctx, &other), backend.CodeConflict, "name")
	})
	t.Run("blank name is invalid", func(t *testing.T) {
		wantCode(t, st.CreateDeck(ctx, &backend.Deck{Name: "  "}), backend.CodeInvalidArgument, "name")
	})
	t.Run("a name that looks like another deck's id still finds by id", func(t *testing.T) {
		newDeck(t, st, work.ID+"x")
		got, err := st.GetDeck(ctx, work.ID)
		mustOK(t, err)
		if got.ID != work.ID {
			t.Fatalf("got %+v", got)
		}
	})
}

func TestDeckUpdateDeleteList(t *testing.T) {
	t.Parallel()
	st := pgtest.NewStore(t)
	b := newDeck(t, st, "beta")
	newDeck(t, st, "Alpha")
	b.Name = "Gamma"
	mustOK(t, st.UpdateDeck(ctx, &b))
	if !b.UpdatedAt.After(b.CreatedAt) && !b.UpdatedAt.Equal(b.CreatedAt) {
		t.Fatalf("updated_at %v before created_at %v", b.UpdatedAt, b.CreatedAt)
	}
	decks, err := st.ListDecks(ctx)
	mustOK(t, err)
	var names []string
	for _, d := range decks {
		names = append(names, d.Name)
	}
	if diff := cmp.Diff([]string{"Alpha", "Gamma"}, names); diff != "" {
		t.Fatalf("ListDecks (-want +got):\n%s", diff)
	}
	mustOK(t, st.DeleteDeck(ctx, b.ID))
	wantCode(t, st.DeleteDeck(ctx, b.ID), backend.CodeNotFound, "")
	wantCode(t, st.DeleteDeck(ctx, "not-a-uuid"), backend.CodeNotFound, "")
	wantCode(t, st.UpdateDeck(ctx, &b), backend.CodeNotFound, "")
	wantCode(t, st.LockDeck(ctx, b.ID), backend.CodeNotFound, "")
}

func TestReplaceLinks(t *testing.T) {
	t.Parallel()
	st := pgtest.NewStore(t)
	deck := newDeck(t, st, "d")
	s1, s2, s3 := newService(t, st, "s1"), newService(t, st, "s2"), newService(t, st, "s3")
	c1 := newCredential(t, st, "cred_one", "One")
	p1 := newPlaybook(t, st, "pb_one", "One")

	steps := []struct {
		name string
		ct   backend.CardType
		ids  []string
		code backend.Code
		want []string // service ids on the deck afterwards
	}{
		{"link three", backend.CardService, []string{s1.ID, s2.ID, s3.ID}, "", []string{s1.ID, s2.ID, s3.ID}},
		{"reverse (positions swap under the unique constraint)", backend.CardService,
			[]string{s3.ID, s2.ID, s1.ID}, "", []string{s3.ID, s2.ID, s1.ID}},
		{"drop one", backend.CardService, []string{s2.ID, s3.ID}, "", []string{s2.ID, s3.ID}},
		{"unknown uuid changes nothing", backend.CardService,
			[]string{s1.ID, "00000000-0000-0000-0000-000000000001"}, backend.CodeNotFound, []string{s2.ID, s3.ID}},
		{"non-uuid service id changes nothing", backend.CardService, []string{"s1"}, backend.CodeNotFound,
			[]string{s2.ID, s3.ID}},
		{"duplicate changes nothing", backend.CardService, []string{s1.ID, s1.ID}, backend.CodeConflict,
			[]string{s2.ID, s3.ID}},
		{"other types do not touch services", backend.CardCredential, []string{c1.ID}, "", []string{s2.ID, s3.ID}},
		{"playbooks too", backend.CardPlaybook, []string{p1.ID}, "", []string{s2.ID, s3.ID}},
		{"unknown card type", "widget", []string{"x"}, backend.CodeInvalidArgument, []string{s2.ID, s3.ID}},
	}
	for _, step := range steps {
		err := st.ReplaceLinks(ctx, deck.ID, step.ct, step.ids)
		if step.code == "" {
			mustOK(t, err)
		} else {
			wantCode(t, err, step.code, "")
		}
		if diff := cmp.Diff(step.want, linkIDs(t, st, deck.ID, backend.CardService)); diff != "" {
			t.Fatalf("%s: services (-want +got):\n%s", step.name, diff)
		}
	}

	links, err := st.ListLinks(ctx, deck.ID)
	mustOK(t, err)
	want := []backend.CardLink{
		{DeckID: deck.ID, CardType: backend.CardService, CardID: s2.ID, Position: 0},
		{DeckID: deck.ID, CardType: backend.CardService, CardID: s3.ID, Position: 1},
		{DeckID: deck.ID, CardType: backend.CardCredential, CardID: c1.ID, Position: 0},
		{DeckID: deck.ID, CardType: backend.CardPlaybook, CardID: p1.ID, Position: 0},
	}
	if diff := cmp.Diff(want, links); diff != "" {
		t.Fatalf("ListLinks (-want +got):\n%s", diff)
	}
	wantCode(t, st.ReplaceLinks(ctx, "00000000-0000-0000-0000-000000000009", backend.CardService, nil),
		backend.CodeNotFound, "")
}

func TestDeletingCardsAndDecks(t *testing.T) {
	t.Parallel()
	st := pgtest.NewStore(t)
	d1, d2 := newDeck(t, st, "d1"), newDeck(t, st, "d2")
	svc := newService(t, st, "svc")
	cred := newCredential(t, st, "cred_c", "C")
	pb := newPlaybook(t, st, "pb_p", "P")
	for _, d := range []backend.Deck{d1, d2} {
		mustOK(t, st.ReplaceLinks(ctx, d.ID, backend.CardService, []string{svc.ID}))
		mustOK(t, st.ReplaceLinks(ctx, d.ID, backend.CardCredential, []string{cred.ID}))
		mustOK(t, st.ReplaceLinks(ctx, d.ID, backend.CardPlaybook, []string{pb.ID}))
	}

	decks, err := st.DecksLinking(ctx, backend.CardService, svc.ID)
	mustOK(t, err)
	if len(decks) != 2 || decks[0].Name != "d1" || decks[1].Name != "d2" {
		t.Fatalf("DecksLinking = %+v", decks)
	}

	// Deleting a deck keeps the cards.
	mustOK(t, st.DeleteDeck(ctx, d1.ID))
	if _, err := st.GetService(ctx, svc.ID); err != nil {
		t.Fatalf("service gone with its deck: %v", err)
	}
	if _, err := st.GetCredential(ctx, cred.ID); err != nil {
		t.Fatalf("credential gone with its deck: %v", err)
	}
	if _, err := st.GetPlaybook(ctx, pb.ID); err != nil {
		t.Fatalf("playbook gone with its deck: %v", err)
	}

	// Deleting a card removes its links.
	mustOK(t, st.DeleteService(ctx, svc.ID))
	mustOK(t, st.DeleteCredential(ctx, cred.ID))
	mustOK(t, st.DeletePlaybook(ctx, pb.ID))
	links, err := st.ListLinks(ctx, d2.ID)
	mustOK(t, err)
	if len(links) != 0 {
		t.Fatalf("links left after deleting the cards: %+v", links)
	}
	wantCode(t, st.DeleteService(ctx, svc.ID), backend.CodeNotFound, "")
	wantCode(t, st.DeleteCredential(ctx, cred.ID), backend.CodeNotFound, "")
	wantCode(t, st.DeletePlaybook(ctx, pb.ID), backend.CodeNotFound, "")
}

func TestLinkedCards(t *testing.T) {
	t.Parallel()
	st := pgtest.NewStore(t)
	deck := newDeck(t, st, "d")
	s1, s2 := newService(t, st, "s1"), newService(t, st, "s2")
	c1 := newCredential(t, st, "cred_a", "A")
	p1, p2 := newPlaybook(t, st, "pb_a", "A"), newPlaybook(t, st, "pb_b", "B")
	newService(t, st, "not linked")
	mustOK(t, st.ReplaceLinks(ctx, deck.ID, backend.CardService, []string{s2.ID, s1.ID}))
	mustOK(t, st.ReplaceLinks(ctx, deck.ID, backend.CardCredential, []string{c1.ID}))
	mustOK(t, st.ReplaceLinks(ctx, deck.ID, backend.CardPlaybook, []string{p2.ID, p1.ID}))

	got, err := st.LinkedCards(ctx, deck.ID)
	mustOK(t, err)
	var ids []string
	for _, s := range got.Services {
		ids = append(ids, s.ID)
	}
	for _, c := range got.Credentials {
		ids = append(ids, c.ID)
	}
	for _, p := range got.Playbooks {
		ids = append(ids, p.ID)
	}
	if diff := cmp.Diff([]string{s2.ID, s1.ID, c1.ID, p2.ID, p1.ID}, ids); diff != "" {
		t.Fatalf("LinkedCards order (-want +got):\n%s", diff)
	}
	if !got.Credentials[0].HasSecret {
		t.Fatal("HasSecret not set")
	}

	empty, err := st.LinkedCards(ctx, "nope")
	mustOK(t, err)
	if len(empty.Services)+len(empty.Credentials)+len(empty.Playbooks) != 0 {
		t.Fatalf("unknown deck has cards: %+v", empty)
	}
}
