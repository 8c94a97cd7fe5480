package core

import (
	"context"
	"slices"
	"strings"

	"github.com/agent-deck/agent-deck/backend"
)

// DeckSharingInput says who besides its owner may use a deck: nobody (private), everyone, or
// the people named in SharedWith. Owner (name or id), when set, hands the deck to someone else.
type DeckSharingInput struct {
	Sharing    backend.Sharing `json:"sharing"`
	SharedWith []string        `json:"shared_with,omitempty"`
	Owner      string          `json:"owner,omitempty"`
}

// ShareDeck sets who may use a deck: its owner or an admin, on a person's own surface. Those it
// is shared with may see it, bind it and edit it; only its owner (or an admin) shares or
// deletes it.
func (s *Hub) ShareDeck(ctx context.Context, ref string, in DeckSharingInput) (backend.Deck, error) {
	a, err := backend.RequirePerson(ctx, "share a deck")
	if err != nil {
		return backend.Deck{}, err
	}
	if !slices.Contains(backend.Sharings, in.Sharing) {
		return backend.Deck{}, backend.InvalidEnum("sharing", in.Sharing, backend.Sharings)
	}
	if in.Sharing != backend.SharePeople && len(in.SharedWith) > 0 {
		return backend.Deck{}, backend.Invalid("shared_with", "names people only with sharing %q; got sharing %q",
			backend.SharePeople, in.Sharing)
	}
	return backend.Transact(ctx, s.store, func(tx backend.Store) (backend.Deck, error) {
		d, err := s.deckByRef(ctx, tx, ref)
		if err != nil {
			return backend.Deck{}, err
		}
		if err := mayManage(a, "deck", d.Name, d.OwnerID, "share"); err != nil {
			return backend.Deck{}, err
		}
		ids := make([]string, 0, len(in.SharedWith))
		for _, name := range in.SharedWith {
			p, err := s.personByRef(ctx, tx, name)
			if err != nil {
				return backend.Deck{}, backend.AsError(err).WithDetail("field", "shared_with")
			}
			if !slices.Contains(ids, p.ID) {
				ids = append(ids, p.ID)
			}
		}
		owner := ""
		if strings.TrimSpace(in.Owner) != "" {
			p, err := s.personByRef(ctx, tx, in.Owner)
			if err != nil {
				return backend.Deck{}, backend.AsError(err).WithDetail("field", "owner")
			}
			owner = p.ID
		}
		if err := tx.SetDeckSharing(ctx, d.ID, in.Sharing, ids, owner); err != nil {
			return backend.Deck{}, backend.StoreErr("sharing a deck", err)
		}
		// Read back as an admin would: a member who handed the deck on may no longer see it.
		return tx.GetDeck(backend.WithActor(ctx, backend.SystemActor), d.ID)
	})
}

// mayManage refuses a member who does not own what they try to delete or share.
func mayManage(a backend.Actor, kind, name, owner, what string) error {
	if a.MayManage(owner) {
		return nil
	}
	return backend.Errorf(backend.CodeForbidden, "only the owner of %s %s or an admin may %s it", kind, backend.QuoteClip(name), what).
		WithHint("ask its owner or an admin")
}

// changesService refuses a member who changes a service they do not own: it is shared with
// them through a deck, to use, not to repoint or retune for everyone.
func changesService(ctx context.Context, rec backend.ServiceRecord) error {
	m, ok := backend.Member(ctx)
	if !ok || rec.OwnerID == m.PersonID {
		return nil
	}
	return backend.Errorf(backend.CodeForbidden, "service %s belongs to another person; only its owner or an admin may change it", backend.QuoteClip(rec.Name)).
		WithHint(backend.InWordsOf(ctx, "a deck's own rules narrow its tools: PATCH /api/v1/decks/{deck}/services/{service}/settings",
			"ask its owner or an admin"))
}
