package core

import (
	"context"
	"encoding/json"
	"slices"

	"github.com/agent-deck/agent-deck/backend"
)

// Sampling is a downstream server asking the agent's model for a completion
// (sampling/createMessage). It spends the person's model and sees its answer, so it is a
// privilege an admin grants per deck and service; without the grant the downstream's sampling
// requests are refused, saying how to allow them.

// DeckSamplingInput allows or forbids one service on one deck to sample.
type DeckSamplingInput struct {
	// Deck and Service are ids or names; the service must be on the deck.
	Deck    string `json:"-"`
	Service string `json:"-"`
	// Allowed is required: true grants sampling, false takes the grant back.
	Allowed *bool `json:"allowed"`
}

// DeckSampling is a deck's sampling setting for one service.
type DeckSampling struct {
	DeckID      string `json:"deck_id"`
	DeckName    string `json:"deck_name"`
	ServiceID   string `json:"service_id"`
	ServiceName string `json:"service_name"`
	Allowed     bool   `json:"allowed"`
}

// SetDeckSampling grants or withdraws sampling for a service on a deck; admin only.
func (s *Hub) SetDeckSampling(ctx context.Context, in DeckSamplingInput) (DeckSampling, error) {
	if _, err := backend.RequireAdmin(ctx, "allow sampling"); err != nil {
		return DeckSampling{}, err
	}
	if in.Allowed == nil {
		return DeckSampling{}, backend.Invalid("allowed", "say whether sampling is allowed: true or false")
	}
	deck, svc, err := s.samplingPair(ctx, in.Deck, in.Service)
	if err != nil {
		return DeckSampling{}, err
	}
	if err := s.store.SetSamplingAllowed(ctx, deck.ID, svc.ID, *in.Allowed); err != nil {
		return DeckSampling{}, backend.StoreErr("setting sampling", err)
	}
	return DeckSampling{DeckID: deck.ID, DeckName: deck.Name, ServiceID: svc.ID, ServiceName: svc.Name,
		Allowed: *in.Allowed}, nil
}

// GetDeckSampling says whether a service on a deck may sample. Admin only, as granting is.
func (s *Hub) GetDeckSampling(ctx context.Context, deckRef, serviceRef string) (DeckSampling, error) {
	if _, err := backend.RequireAdmin(ctx, "read a deck's sampling setting"); err != nil {
		return DeckSampling{}, err
	}
	deck, svc, err := s.samplingPair(ctx, deckRef, serviceRef)
	if err != nil {
		return DeckSampling{}, err
	}
	allowed, err := s.store.SamplingAllowed(ctx, deck.ID, svc.ID)
	if err != nil {
		return DeckSampling{}, backend.StoreErr("reading sampling", err)
	}
	return DeckSampling{DeckID: deck.ID, DeckName: deck.Name, ServiceID: svc.ID, ServiceName: svc.Name, Allowed: allowed}, nil
}

// samplingPair resolves a deck and a service it links.
func (s *Hub) samplingPair(ctx context.Context, deckRef, serviceRef string) (backend.Deck, backend.ServiceRecord, error) {
	deck, err := s.deckByRef(ctx, s.store, deckRef)
	if err != nil {
		return backend.Deck{}, backend.ServiceRecord{}, err
	}
	svc, err := backend.ServiceByRef(ctx, s.store, serviceRef)
	if err != nil {
		return backend.Deck{}, backend.ServiceRecord{}, err
	}
	links, err := s.deckLinks(ctx, deck.ID)
	if err != nil {
		return backend.Deck{}, backend.ServiceRecord{}, backend.StoreErr("listing deck cards", err)
	}
	if !slices.Contains(idsOfType(links, backend.CardService), svc.ID) {
		return backend.Deck{}, backend.ServiceRecord{}, backend.Errorf(backend.CodeInvalidArgument, "service %s is not on deck %s", svc.Name, deck.Name).
			WithDetail("field", "service").WithHint("link the service to the deck first, then allow sampling")
	}
	return deck, svc, nil
}

// withoutSampling withholds sampling from a call's relay: its plan says the deck does not allow
// the service to sample. A call whose client offers no sampling is left as it is.
func withoutSampling(ctx context.Context) context.Context {
	r := backend.RelayFrom(ctx)
	if r == nil || !r.Wants().Sampling {
		return ctx
	}
	return backend.WithRelay(ctx, noSampling{r})
}

// noSampling is a relay whose session may not sample here.
type noSampling struct{ backend.Relay }

func (n noSampling) Wants() backend.RelayWants {
	w := n.Relay.Wants()
	w.Sampling = false
	return w
}

// Request refuses sampling, saying how to allow it; anything else passes.
func (n noSampling) Request(ctx context.Context, method string, params json.RawMessage) (json.RawMessage, error) {
	if method == backend.MethodSampling {
		return nil, backend.RelayRefusal("sampling is not allowed for this service on this deck (an admin allows it: agent-deck deck sampling DECK SERVICE --allow)")
	}
	return n.Relay.Request(ctx, method, params)
}
