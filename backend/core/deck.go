package core

import (
	"context"
	"sort"
	"strings"

	"github.com/agent-deck/agent-deck/backend"
)

// DeckInput creates or renames a deck.
type DeckInput struct {
	Name string `json:"name"`
}

// DeckSnapshot is a deck with its cards in order, as agents and the dashboard see it: no secrets,
// no local env.
type DeckSnapshot struct {
	backend.Deck
	Services    []DeckService             `json:"services"`
	Credentials []backend.Credential      `json:"credentials"`
	Playbooks   []backend.PlaybookSummary `json:"playbooks"`
}

// DeckService is a service card as shown on a deck: health and how many tools are enabled.
// The counts are null while the deck has never fetched the service's tool list; Health then
// says why (usually "unknown": never reached yet).
type DeckService struct {
	ID                string              `json:"id"`
	Name              string              `json:"name"`
	Type              backend.ServiceType `json:"type"`
	Description       string              `json:"description"`
	URL               string              `json:"url,omitempty"`
	CredentialID      string              `json:"credential_id,omitempty"`
	Health            backend.Health      `json:"health"`
	EnabledToolCount  *int                `json:"enabled_tool_count"`
	DisabledToolCount *int                `json:"disabled_tool_count"`
	// Auth is the sign-in state, only for a service that has one (connected, needs_sign_in, error).
	Auth backend.OAuthState `json:"auth,omitempty"`
}

// CardRef names a card on a deck. CardID takes an id or a name/label/title.
type CardRef struct {
	Deck     string           `json:"-"`
	CardType backend.CardType `json:"card_type"`
	CardID   string           `json:"card_id"`
}

// LinkCardInput links a collection card to a deck, at Position (0-based) or at the end.
type LinkCardInput struct {
	CardRef
	Position *int `json:"position,omitempty"`
}

// ReorderCardsInput sets the full order of one card type on a deck.
type ReorderCardsInput struct {
	Deck           string           `json:"-"`
	CardType       backend.CardType `json:"card_type"`
	OrderedCardIDs []string         `json:"ordered_card_ids"`
}

// Warning is advice attached to a successful write (unlink of a card playbooks depend on,
// conflicting triggers).
type Warning struct {
	Code      string   `json:"code"`
	Message   string   `json:"message"`
	Playbooks []string `json:"playbooks,omitempty"`
}

// CardsResult is a deck's cards of one type after a link, unlink or reorder.
type CardsResult struct {
	DeckID   string           `json:"deck_id"`
	CardType backend.CardType `json:"card_type"`
	CardIDs  []string         `json:"card_ids"`
	Warnings []Warning        `json:"warnings"`
}

// ListDecks returns every deck, by name.
func (s *Hub) ListDecks(ctx context.Context) ([]backend.Deck, error) {
	if _, err := backend.RequireRead(ctx, "list decks"); err != nil {
		return nil, err
	}
	decks, err := s.store.ListDecks(ctx)
	if err != nil {
		return nil, backend.StoreErr("listing decks", err)
	}
	sort.SliceStable(decks, func(i, j int) bool {
		return strings.ToLower(decks[i].Name) < strings.ToLower(decks[j].Name)
	})
	return backend.OrEmpty(decks), nil
}

// GetDeck finds a deck by id or exact name.
func (s *Hub) GetDeck(ctx context.Context, ref string) (backend.Deck, error) {
	if _, err := backend.RequireRead(ctx, "read decks"); err != nil {
		return backend.Deck{}, err
	}
	return s.deckByRef(ctx, s.store, ref)
}

// CreateDeck makes an empty deck.
func (s *Hub) CreateDeck(ctx context.Context, in DeckInput) (backend.Deck, error) {
	if _, err := backend.RequireWrite(ctx, "create a deck"); err != nil {
		return backend.Deck{}, err
	}
	name, err := backend.CleanName("name", in.Name)
	if err != nil {
		return backend.Deck{}, err
	}
	id, err := backend.NewUUID()
	if err != nil {
		return backend.Deck{}, err
	}
	now := s.clock()
	d := backend.Deck{ID: id, Name: name, CreatedAt: now, UpdatedAt: now}
	if err := s.store.CreateDeck(ctx, &d); err != nil {
		return backend.Deck{}, s.deckNameConflict(ctx, err, name)
	}
	return d, nil
}

// deckNameConflict names the deck that already holds name, as it is stored.
func (s *Hub) deckNameConflict(ctx context.Context, err error, name string) error {
	stored := ""
	if backend.ErrorCode(err) == backend.CodeConflict {
		if decks, lerr := s.store.ListDecks(ctx); lerr == nil {
			for _, d := range decks {
				if strings.EqualFold(d.Name, name) {
					stored = d.Name
				}
			}
		}
	}
	return backend.StoredNameConflict(err, "deck", "name", name, stored)
}

// RenameDeck changes a deck's name.
func (s *Hub) RenameDeck(ctx context.Context, ref string, in DeckInput) (backend.Deck, error) {
	a, err := backend.RequireWrite(ctx, "rename a deck")
	if err != nil {
		return backend.Deck{}, err
	}
	name, err := backend.CleanName("name", in.Name)
	if err != nil {
		return backend.Deck{}, err
	}
	d, err := s.deckByRef(ctx, s.store, ref)
	if err != nil {
		return backend.Deck{}, err
	}
	if err := mayManage(a, "deck", d.Name, d.OwnerID, "rename"); err != nil {
		return backend.Deck{}, err
	}
	d.Name, d.UpdatedAt = name, s.clock()
	if err := s.store.UpdateDeck(ctx, &d); err != nil {
		return backend.Deck{}, s.deckNameConflict(ctx, err, name)
	}
	return d, nil
}

// DeleteDeck removes a deck and its links; cards stay in the collection. Its owner or an
// admin, on a person's own surface.
func (s *Hub) DeleteDeck(ctx context.Context, ref string) error {
	a, err := backend.RequirePerson(ctx, "delete a deck")
	if err != nil {
		return err
	}
	d, err := s.deckByRef(ctx, s.store, ref)
	if err != nil {
		return err
	}
	if err := mayManage(a, "deck", d.Name, d.OwnerID, "delete"); err != nil {
		return err
	}
	// The links go with the deck (ON DELETE CASCADE); the cards stay in the collection.
	return backend.StoreErr("deleting a deck", s.store.DeleteDeck(ctx, d.ID))
}

// DeckSnapshot returns the deck with its cards in order.
func (s *Hub) DeckSnapshot(ctx context.Context, ref string) (DeckSnapshot, error) {
	if _, err := backend.RequireRead(ctx, "read decks"); err != nil {
		return DeckSnapshot{}, err
	}
	d, err := s.deckByRefCached(ctx, ref)
	if err != nil {
		return DeckSnapshot{}, err
	}
	return s.snapshot(ctx, d)
}

// LinkCard puts a collection card on a deck. Linking a card already on the deck moves it.
func (s *Hub) LinkCard(ctx context.Context, in LinkCardInput) (CardsResult, error) {
	if _, err := backend.RequireWrite(ctx, "link cards to a deck"); err != nil {
		return CardsResult{}, err
	}
	if err := backend.CheckCardType("card_type", in.CardType); err != nil {
		return CardsResult{}, err
	}
	if in.Position != nil && *in.Position < 0 {
		return CardsResult{}, backend.Invalid("position", "must be 0 (first) or more, got %d", *in.Position)
	}
	return backend.Transact(ctx, s.store, func(tx backend.Store) (CardsResult, error) { return s.link(ctx, tx, in) })
}

// UnlinkCard takes a card off a deck, warning which playbooks on that deck depend on it.
func (s *Hub) UnlinkCard(ctx context.Context, in CardRef) (CardsResult, error) {
	if _, err := backend.RequireWrite(ctx, "unlink cards from a deck"); err != nil {
		return CardsResult{}, err
	}
	if err := backend.CheckCardType("card_type", in.CardType); err != nil {
		return CardsResult{}, err
	}
	return backend.Transact(ctx, s.store, func(tx backend.Store) (CardsResult, error) { return s.unlink(ctx, tx, in) })
}

// ReorderCards sets the order of one card type; the list must name exactly the linked cards.
func (s *Hub) ReorderCards(ctx context.Context, in ReorderCardsInput) (CardsResult, error) {
	if _, err := backend.RequireWrite(ctx, "reorder cards on a deck"); err != nil {
		return CardsResult{}, err
	}
	if err := backend.CheckCardType("card_type", in.CardType); err != nil {
		return CardsResult{}, err
	}
	return backend.Transact(ctx, s.store, func(tx backend.Store) (CardsResult, error) { return s.reorder(ctx, tx, in) })
}

// deckByRef finds a deck by id or exact name; NOT_FOUND lists the deck names.
func (s *Hub) deckByRef(ctx context.Context, st backend.Store, ref string) (backend.Deck, error) {
	ref = strings.TrimSpace(ref)
	if ref == "" {
		return backend.Deck{}, backend.Invalid("deck", "a deck id or name is required")
	}
	d, err := st.GetDeck(ctx, ref)
	if err == nil {
		return d, nil
	}
	if !backend.IsNotFound(err) {
		return backend.Deck{}, backend.StoreErr("finding a deck", err)
	}
	if id, err := backend.ResolveIDPrefix(ctx, st, backend.IDDeck, ref); err != nil || id != "" {
		if err != nil {
			return backend.Deck{}, err
		}
		d, err := st.GetDeck(ctx, id)
		return d, backend.StoreErr("finding a deck", err)
	}
	decks, lerr := st.ListDecks(ctx)
	if lerr != nil {
		return backend.Deck{}, backend.StoreErr("listing decks", lerr)
	}
	names := make([]string, len(decks))
	for i, d := range decks {
		names[i] = d.Name
	}
	return backend.Deck{}, backend.Errorf(backend.CodeNotFound, "no deck %q; known decks: %s", backend.Clip(ref, 100), backend.KnownList(names)).
		WithHint("use a deck id or its exact name").WithDetail("known", backend.CapList(names))
}

// DeckChoice is a deck as get_decks lists it: enough to choose one without binding it — how
// many cards of each type it holds, its display line, and the first names of its services and
// playbooks.
type DeckChoice struct {
	backend.Deck
	Counts    DeckCounts `json:"counts"`
	Summary   string     `json:"summary"`
	Services  []string   `json:"services"`
	Playbooks []string   `json:"playbooks"`
}

// maxChoiceNames caps the service names and playbook titles a DeckChoice lists; Counts has the
// whole.
const maxChoiceNames = 8

// DeckChoices lists every deck, by name, with what an agent needs to pick one (get_decks).
// The cards come from the read cache, as get_bound_deck's do.
func (s *Hub) DeckChoices(ctx context.Context) ([]DeckChoice, error) {
	decks, err := s.ListDecks(ctx)
	if err != nil {
		return nil, err
	}
	out := make([]DeckChoice, len(decks))
	for i, d := range decks {
		v, err := s.deckViews(ctx, d)
		if err != nil {
			return nil, err
		}
		c := DeckChoice{Deck: d, Services: []string{}, Playbooks: []string{},
			Counts: DeckCounts{Services: len(v.records), Credentials: len(v.credentials), Playbooks: len(v.playbooks)}}
		c.Summary = DisplaySummary(d.Name, c.Counts, "")
		for _, r := range v.records[:min(len(v.records), maxChoiceNames)] {
			c.Services = append(c.Services, r.Name)
		}
		for _, p := range v.playbooks[:min(len(v.playbooks), maxChoiceNames)] {
			c.Playbooks = append(c.Playbooks, p.Title)
		}
		out[i] = c
	}
	return out, nil
}
