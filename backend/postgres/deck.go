package postgres

import (
	"context"

	"github.com/jackc/pgx/v5"

	"github.com/agent-deck/agent-deck/backend"
)

const deckColumns = `d.id::text, d.name, d.created_at, d.updated_at`

func scanDeck(row pgx.Row) (backend.Deck, error) {
	var d backend.Deck
	err := row.Scan(&d.ID, &d.Name, &d.CreatedAt, &d.UpdatedAt)
	return d, err
}

func collectDecks(rows pgx.Rows, err error) ([]backend.Deck, error) {
	if err != nil {
		return nil, classify("list decks", err)
	}
	decks, err := pgx.CollectRows(rows, func(r pgx.CollectableRow) (backend.Deck, error) { return scanDeck(r) })
	if err != nil {
		return nil, classify("list decks", err)
	}
	return decks, nil
}

// CreateDeck inserts d, filling its id and timestamps when empty.
func (s *Store) CreateDeck(ctx context.Context, d *backend.Deck) error {
	const q = `
		INSERT INTO decks (id, name, created_at, updated_at)
		VALUES (COALESCE($1::uuid, gen_random_uuid()), $2, COALESCE($3::timestamptz, now()),
		        COALESCE($3::timestamptz, now()))
		RETURNING id::text, created_at, updated_at`
	err := s.db.QueryRow(ctx, q, nullString(d.ID), d.Name, nullTime(d.CreatedAt)).
		Scan(&d.ID, &d.CreatedAt, &d.UpdatedAt)
	return classify("create deck", err)
}

// UpdateDeck renames the deck and sets its updated_at to now.
func (s *Store) UpdateDeck(ctx context.Context, d *backend.Deck) error {
	const q = `UPDATE decks SET name = $2, updated_at = now() WHERE id = $1 RETURNING created_at, updated_at`
	id := asUUID(d.ID)
	if id == "" {
		return notFound("deck", d.ID)
	}
	err := s.db.QueryRow(ctx, q, id, d.Name).Scan(&d.CreatedAt, &d.UpdatedAt)
	return rowErr("update deck", "deck", d.ID, err)
}

// DeleteDeck removes the deck and its links (cascade); the cards stay.
func (s *Store) DeleteDeck(ctx context.Context, id string) error {
	u := asUUID(id)
	if u == "" {
		return notFound("deck", id)
	}
	tag, err := s.db.Exec(ctx, `DELETE FROM decks WHERE id = $1`, u)
	if err != nil {
		return classify("delete deck", err)
	}
	if tag.RowsAffected() == 0 {
		return notFound("deck", id)
	}
	return nil
}

// GetDeck finds a deck by id or by name, case-insensitively; an id match wins.
func (s *Store) GetDeck(ctx context.Context, ref string) (backend.Deck, error) {
	const q = `
		SELECT ` + deckColumns + ` FROM decks d
		WHERE d.id = $1::uuid OR lower(d.name) = lower($2)
		ORDER BY d.id = $1::uuid DESC NULLS LAST LIMIT 1`
	d, err := scanDeck(s.db.QueryRow(ctx, q, nullString(asUUID(ref)), ref))
	return d, rowErr("get deck", "deck", ref, err)
}

// ListDecks returns every deck by name.
func (s *Store) ListDecks(ctx context.Context) ([]backend.Deck, error) {
	return collectDecks(s.db.Query(ctx, `SELECT `+deckColumns+` FROM decks d ORDER BY lower(d.name), d.name`))
}

// LockDeck row-locks the deck until the transaction ends.
func (s *Store) LockDeck(ctx context.Context, id string) error {
	u := asUUID(id)
	if u == "" {
		return notFound("deck", id)
	}
	var one int
	err := s.db.QueryRow(ctx, `SELECT 1 FROM decks WHERE id = $1 FOR UPDATE`, u).Scan(&one)
	return rowErr("lock deck", "deck", id, err)
}

// cardTypeOrder sorts links by the display order of card types.
const cardTypeOrder = `CASE card_type WHEN 'service' THEN 0 WHEN 'credential' THEN 1 ELSE 2 END`

// ListLinks returns the deck's links by card type, then position.
func (s *Store) ListLinks(ctx context.Context, deckID string) ([]backend.CardLink, error) {
	u := asUUID(deckID)
	if u == "" {
		return []backend.CardLink{}, nil
	}
	rows, err := s.db.Query(ctx, `
		SELECT l.deck_id::text, l.card_type, l.card_id, l.position,
			st.allow_tools, st.deny_tools, COALESCE(st.credential_id, ''), st.deck_id IS NOT NULL
		FROM deck_cards l LEFT JOIN deck_service_settings st
			ON st.deck_id = l.deck_id AND st.service_id = l.service_id
		WHERE l.deck_id = $1 ORDER BY `+cardTypeOrder+`, l.position`, u)
	if err != nil {
		return nil, classify("list deck cards", err)
	}
	links, err := pgx.CollectRows(rows, func(r pgx.CollectableRow) (backend.CardLink, error) {
		var l backend.CardLink
		var st backend.DeckServiceSettings
		var has bool
		err := r.Scan(&l.DeckID, &l.CardType, &l.CardID, &l.Position, &st.AllowTools, &st.DenyTools,
			&st.CredentialID, &has)
		if has {
			l.Settings = &st
		}
		return l, err
	})
	if err != nil {
		return nil, classify("list deck cards", err)
	}
	return links, nil
}

// DecksLinking returns the decks, by name, on which the card is linked.
func (s *Store) DecksLinking(ctx context.Context, t backend.CardType, cardID string) ([]backend.Deck, error) {
	return collectDecks(s.db.Query(ctx, `
		SELECT `+deckColumns+` FROM decks d JOIN deck_cards c ON c.deck_id = d.id
		WHERE c.card_type = $1 AND c.card_id = $2
		ORDER BY lower(d.name), d.name`, string(t), cardID))
}
