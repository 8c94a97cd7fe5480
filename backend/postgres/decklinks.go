package postgres

import (
	"context"
	"strings"

	"github.com/agent-deck/agent-deck/backend"
)

// cardTable says where each card type lives and which deck_cards column references it.
type cardTable struct {
	table, column string
	// cast turns a text id into the table's id type in SQL.
	cast string
}

var cardTables = map[backend.CardType]cardTable{
	backend.CardService:    {table: "services", column: "service_id", cast: "::uuid"},
	backend.CardCredential: {table: "credentials", column: "credential_id"},
	backend.CardPlaybook:   {table: "playbooks", column: "playbook_id"},
}

func lookupCardTable(t backend.CardType) (cardTable, error) {
	ct, ok := cardTables[t]
	if !ok {
		return cardTable{}, backend.Errorf(backend.CodeInvalidArgument,
			"unknown card type %q: use service, credential or playbook", t).WithDetail("field", "card_type").
			WithHint("card_type accepts service, credential or playbook")
	}
	return ct, nil
}

// ReplaceLinks sets the deck's cards of type t to exactly cardIDs, at positions 0..n-1, in one
// transaction: unknown ids are NOT_FOUND (listed in Details["missing"]) and change nothing.
// The old links of that type are deleted before the new ones are inserted, so the unique
// (deck, type, position) constraint never sees two cards at one position.
func (s *Store) ReplaceLinks(ctx context.Context, deckID string, t backend.CardType, cardIDs []string) error {
	ct, err := lookupCardTable(t)
	if err != nil {
		return err
	}
	deck := asUUID(deckID)
	if deck == "" {
		return notFound("deck", deckID)
	}
	ids := make([]string, len(cardIDs))
	var missing []string
	for i, id := range cardIDs {
		ids[i] = id
		if ct.cast == "::uuid" {
			if ids[i] = asUUID(id); ids[i] == "" {
				missing = append(missing, id)
			}
		}
	}
	if len(missing) > 0 {
		return missingCards(t, missing)
	}
	return s.transact(ctx, func(tx *Store) error {
		if err := tx.LockDeck(ctx, deck); err != nil {
			return err
		}
		if err := tx.checkCardsExist(ctx, ct, t, ids); err != nil {
			return err
		}
		if _, err := tx.db.Exec(ctx, `DELETE FROM deck_cards WHERE deck_id = $1 AND card_type = $2`,
			deck, string(t)); err != nil {
			return classify("replace deck cards", err)
		}
		if len(ids) == 0 {
			return nil
		}
		_, err := tx.db.Exec(ctx, `
			INSERT INTO deck_cards (deck_id, card_type, `+ct.column+`, position)
			SELECT $1, $2, u.id`+ct.cast+`, u.ord - 1 FROM unnest($3::text[]) WITH ORDINALITY AS u(id, ord)`,
			deck, string(t), ids)
		return classify("replace deck cards", err)
	})
}

func (s *Store) checkCardsExist(ctx context.Context, ct cardTable, t backend.CardType, ids []string) error {
	if len(ids) == 0 {
		return nil
	}
	var missing []string
	err := s.db.QueryRow(ctx, `
		SELECT COALESCE(array_agg(u.id ORDER BY u.ord), '{}') FROM unnest($1::text[]) WITH ORDINALITY AS u(id, ord)
		WHERE NOT EXISTS (SELECT 1 FROM `+ct.table+` c WHERE c.id = u.id`+ct.cast+`)`, ids).Scan(&missing)
	if err != nil {
		return classify("check deck cards", err)
	}
	if len(missing) > 0 {
		return missingCards(t, missing)
	}
	return nil
}

func missingCards(t backend.CardType, missing []string) error {
	return backend.Errorf(backend.CodeNotFound, "no %s with id %s", t, strings.Join(quoteAll(missing), ", ")).
		WithDetail("field", "card_id").WithDetail("missing", missing)
}

func quoteAll(ss []string) []string {
	out := make([]string, len(ss))
	for i, s := range ss {
		if len(s) > 80 {
			s = s[:77] + "..."
		}
		out[i] = `"` + s + `"`
	}
	return out
}
