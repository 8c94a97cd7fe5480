package backend

import "context"

// LinkedCards is one deck's linked cards, each type in position order, with only what a deck
// snapshot shows: services without headers, local command settings, sealed values or
// timestamps; credential metadata with HasSecret set but no SealedSecret; playbooks with ID,
// Title and Triggers only (no body, exec, skill or dependencies).
type LinkedCards struct {
	Services    []ServiceRecord
	Credentials []CredentialRecord
	Playbooks   []Playbook
}

// LinkedCardsLoader is an optional Store capability: loading a deck's cards for a snapshot in
// one database round trip, so a snapshot costs about the same for 3 cards or 100. The core uses
// it when its Store implements it.
type LinkedCardsLoader interface {
	LinkedCards(ctx context.Context, deckID string) (LinkedCards, error)
}
