package core

import (
	"context"
	"fmt"
	"sort"
	"strconv"
	"strings"

	"github.com/agent-deck/agent-deck/backend"
)

// linkedIDs returns the ids of the deck's cards of one type, in order.
func linkedIDs(ctx context.Context, st backend.Store, deckID string, t backend.CardType) ([]string, error) {
	links, err := st.ListLinks(ctx, deckID)
	if err != nil {
		return nil, backend.StoreErr("listing deck cards", err)
	}
	return idsOfType(links, t), nil
}

// idsOfType picks the ids of one card type out of a deck's links, in position order.
func idsOfType(links []backend.CardLink, t backend.CardType) []string {
	var typed []backend.CardLink
	for _, l := range links {
		if l.CardType == t {
			typed = append(typed, l)
		}
	}
	sort.SliceStable(typed, func(i, j int) bool { return typed[i].Position < typed[j].Position })
	ids := make([]string, 0, len(typed))
	for _, l := range typed {
		ids = append(ids, l.CardID)
	}
	return ids
}

// lockedDeck resolves the deck and locks it for the rest of the transaction.
func (s *Hub) lockedDeck(ctx context.Context, tx backend.Store, ref string) (backend.Deck, error) {
	d, err := s.deckByRef(ctx, tx, ref)
	if err != nil {
		return backend.Deck{}, err
	}
	if err := tx.LockDeck(ctx, d.ID); err != nil {
		return backend.Deck{}, backend.StoreErr("locking a deck", err)
	}
	return d, nil
}

func without(ids []string, id string) []string {
	out := make([]string, 0, len(ids))
	for _, x := range ids {
		if x != id {
			out = append(out, x)
		}
	}
	return out
}

func (s *Hub) link(ctx context.Context, tx backend.Store, in LinkCardInput) (CardsResult, error) {
	d, err := s.lockedDeck(ctx, tx, in.Deck)
	if err != nil {
		return CardsResult{}, err
	}
	card, err := backend.ResolveCard(ctx, tx, in.CardType, in.CardID)
	if err != nil {
		return CardsResult{}, err
	}
	ids, err := linkedIDs(ctx, tx, d.ID, in.CardType)
	if err != nil {
		return CardsResult{}, err
	}
	ids = without(ids, card.ID)
	pos := len(ids)
	if in.Position != nil && *in.Position < pos {
		pos = *in.Position
	}
	ids = append(ids[:pos], append([]string{card.ID}, ids[pos:]...)...)
	if err := tx.ReplaceLinks(ctx, d.ID, in.CardType, ids); err != nil {
		return CardsResult{}, backend.StoreErr("linking a card", err)
	}
	res := CardsResult{DeckID: d.ID, CardType: in.CardType, CardIDs: ids, Warnings: []Warning{}}
	if in.CardType == backend.CardPlaybook {
		w, err := deckTriggerWarnings(ctx, tx, d, card.ID, ids)
		if err != nil {
			return CardsResult{}, err
		}
		res.Warnings = append(res.Warnings, w...)
	}
	return res, nil
}

// deckTriggerWarnings compares a playbook's triggers with the other playbooks on the deck.
func deckTriggerWarnings(ctx context.Context, st backend.Store, d backend.Deck, playbookID string, deckPlaybooks []string) ([]Warning, error) {
	all, err := st.ListPlaybooks(ctx)
	if err != nil {
		return nil, backend.StoreErr("listing playbooks", err)
	}
	onDeck := map[string]bool{}
	for _, id := range deckPlaybooks {
		onDeck[id] = true
	}
	var self backend.Playbook
	var others []backend.Playbook
	for _, p := range all {
		switch {
		case p.ID == playbookID:
			self = p
		case onDeck[p.ID]:
			others = append(others, p)
		}
	}
	return triggerConflicts(self, others, d.Name), nil
}

func (s *Hub) unlink(ctx context.Context, tx backend.Store, in CardRef) (CardsResult, error) {
	d, err := s.lockedDeck(ctx, tx, in.Deck)
	if err != nil {
		return CardsResult{}, err
	}
	ids, err := linkedIDs(ctx, tx, d.ID, in.CardType)
	if err != nil {
		return CardsResult{}, err
	}
	id, ok, err := findLinked(ctx, tx, in.CardType, ids, strings.TrimSpace(in.CardID))
	if err != nil {
		return CardsResult{}, err
	}
	if !ok {
		return CardsResult{}, notOnDeck(ctx, tx, d, in.CardType, in.CardID, ids)
	}
	ids = without(ids, id)
	if err := tx.ReplaceLinks(ctx, d.ID, in.CardType, ids); err != nil {
		return CardsResult{}, backend.StoreErr("unlinking a card", err)
	}
	res := CardsResult{DeckID: d.ID, CardType: in.CardType, CardIDs: ids, Warnings: []Warning{}}
	if in.CardType == backend.CardPlaybook {
		return res, nil
	}
	w, err := unlinkWarning(ctx, tx, d, in.CardType, id)
	if err != nil {
		return CardsResult{}, err
	}
	if w != nil {
		res.Warnings = append(res.Warnings, *w)
	}
	return res, nil
}

// findLinked matches ref against the linked ids, then by name through the collection. A ref
// that names no card is not linked; any other failure to look it up is returned.
func findLinked(ctx context.Context, st backend.Store, t backend.CardType, ids []string, ref string) (string, bool, error) {
	for _, id := range ids {
		if id == ref {
			return id, true, nil
		}
	}
	if ref == "" {
		return "", false, nil
	}
	c, err := backend.GetCard(ctx, st, t, ref)
	if backend.IsNotFound(err) {
		return "", false, nil
	}
	if err != nil {
		return "", false, backend.StoreErr("finding a linked card", err)
	}
	for _, id := range ids {
		if id == c.ID {
			return id, true, nil
		}
	}
	return "", false, nil
}

// notOnDeck is the NOT_FOUND error for a card the deck does not hold; it lists what it holds.
func notOnDeck(ctx context.Context, st backend.Store, d backend.Deck, t backend.CardType, ref string, ids []string) error {
	names, err := describeCards(ctx, st, t, ids)
	if err != nil {
		return err
	}
	return backend.Errorf(backend.CodeNotFound, "%s %q is not on deck %q; its %ss: %s", t, backend.Clip(ref, 100), d.Name, t,
		backend.KnownList(names)).
		WithHint("use the id or name of a card on this deck").
		WithDetail("card_type", string(t)).WithDetail("on_deck", backend.CapList(names))
}

// describeCards renders linked ids as "name (id)", in order.
func describeCards(ctx context.Context, st backend.Store, t backend.CardType, ids []string) ([]string, error) {
	all, err := backend.ListCards(ctx, st, t)
	if err != nil {
		return nil, backend.StoreErr("listing cards", err)
	}
	byID := map[string]backend.CardInfo{}
	for _, c := range all {
		byID[c.ID] = c
	}
	out := make([]string, 0, len(ids))
	for _, id := range ids {
		c, ok := byID[id]
		if !ok {
			c = backend.CardInfo{ID: id}
		}
		out = append(out, c.String())
	}
	return out, nil
}

// unlinkWarning names the playbooks on the deck that depend on the unlinked card.
func unlinkWarning(ctx context.Context, st backend.Store, d backend.Deck, t backend.CardType, id string) (*Warning, error) {
	deps, err := st.PlaybooksDependingOn(ctx, t, id)
	if err != nil {
		return nil, backend.StoreErr("finding dependent playbooks", err)
	}
	onDeck, err := linkedIDs(ctx, st, d.ID, backend.CardPlaybook)
	if err != nil {
		return nil, err
	}
	var ids, names []string
	for _, p := range deps {
		for _, x := range onDeck {
			if x == p.ID {
				ids = append(ids, p.ID)
				names = append(names, fmt.Sprintf("%q (%s)", p.Title, p.ID))
			}
		}
	}
	if len(ids) == 0 {
		return nil, nil
	}
	card := id
	if c, err := backend.GetCard(ctx, st, t, id); err == nil && c.Name != "" {
		card = strconv.Quote(c.Name) // people read names; a service id is a UUID
	}
	msg := fmt.Sprintf("%s %s was unlinked, but playbooks on deck %q depend on it: %s",
		t, card, d.Name, strings.Join(names, ", "))
	return &Warning{Code: string(backend.CodePlaybookDependency), Message: msg, Playbooks: ids}, nil
}

func (s *Hub) reorder(ctx context.Context, tx backend.Store, in ReorderCardsInput) (CardsResult, error) {
	d, err := s.lockedDeck(ctx, tx, in.Deck)
	if err != nil {
		return CardsResult{}, err
	}
	ids, err := linkedIDs(ctx, tx, d.ID, in.CardType)
	if err != nil {
		return CardsResult{}, err
	}
	ordered, err := matchOrder(ctx, tx, d, in.CardType, ids, in.OrderedCardIDs)
	if err != nil {
		return CardsResult{}, err
	}
	if err := tx.ReplaceLinks(ctx, d.ID, in.CardType, ordered); err != nil {
		return CardsResult{}, backend.StoreErr("reordering cards", err)
	}
	return CardsResult{DeckID: d.ID, CardType: in.CardType, CardIDs: ordered, Warnings: []Warning{}}, nil
}

// matchOrder checks that refs name exactly the linked cards (ids or names), once each.
func matchOrder(ctx context.Context, st backend.Store, d backend.Deck, t backend.CardType, linked, refs []string) ([]string, error) {
	var ordered, unknown, repeated []string
	seen := map[string]bool{}
	for _, ref := range refs {
		id, ok, err := findLinked(ctx, st, t, linked, strings.TrimSpace(ref))
		switch {
		case err != nil:
			return nil, err
		case !ok:
			unknown = append(unknown, ref)
		case seen[id]:
			repeated = append(repeated, ref)
		default:
			seen[id] = true
			ordered = append(ordered, id)
		}
	}
	var missing []string
	for _, id := range linked {
		if !seen[id] {
			missing = append(missing, id)
		}
	}
	if len(unknown)+len(repeated)+len(missing) == 0 {
		return backend.OrEmpty(ordered), nil
	}
	return nil, reorderError(d, t, linked, missing, unknown, repeated)
}

func reorderError(d backend.Deck, t backend.CardType, linked, missing, unknown, repeated []string) error {
	var parts []string
	if len(missing) > 0 {
		parts = append(parts, "missing: "+strings.Join(missing, ", "))
	}
	if len(unknown) > 0 {
		parts = append(parts, "not on the deck: "+strings.Join(unknown, ", "))
	}
	if len(repeated) > 0 {
		parts = append(parts, "repeated: "+strings.Join(repeated, ", "))
	}
	return backend.Invalid("ordered_card_ids", "must list each of the %d %s cards on deck %q exactly once (%s); "+
		"nothing was changed", len(linked), t, d.Name, strings.Join(parts, "; ")).
		WithHint("send the full list of linked ids in the new order: "+backend.KnownList(linked)).
		WithDetail("accepted", backend.OrEmpty(linked)).WithDetail("missing", backend.OrEmpty(missing)).
		WithDetail("unknown", backend.OrEmpty(unknown)).WithDetail("repeated", backend.OrEmpty(repeated))
}
