package core

import (
	"context"
	"errors"
	"slices"
	"strings"

	"github.com/agent-deck/agent-deck/backend"
)

// BoundServiceTools lists the enabled tools of a service on the session's bound deck.
func (s *Hub) BoundServiceTools(ctx context.Context, sessionID, serviceRef string) ([]ToolInfo, error) {
	a, err := backend.RequireRead(ctx, "list service tools")
	if err != nil {
		return nil, err
	}
	p, err := s.boundPlan(ctx, sessionID, serviceRef)
	if err != nil {
		return nil, err
	}
	return s.listServiceTools(ctx, a, p)
}

// BoundPlaybook is get_playbook: a playbook on the session's bound deck, body included, with
// its open proposals. Each call is recorded as a fetch event.
func (s *Hub) BoundPlaybook(ctx context.Context, sessionID, ref string) (BoundPlaybookView, error) {
	if _, err := backend.RequireRead(ctx, "read playbooks"); err != nil {
		return BoundPlaybookView{}, err
	}
	id, err := s.boundPlaybookID(ctx, sessionID, ref)
	if err != nil {
		return BoundPlaybookView{}, err
	}
	p, err := s.GetPlaybook(ctx, id)
	if err != nil {
		return BoundPlaybookView{}, err
	}
	return s.playbookForAgent(ctx, sessionID, p)
}

// UpdateBoundPlaybook is update_playbook: it changes a playbook on the session's bound deck
// only, as get_playbook reads only those.
func (s *Hub) UpdateBoundPlaybook(ctx context.Context, sessionID, ref string, in PlaybookPatch) (PlaybookResult, error) {
	if _, err := backend.RequireWrite(ctx, "change playbooks"); err != nil {
		return PlaybookResult{}, err
	}
	id, err := s.boundPlaybookID(ctx, sessionID, ref)
	if err != nil {
		return PlaybookResult{}, err
	}
	sess, err := s.boundSession(ctx, sessionID)
	if err != nil {
		return PlaybookResult{}, err
	}
	return s.updatePlaybook(ctx, id, in, originOf(sess))
}

// boundPlaybookID resolves a playbook id or title among the bound deck's playbooks;
// NOT_ON_BOUND_DECK lists the playbooks the deck does hold.
func (s *Hub) boundPlaybookID(ctx context.Context, sessionID, ref string) (string, error) {
	sess, err := s.boundSession(ctx, sessionID)
	if err != nil {
		return "", err
	}
	ids, err := linkedIDs(ctx, s.store, sess.DeckID, backend.CardPlaybook)
	if err != nil {
		return "", err
	}
	ref = strings.TrimSpace(ref)
	id, ok, err := findLinked(ctx, s.store, backend.CardPlaybook, ids, ref)
	if err != nil {
		return "", err
	}
	if !ok || ref == "" {
		return "", s.notOnBoundDeck(ctx, sess, backend.CardPlaybook, ref, ids)
	}
	return id, nil
}

// notOnBoundDeck names what the bound deck holds of that card type, so the agent can pick one
// or link the card first.
func (s *Hub) notOnBoundDeck(ctx context.Context, sess backend.MCPSession, t backend.CardType, ref string, ids []string) error {
	names, err := describeCards(ctx, s.store, t, ids)
	if err != nil {
		return err
	}
	deck := sess.DeckName
	if deck == "" {
		deck = sess.DeckID
	}
	what := "no " + string(t) + " given"
	if ref != "" {
		what = string(t) + " " + backend.QuoteClip(ref) + " is not on the bound deck " + backend.QuoteClip(deck)
	}
	link := "ask the person who runs Agent Deck to link it to the deck"
	if tool := backend.ToolActionFor(ctx, "manage_deck_card", "link"); tool != "" {
		link = "link a collection card with " + tool
	}
	return backend.Errorf(backend.CodeNotOnBoundDeck, "%s; %ss on the deck: %s", what, t, backend.KnownList(names)).
		WithHint("use one of those, or "+link).
		WithDetail("card_type", string(t)).WithDetail("on_deck", backend.CapList(names))
}

// DeckCardChange is manage_deck_card's input: link, unlink or reorder one card type on the
// session's bound deck.
type DeckCardChange struct {
	Action         string           `json:"action"`
	CardType       backend.CardType `json:"card_type"`
	CardID         string           `json:"card_id,omitempty"`
	Position       *int             `json:"position,omitempty"`
	OrderedCardIDs []string         `json:"ordered_card_ids,omitempty"`
}

// DeckCardActions are the actions manage_deck_card accepts.
var DeckCardActions = []string{"link", "unlink", "reorder"}

// ManageBoundDeckCard links, unlinks or reorders cards on the session's bound deck through the
// same methods the REST API uses.
func (s *Hub) ManageBoundDeckCard(ctx context.Context, sessionID string, in DeckCardChange) (CardsResult, error) {
	if _, err := backend.RequireWrite(ctx, "change deck cards"); err != nil {
		return CardsResult{}, err
	}
	if err := CheckDeckCardChange(ctx, in); err != nil {
		return CardsResult{}, err
	}
	sess, err := s.boundSession(ctx, sessionID)
	if err != nil {
		return CardsResult{}, err
	}
	ref := CardRef{Deck: sess.DeckID, CardType: in.CardType, CardID: in.CardID}
	switch in.Action {
	case "link":
		return s.LinkCard(ctx, LinkCardInput{CardRef: ref, Position: in.Position})
	case "unlink":
		res, err := s.UnlinkCard(ctx, ref)
		return res, asNotOnBoundDeck(err)
	default:
		return s.ReorderCards(ctx, ReorderCardsInput{Deck: sess.DeckID, CardType: in.CardType,
			OrderedCardIDs: in.OrderedCardIDs})
	}
}

// CheckDeckCardChange validates the shape of a deck card change before any lookup; every
// failure is INVALID_ARGUMENT naming the field and what it accepts.
func CheckDeckCardChange(ctx context.Context, in DeckCardChange) error {
	if !slices.Contains(DeckCardActions, in.Action) {
		return backend.InvalidEnum("action", in.Action, DeckCardActions).
			WithHint("link and unlink take card_id (and link an optional position); reorder takes ordered_card_ids")
	}
	if err := backend.CheckCardType("card_type", in.CardType); err != nil {
		return err
	}
	switch {
	case in.Action != "reorder" && strings.TrimSpace(in.CardID) == "":
		return backend.Invalid("card_id", "is required for action %s: a %s id or name", in.Action, in.CardType).
			WithHint(backend.ToolFor(ctx, "list_collection") + " shows the collection's cards; " +
				backend.ToolFor(ctx, "get_bound_deck") + " the deck's")
	case in.Action == "reorder" && in.OrderedCardIDs == nil:
		return backend.Invalid("ordered_card_ids", "is required for action reorder: every %s id on the deck, in the new order", in.CardType).
			WithHint(backend.ToolFor(ctx, "get_bound_deck") + " shows the current order")
	case in.Position != nil && *in.Position < 0:
		return backend.Invalid("position", "must be 0 (first) or more, got %d", *in.Position)
	}
	return nil
}

// asNotOnBoundDeck reclassifies the core's "card is not on deck" as NOT_ON_BOUND_DECK, the code
// agents know.
func asNotOnBoundDeck(err error) error {
	var e *backend.Error
	if !errors.As(err, &e) || e.Code != backend.CodeNotFound || e.Details["on_deck"] == nil {
		return err
	}
	c := *e
	c.Code = backend.CodeNotOnBoundDeck
	return &c
}
