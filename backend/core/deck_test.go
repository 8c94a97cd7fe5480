package core_test

import (
	"context"
	"errors"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/agent-deck/agent-deck/backend"
	"github.com/agent-deck/agent-deck/backend/core"
)

func TestDeckNames(t *testing.T) {
	f := newCoreFixture(t)
	d := f.deck(t, "Work")
	tests := []struct {
		name  string
		input string
		code  backend.Code
	}{
		{"same name", "Work", backend.CodeConflict},
		{"other case", "  wORK ", backend.CodeConflict},
		{"empty", "   ", backend.CodeInvalidArgument},
		{"too long", strings.Repeat("x", 101), backend.CodeInvalidArgument},
		{"control character", "a\nb", backend.CodeInvalidArgument},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := f.svc.CreateDeck(f.admin, core.DeckInput{Name: tt.input})
			e := wantCode(t, err, tt.code)
			if tt.code == backend.CodeInvalidArgument && e.Details["field"] != "name" {
				t.Errorf("details = %v, want field name", e.Details)
			}
		})
	}
	decks := coreMust[[]backend.Deck](t)(f.svc.ListDecks(f.reader))
	if len(decks) != 1 {
		t.Fatalf("decks after failed creates = %v, want only Work", decks)
	}
	if got := coreMust[backend.Deck](t)(f.svc.GetDeck(f.reader, "Work")); got.ID != d.ID {
		t.Errorf("GetDeck by name = %v", got)
	}
	renamed := coreMust[backend.Deck](t)(f.svc.RenameDeck(f.agent, d.ID, core.DeckInput{Name: "Home"}))
	if renamed.Name != "Home" {
		t.Errorf("renamed = %v", renamed)
	}
	f.deck(t, "Other")
	_, err := f.svc.RenameDeck(f.admin, "Home", core.DeckInput{Name: "other"})
	wantCode(t, err, backend.CodeConflict)
	_, err = f.svc.GetDeck(f.reader, "nope")
	e := wantCode(t, err, backend.CodeNotFound)
	if !strings.Contains(e.Message, "Home") || !strings.Contains(e.Message, "Other") {
		t.Errorf("not-found message %q does not list the decks", e.Message)
	}
}

func TestDeleteDeckKeepsCards(t *testing.T) {
	f := newCoreFixture(t)
	d := f.deck(t, "D")
	s := f.service(t, "Svc")
	c := f.credential(t, "Key", "v")
	p := f.playbook(t, backend.PlaybookInput{Title: "PB", Body: "b"})
	f.link(t, d.ID, backend.CardService, s.ID)
	f.link(t, d.ID, backend.CardCredential, c.ID)
	f.link(t, d.ID, backend.CardPlaybook, p.ID)
	wantCode(t, f.svc.DeleteDeck(f.agent, d.ID), backend.CodeForbidden)
	if err := f.svc.DeleteDeck(f.admin, "D"); err != nil {
		t.Fatal(err)
	}
	_, err := f.svc.GetDeck(f.admin, d.ID)
	wantCode(t, err, backend.CodeNotFound)
	coreMust[backend.ServiceCard](t)(f.svc.GetService(f.admin, s.ID))
	coreMust[backend.Credential](t)(f.svc.GetCredential(f.admin, c.ID))
	coreMust[backend.Playbook](t)(f.svc.GetPlaybook(f.admin, p.ID))
}

func TestLinkUnlinkReorder(t *testing.T) {
	f := newCoreFixture(t)
	d := f.deck(t, "D")
	a, b, c := f.service(t, "Alpha"), f.service(t, "Beta"), f.service(t, "Gamma")
	f.service(t, "Unlinked")
	f.link(t, d.ID, backend.CardService, a.ID)
	f.link(t, d.ID, backend.CardService, "beta") // by name, case-insensitive
	res := coreMust[core.CardsResult](t)(f.svc.LinkCard(f.agent, core.LinkCardInput{
		CardRef:  core.CardRef{Deck: "D", CardType: backend.CardService, CardID: c.ID},
		Position: ptr(0),
	}))
	if diff := cmp.Diff([]string{c.ID, a.ID, b.ID}, res.CardIDs); diff != "" {
		t.Fatalf("after link at 0 (-want +got):\n%s", diff)
	}
	// Linking again moves; a position past the end clamps to the end.
	res = coreMust[core.CardsResult](t)(f.svc.LinkCard(f.agent, core.LinkCardInput{
		CardRef:  core.CardRef{Deck: d.ID, CardType: backend.CardService, CardID: c.ID},
		Position: ptr(99),
	}))
	want := []string{a.ID, b.ID, c.ID}
	if diff := cmp.Diff(want, res.CardIDs); diff != "" {
		t.Fatalf("after move to end (-want +got):\n%s", diff)
	}
	_, err := f.svc.LinkCard(f.agent, core.LinkCardInput{
		CardRef: core.CardRef{Deck: d.ID, CardType: backend.CardService, CardID: a.ID}, Position: ptr(-1)})
	wantCode(t, err, backend.CodeInvalidArgument)

	_, err = f.svc.LinkCard(f.agent, core.LinkCardInput{
		CardRef: core.CardRef{Deck: d.ID, CardType: backend.CardService, CardID: "Nope"}})
	e := wantCode(t, err, backend.CodeNotFound)
	if !strings.Contains(e.Message, "Unlinked") || !strings.Contains(e.Message, a.ID) {
		t.Errorf("unknown-card message %q does not list the known services", e.Message)
	}
	_, err = f.svc.LinkCard(f.agent, core.LinkCardInput{
		CardRef: core.CardRef{Deck: d.ID, CardType: "widget", CardID: a.ID}})
	e = wantCode(t, err, backend.CodeInvalidArgument)
	if diff := cmp.Diff([]string{"service", "credential", "playbook"}, e.Details["accepted"]); diff != "" {
		t.Errorf("accepted card types (-want +got):\n%s", diff)
	}

	bad := []struct {
		name string
		ids  []string
	}{
		{"missing one", []string{c.ID, a.ID}},
		{"unknown one", []string{c.ID, a.ID, b.ID, "ffffffff-ffff-4fff-8fff-ffffffffffff"}},
		{"not on the deck", []string{c.ID, a.ID, "Unlinked"}},
		{"repeated", []string{c.ID, a.ID, a.ID}},
		{"empty", nil},
	}
	for _, tt := range bad {
		t.Run("reorder "+tt.name, func(t *testing.T) {
			_, err := f.svc.ReorderCards(f.agent, core.ReorderCardsInput{
				Deck: d.ID, CardType: backend.CardService, OrderedCardIDs: tt.ids})
			e := wantCode(t, err, backend.CodeInvalidArgument)
			if e.Details["field"] != "ordered_card_ids" {
				t.Errorf("details = %v", e.Details)
			}
			snap := coreMust[core.DeckSnapshot](t)(f.svc.DeckSnapshot(f.reader, d.ID))
			if diff := cmp.Diff(want, serviceIDs(snap)); diff != "" {
				t.Errorf("a refused reorder changed the deck (-want +got):\n%s", diff)
			}
		})
	}
	res = coreMust[core.CardsResult](t)(f.svc.ReorderCards(f.agent, core.ReorderCardsInput{
		Deck: "D", CardType: backend.CardService, OrderedCardIDs: []string{"gamma", b.ID, "Alpha"}}))
	want = []string{c.ID, b.ID, a.ID}
	if diff := cmp.Diff(want, res.CardIDs); diff != "" {
		t.Errorf("reorder (-want +got):\n%s", diff)
	}

	_, err = f.svc.UnlinkCard(f.agent, core.CardRef{Deck: d.ID, CardType: backend.CardService, CardID: "Unlinked"})
	e = wantCode(t, err, backend.CodeNotFound)
	if !strings.Contains(e.Message, "Gamma") || strings.Contains(e.Message, "Unlinked (") {
		t.Errorf("not-on-deck message %q should list what is on the deck", e.Message)
	}
	res = coreMust[core.CardsResult](t)(f.svc.UnlinkCard(f.agent, core.CardRef{Deck: d.ID, CardType: backend.CardService, CardID: "beta"}))
	if diff := cmp.Diff([]string{c.ID, a.ID}, res.CardIDs); diff != "" {
		t.Errorf("after unlink (-want +got):\n%s", diff)
	}
	if len(res.Warnings) != 0 {
		t.Errorf("unexpected warnings %v", res.Warnings)
	}
}

func serviceIDs(s core.DeckSnapshot) []string {
	var ids []string
	for _, x := range s.Services {
		ids = append(ids, x.ID)
	}
	return ids
}

func TestDeckSnapshot(t *testing.T) {
	f := newCoreFixture(t)
	d := f.deck(t, "D")
	s1, s2 := f.service(t, "One"), f.service(t, "Two")
	cr := f.credential(t, "Key", "sk-canary-snapshot")
	p := f.playbook(t, backend.PlaybookInput{Title: "PB", Body: "b", Triggers: []string{"do it"}})
	f.link(t, d.ID, backend.CardService, s2.ID)
	f.link(t, d.ID, backend.CardService, s1.ID)
	f.link(t, d.ID, backend.CardCredential, cr.ID)
	f.link(t, d.ID, backend.CardPlaybook, p.ID)
	coreMust[backend.ServiceCard](t)(f.svc.UpdateService(f.admin, s1.ID, core.ServicePatch{}))
	f.ds.mu.Lock()
	f.ds.status[s1.ID] = backend.DownstreamStatus{
		Health: backend.Health{Status: backend.HealthHealthy},
		Tools:  []backend.DownstreamTool{{Name: "a"}, {Name: "b"}, {Name: "c"}},
	}
	f.ds.mu.Unlock()

	snap := coreMust[core.DeckSnapshot](t)(f.svc.DeckSnapshot(f.reader, "d"))
	if diff := cmp.Diff([]string{s2.ID, s1.ID}, serviceIDs(snap)); diff != "" {
		t.Errorf("service order (-want +got):\n%s", diff)
	}
	got := map[string]core.DeckService{}
	for _, s := range snap.Services {
		got[s.ID] = s
	}
	if g := got[s1.ID]; g.Health.Status != backend.HealthHealthy || g.EnabledToolCount == nil || *g.EnabledToolCount != 3 || *g.DisabledToolCount != 0 {
		t.Errorf("live service = %+v, want healthy with 3 enabled tools", g)
	}
	if g := got[s2.ID]; g.Health.Status != backend.HealthUnknown || g.EnabledToolCount != nil || g.DisabledToolCount != nil {
		t.Errorf("never-listed service = %+v, want unknown with null counts", g)
	}
	if len(snap.Credentials) != 1 || !snap.Credentials[0].HasSecret || snap.Credentials[0].EnvName != "KEY_API_KEY" {
		t.Errorf("credentials = %+v", snap.Credentials)
	}
	if diff := cmp.Diff([]backend.PlaybookSummary{{ID: p.ID, Title: "PB", Triggers: []string{"do it"}}}, snap.Playbooks); diff != "" {
		t.Errorf("playbooks (-want +got):\n%s", diff)
	}
	noCanary(t, "snapshot", snap, "sk-canary-snapshot")
}

// lookupFailingStore fails card lookups by ref while fail is set, as a lost database connection
// would; everything else, inside transactions too, goes to the real Store.
type lookupFailingStore struct {
	backend.Store
	fail *atomic.Bool
}

func (s lookupFailingStore) Transact(ctx context.Context, fn func(backend.Store) error) error {
	return s.Store.Transact(ctx, func(tx backend.Store) error {
		return fn(lookupFailingStore{Store: tx, fail: s.fail})
	})
}

func (s lookupFailingStore) GetService(ctx context.Context, ref string) (backend.ServiceRecord, error) {
	if s.fail.Load() {
		return backend.ServiceRecord{}, errors.New("connection reset by peer")
	}
	return s.Store.GetService(ctx, ref)
}

// TestLinkedCardLookupErrorsAreReturned: a card named on a deck by its name is looked up; when
// that lookup fails, the call fails with the error instead of calling the card not linked.
func TestLinkedCardLookupErrorsAreReturned(t *testing.T) {
	f := newCoreFixture(t)
	fail := &atomic.Bool{}
	svc := core.NewHub(lookupFailingStore{Store: f.store, fail: fail}, f.ds, newTestSealer(t), nil, nil, core.Config{})
	d := f.deck(t, "D")
	a, b := f.service(t, "Alpha"), f.service(t, "Beta")
	f.link(t, d.ID, backend.CardService, a.ID)
	f.link(t, d.ID, backend.CardService, b.ID)
	fail.Store(true)
	tests := []struct {
		name string
		call func() error
	}{
		{"unlink by name", func() error {
			_, err := svc.UnlinkCard(f.agent, core.CardRef{Deck: d.ID, CardType: backend.CardService, CardID: "Alpha"})
			return err
		}},
		{"reorder by name", func() error {
			_, err := svc.ReorderCards(f.agent, core.ReorderCardsInput{Deck: d.ID, CardType: backend.CardService,
				OrderedCardIDs: []string{"Beta", "Alpha"}})
			return err
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			wantCode(t, tt.call(), backend.CodeInternal)
		})
	}
	fail.Store(false)
	if got := serviceIDs(coreMust[core.DeckSnapshot](t)(f.svc.DeckSnapshot(f.reader, d.ID))); !cmp.Equal(got, []string{a.ID, b.ID}) {
		t.Errorf("deck services after failed calls = %v, want unchanged %v", got, []string{a.ID, b.ID})
	}
}
