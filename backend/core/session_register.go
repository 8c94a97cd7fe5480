package core

import (
	"context"

	"github.com/agent-deck/agent-deck/backend"
)

// RegisterServiceInput is register_service's input: a new service card and whether to put it on
// the session's bound deck (default: yes when the session is bound).
type RegisterServiceInput struct {
	ServiceInput
	AddToBoundDeck *bool `json:"add_to_bound_deck,omitempty"`
	Position       *int  `json:"position,omitempty"`
}

// RegisteredService is a new service card and the deck it was linked to, if any.
type RegisteredService struct {
	backend.ServiceCard
	LinkedDeckID string `json:"linked_deck_id,omitempty"`
}

// RegisterPlaybookInput is register_playbook's input: a new playbook and whether to put it on
// the session's bound deck (default: yes when the session is bound).
type RegisterPlaybookInput struct {
	backend.PlaybookInput
	AddToBoundDeck *bool `json:"add_to_bound_deck,omitempty"`
}

// RegisteredPlaybook is a new playbook, the deck it was linked to, and the advice of both steps.
type RegisteredPlaybook struct {
	PlaybookResult
	LinkedDeckID string `json:"linked_deck_id,omitempty"`
}

// RegisterService creates a service card and, when asked (or by default when bound), links it
// to the session's bound deck, in one transaction: both happen or neither does.
func (s *Hub) RegisterService(ctx context.Context, sessionID string, in RegisterServiceInput) (RegisteredService, error) {
	if _, err := backend.RequireWrite(ctx, "register a service"); err != nil {
		return RegisteredService{}, err
	}
	deckID, err := s.linkTarget(ctx, sessionID, in.AddToBoundDeck)
	if err != nil {
		return RegisteredService{}, err
	}
	return backend.Transact(ctx, s.store, func(tx backend.Store) (RegisteredService, error) {
		txs := s.withStore(tx)
		card, err := txs.CreateService(ctx, in.ServiceInput)
		if err != nil {
			return RegisteredService{}, err
		}
		if deckID == "" {
			return RegisteredService{ServiceCard: card}, nil
		}
		if _, err := txs.LinkCard(ctx, LinkCardInput{CardRef: CardRef{Deck: deckID, CardType: backend.CardService,
			CardID: card.ID}, Position: in.Position}); err != nil {
			return RegisteredService{}, err
		}
		return RegisteredService{ServiceCard: card, LinkedDeckID: deckID}, nil
	})
}

// RegisterPlaybook creates a playbook and, when asked (or by default when bound), links it to
// the session's bound deck, in one transaction. Where that deck (or, linked nowhere, the
// server's default) requires review of agents' writes, the playbook is held as a proposal.
func (s *Hub) RegisterPlaybook(ctx context.Context, sessionID string, in RegisterPlaybookInput) (RegisteredPlaybook, error) {
	a, err := backend.RequireWrite(ctx, "register a playbook")
	if err != nil {
		return RegisteredPlaybook{}, err
	}
	deckID, err := s.linkTarget(ctx, sessionID, in.AddToBoundDeck)
	if err != nil {
		return RegisteredPlaybook{}, err
	}
	p, err := newPlaybook(in.PlaybookInput)
	if err != nil {
		return RegisteredPlaybook{}, err
	}
	if err := requireAdminToRun(ctx, a, backend.Playbook{}, p); err != nil {
		return RegisteredPlaybook{}, err
	}
	held, err := s.reviewRequired(ctx, s.store, a, "", deckID)
	if err != nil {
		return RegisteredPlaybook{}, err
	}
	if held {
		sess, err := s.sessionFor(ctx, sessionID)
		if err != nil {
			return RegisteredPlaybook{}, err
		}
		res, err := s.holdCreate(ctx, s.store, a, originOf(sess), deckID, in.PlaybookInput, p)
		return RegisteredPlaybook{PlaybookResult: res}, err
	}
	return backend.Transact(ctx, s.store, func(tx backend.Store) (RegisteredPlaybook, error) {
		txs := s.withStore(tx)
		res, err := txs.createPlaybook(ctx, p, in.PlaybookInput)
		if err != nil {
			return RegisteredPlaybook{}, err
		}
		out := RegisteredPlaybook{PlaybookResult: res}
		if deckID == "" {
			return out, nil
		}
		linked, err := txs.LinkCard(ctx, LinkCardInput{CardRef: CardRef{Deck: deckID,
			CardType: backend.CardPlaybook, CardID: res.ID}})
		if err != nil {
			return RegisteredPlaybook{}, err
		}
		out.LinkedDeckID = deckID
		out.Warnings = append(backend.OrEmpty(out.Warnings), linked.Warnings...)
		return out, nil
	})
}

// linkTarget decides where a new card goes: the bound deck when add is unset and the session is
// bound, or when add is true (then NOT_BOUND if unbound); nowhere when add is false.
func (s *Hub) linkTarget(ctx context.Context, sessionID string, add *bool) (string, error) {
	if add != nil && !*add {
		return "", nil
	}
	if add != nil {
		sess, err := s.boundSession(ctx, sessionID)
		return sess.DeckID, err
	}
	sess, err := s.sessionFor(ctx, sessionID)
	if err != nil {
		return "", err
	}
	return sess.DeckID, nil
}

// Collection is list_collection's answer: every card's metadata, never playbook bodies or
// secrets. A card type not asked for is omitted.
type Collection struct {
	Services    *[]DeckService             `json:"services,omitempty"`
	Credentials *[]backend.Credential      `json:"credentials,omitempty"`
	Playbooks   *[]backend.PlaybookSummary `json:"playbooks,omitempty"`
}

// ListCollection lists the collection's cards of one type, or of every type when t is empty.
func (s *Hub) ListCollection(ctx context.Context, t backend.CardType) (Collection, error) {
	if _, err := backend.RequireRead(ctx, "list the collection"); err != nil {
		return Collection{}, err
	}
	if t != "" {
		if err := backend.CheckCardType("card_type", t); err != nil {
			return Collection{}, err
		}
	}
	var c Collection
	if t == "" || t == backend.CardService {
		recs, err := s.store.ListServices(ctx)
		if err != nil {
			return Collection{}, backend.StoreErr("listing services", err)
		}
		list := make([]DeckService, len(recs))
		for i := range recs {
			list[i] = s.deckService(&recs[i])
		}
		c.Services = &list
	}
	if t == "" || t == backend.CardCredential {
		creds, err := s.ListCredentials(ctx)
		if err != nil {
			return Collection{}, err
		}
		list := backend.OrEmpty(creds)
		c.Credentials = &list
	}
	if t == "" || t == backend.CardPlaybook {
		pbs, err := s.ListPlaybooks(ctx)
		if err != nil {
			return Collection{}, err
		}
		list := make([]backend.PlaybookSummary, len(pbs))
		for i, p := range pbs {
			list[i] = backend.PlaybookSummary{ID: p.ID, Title: p.Title, Triggers: backend.OrEmpty(p.Triggers)}
		}
		c.Playbooks = &list
	}
	return c, nil
}
