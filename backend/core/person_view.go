package core

import (
	"context"
	"fmt"
	"slices"

	"github.com/agent-deck/agent-deck/backend"
)

// personView is the Store the Hub reads through. For a member (the person of the caller's
// token) it shows only the decks the member may use (their own, those shared with everyone,
// those shared with them) and the cards the member owns or reaches through those decks; to an
// admin it shows everything. Every use case resolves decks and cards through it, so a deck or
// card a member may not use is NOT_FOUND on every surface, and the lists in teaching errors
// name only what the member may use. Reads the core caches by id are checked where the cache is
// read (deckByRefCached, serviceTarget, boundSession).
type personView struct {
	backend.Store
	c *caches
	// inTx says the view wraps a transaction: a card made in it is not committed yet, so the
	// person's cards are read through the transaction, uncached.
	inTx bool
}

// Transact runs fn with a view of the transaction.
func (v *personView) Transact(ctx context.Context, fn func(backend.Store) error) error {
	if v.inTx {
		return fn(v)
	}
	return v.Store.Transact(ctx, func(tx backend.Store) error {
		return fn(&personView{Store: tx, c: v.c, inTx: true})
	})
}

// personCardsMap is the cache of each member's reachable cards.
func personCardsMap(c *caches) map[string]backend.PersonCards { return c.personCards }

// cards returns the cards linked to the decks the member may use.
func (v *personView) cards(ctx context.Context, m backend.Actor) (backend.PersonCards, error) {
	if v.inTx {
		return v.Store.PersonCards(ctx, m.PersonID)
	}
	if pc, ok := cacheGet(v.c, personCardsMap, m.PersonID); ok {
		return pc, nil
	}
	gen, _ := v.c.generation()
	pc, err := v.Store.PersonCards(ctx, m.PersonID)
	if err == nil {
		cachePut(v.c, personCardsMap, gen, m.PersonID, pc)
	}
	return pc, err
}

// sees reports whether the member sees a card: they own it, or it is on a deck they may use.
func (v *personView) sees(ctx context.Context, m backend.Actor, t backend.CardType, id, owner string) (bool, error) {
	if owner == m.PersonID {
		return true, nil
	}
	pc, err := v.cards(ctx, m)
	if err != nil {
		return false, err
	}
	return pc.Has(t, id), nil
}

func hidden(entity, ref string) error {
	return backend.Errorf(backend.CodeNotFound, "%s %q not found", entity, backend.Clip(ref, 80))
}

// filterCards keeps the records a member sees.
func filterCards[R any](ctx context.Context, v *personView, rs []R, t backend.CardType, idOwner func(R) (string, string)) ([]R, error) {
	m, ok := backend.Member(ctx)
	if !ok {
		return rs, nil
	}
	out := rs[:0:0]
	for _, r := range rs {
		id, owner := idOwner(r)
		ok, err := v.sees(ctx, m, t, id, owner)
		if err != nil {
			return nil, err
		}
		if ok {
			out = append(out, r)
		}
	}
	return out, nil
}

// getCard checks one record a member asked for.
func getCard[R any](ctx context.Context, v *personView, r R, err error, t backend.CardType, ref, id, owner string) (R, error) {
	m, ok := backend.Member(ctx)
	if err != nil || !ok {
		return r, err
	}
	seen, serr := v.sees(ctx, m, t, id, owner)
	if serr != nil {
		var zero R
		return zero, serr
	}
	if !seen {
		var zero R
		return zero, hidden(string(t), ref)
	}
	return r, nil
}

func (v *personView) GetDeck(ctx context.Context, ref string) (backend.Deck, error) {
	d, err := v.Store.GetDeck(ctx, ref)
	if m, ok := backend.Member(ctx); ok && err == nil && !m.MayUseDeck(d) {
		return backend.Deck{}, hidden("deck", ref)
	}
	return d, err
}

func (v *personView) ListDecks(ctx context.Context) ([]backend.Deck, error) {
	return usableDecks(ctx, v.Store.ListDecks)
}

func (v *personView) DecksLinking(ctx context.Context, t backend.CardType, id string) ([]backend.Deck, error) {
	return usableDecks(ctx, func(ctx context.Context) ([]backend.Deck, error) { return v.Store.DecksLinking(ctx, t, id) })
}

func usableDecks(ctx context.Context, list func(context.Context) ([]backend.Deck, error)) ([]backend.Deck, error) {
	ds, err := list(ctx)
	if m, ok := backend.Member(ctx); ok && err == nil {
		ds = slices.DeleteFunc(ds, func(d backend.Deck) bool { return !m.MayUseDeck(d) })
	}
	return ds, err
}

func (v *personView) GetService(ctx context.Context, ref string) (backend.ServiceRecord, error) {
	r, err := v.Store.GetService(ctx, ref)
	return getCard(ctx, v, r, err, backend.CardService, ref, r.ID, r.OwnerID)
}

func (v *personView) ListServices(ctx context.Context) ([]backend.ServiceRecord, error) {
	rs, err := v.Store.ListServices(ctx)
	if err != nil {
		return nil, err
	}
	return filterCards(ctx, v, rs, backend.CardService, func(r backend.ServiceRecord) (string, string) { return r.ID, r.OwnerID })
}

func (v *personView) GetCredential(ctx context.Context, ref string) (backend.CredentialRecord, error) {
	r, err := v.Store.GetCredential(ctx, ref)
	return getCard(ctx, v, r, err, backend.CardCredential, ref, r.ID, r.OwnerID)
}

func (v *personView) ListCredentials(ctx context.Context) ([]backend.CredentialRecord, error) {
	rs, err := v.Store.ListCredentials(ctx)
	if err != nil {
		return nil, err
	}
	return filterCards(ctx, v, rs, backend.CardCredential, func(r backend.CredentialRecord) (string, string) { return r.ID, r.OwnerID })
}

func (v *personView) GetPlaybook(ctx context.Context, ref string) (backend.Playbook, error) {
	p, err := v.Store.GetPlaybook(ctx, ref)
	return getCard(ctx, v, p, err, backend.CardPlaybook, ref, p.ID, p.OwnerID)
}

func (v *personView) ListPlaybooks(ctx context.Context) ([]backend.Playbook, error) {
	ps, err := v.Store.ListPlaybooks(ctx)
	if err != nil {
		return nil, err
	}
	return filterCards(ctx, v, ps, backend.CardPlaybook, func(p backend.Playbook) (string, string) { return p.ID, p.OwnerID })
}

// PlaybooksDependingOn keeps every dependent playbook, so a delete is still refused for one the
// member cannot see, but names only those the member sees.
func (v *personView) PlaybooksDependingOn(ctx context.Context, t backend.CardType, id string) ([]backend.Playbook, error) {
	ps, err := v.Store.PlaybooksDependingOn(ctx, t, id)
	m, ok := backend.Member(ctx)
	if err != nil || !ok {
		return ps, err
	}
	for i, p := range ps {
		seen, err := v.sees(ctx, m, backend.CardPlaybook, p.ID, p.OwnerID)
		if err != nil {
			return nil, err
		}
		if !seen {
			ps[i] = backend.Playbook{ID: fmt.Sprintf("(not yours %d)", i+1), Title: "a playbook of another person"}
		}
	}
	return ps, nil
}

// seesCached reports whether the caller sees a card the replica's cache holds (always, for
// admins); a failure to tell counts as not seeing it, so the caller reads it through the view.
func (s *Hub) seesCached(ctx context.Context, t backend.CardType, id, owner string) bool {
	m, ok := backend.Member(ctx)
	if !ok {
		return true
	}
	v := &personView{Store: s.rawStore, c: s.cache}
	seen, err := v.sees(ctx, m, t, id, owner)
	return err == nil && seen
}

// What a person makes belongs to them, whatever the use case that makes it (a REST create, an
// agent's register, an import, an accepted proposal): the owner is the caller's person unless
// the record names one. Without a person (the composition root) the Store gives it to the
// first admin.

func ownerOf(ctx context.Context, owner string) string {
	if owner != "" {
		return owner
	}
	a, _ := backend.ActorFrom(ctx)
	return a.PersonID
}

func (v *personView) CreateDeck(ctx context.Context, d *backend.Deck) error {
	d.OwnerID = ownerOf(ctx, d.OwnerID)
	return v.Store.CreateDeck(ctx, d)
}

func (v *personView) CreateService(ctx context.Context, r *backend.ServiceRecord) error {
	r.OwnerID = ownerOf(ctx, r.OwnerID)
	return v.Store.CreateService(ctx, r)
}

func (v *personView) CreateCredential(ctx context.Context, r *backend.CredentialRecord) error {
	r.OwnerID = ownerOf(ctx, r.OwnerID)
	return v.Store.CreateCredential(ctx, r)
}

func (v *personView) CreatePlaybook(ctx context.Context, p *backend.Playbook) error {
	p.OwnerID = ownerOf(ctx, p.OwnerID)
	return v.Store.CreatePlaybook(ctx, p)
}

func (v *personView) CreateServices(ctx context.Context, rs []*backend.ServiceRecord) error {
	for _, r := range rs {
		r.OwnerID = ownerOf(ctx, r.OwnerID)
	}
	return v.Store.CreateServices(ctx, rs)
}

func (v *personView) CreateCredentials(ctx context.Context, rs []*backend.CredentialRecord) error {
	for _, r := range rs {
		r.OwnerID = ownerOf(ctx, r.OwnerID)
	}
	return v.Store.CreateCredentials(ctx, rs)
}

func (v *personView) CreatePlaybooks(ctx context.Context, ps []*backend.Playbook) error {
	for _, p := range ps {
		p.OwnerID = ownerOf(ctx, p.OwnerID)
	}
	return v.Store.CreatePlaybooks(ctx, ps)
}

// ListIDsWithPrefix keeps, for a member, only the decks and cards they may use: the start of an
// id neither picks nor names (in an ambiguity's candidates) another person's deck or card.
func (v *personView) ListIDsWithPrefix(ctx context.Context, kind backend.IDKind, prefix string, limit int) ([]string, error) {
	ids, err := v.Store.ListIDsWithPrefix(ctx, kind, prefix, limit)
	if _, ok := backend.Member(ctx); !ok || err != nil {
		return ids, err
	}
	var get func(id string) error
	switch kind {
	case backend.IDDeck:
		get = func(id string) error { _, err := v.GetDeck(ctx, id); return err }
	case backend.IDService:
		get = func(id string) error { _, err := v.GetService(ctx, id); return err }
	case backend.IDCredential:
		get = func(id string) error { _, err := v.GetCredential(ctx, id); return err }
	case backend.IDPlaybook:
		get = func(id string) error { _, err := v.GetPlaybook(ctx, id); return err }
	default:
		return ids, nil
	}
	out := ids[:0:0]
	for _, id := range ids {
		err := get(id)
		switch {
		case err == nil:
			out = append(out, id)
		case !backend.IsNotFound(err):
			return nil, err
		}
	}
	return out, nil
}
