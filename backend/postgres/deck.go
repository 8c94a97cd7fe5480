package postgres

import (
	"context"

	"github.com/jackc/pgx/v5"

	"github.com/agent-deck/agent-deck/backend"
)

// deckColumns read a deck with its owner and who it is shared with (live people only).
const deckColumns = `d.id::text, d.name, d.created_at, d.updated_at, d.owner_id::text,
	COALESCE((SELECT p.name FROM people p WHERE p.id = d.owner_id), ''), d.sharing,
	COALESCE((SELECT array_agg(p.id::text ORDER BY lower(p.name)) FROM deck_shares x JOIN people p ON p.id = x.person_id
		WHERE x.deck_id = d.id AND p.removed_at IS NULL), '{}'),
	COALESCE((SELECT array_agg(p.name ORDER BY lower(p.name)) FROM deck_shares x JOIN people p ON p.id = x.person_id
		WHERE x.deck_id = d.id AND p.removed_at IS NULL), '{}')`

func scanDeck(row pgx.Row) (backend.Deck, error) {
	var d backend.Deck
	var sharing string
	err := row.Scan(&d.ID, &d.Name, &d.CreatedAt, &d.UpdatedAt, &d.OwnerID, &d.Owner, &sharing, &d.SharedWithIDs, &d.SharedWith)
	d.Sharing = backend.Sharing(sharing)
	if len(d.SharedWith) == 0 {
		d.SharedWith, d.SharedWithIDs = nil, nil
	}
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

// CreateDeck inserts d, filling its id and timestamps when empty. A deck without an owner
// belongs to the first admin; it starts private.
func (s *Store) CreateDeck(ctx context.Context, d *backend.Deck) error {
	const q = `
		WITH d AS (
			INSERT INTO decks (id, name, created_at, updated_at, owner_id)
			VALUES (COALESCE($1::uuid, gen_random_uuid()), $2, COALESCE($3::timestamptz, now()),
			        COALESCE($3::timestamptz, now()), COALESCE(NULLIF($4, '')::uuid, ` + founderID + `))
			RETURNING id, created_at, updated_at, owner_id, sharing)
		SELECT d.id::text, d.created_at, d.updated_at, d.owner_id::text, p.name, d.sharing
		FROM d JOIN people p ON p.id = d.owner_id`
	var sharing string
	err := s.db.QueryRow(ctx, q, nullString(d.ID), d.Name, nullTime(d.CreatedAt), d.OwnerID).
		Scan(&d.ID, &d.CreatedAt, &d.UpdatedAt, &d.OwnerID, &d.Owner, &sharing)
	d.Sharing = backend.Sharing(sharing)
	return classify("create deck", err)
}

// SetDeckSharing sets who besides its owner may use the deck: sharing, and for sharing
// "people" exactly these people; the deck's owner is changed when ownerID is set.
func (s *Store) SetDeckSharing(ctx context.Context, deckID string, sharing backend.Sharing, people []string, ownerID string) error {
	u := asUUID(deckID)
	if u == "" {
		return notFound("deck", deckID)
	}
	return s.transact(ctx, func(tx *Store) error {
		if err := tx.execOne(ctx, "share deck", "deck", deckID, `UPDATE decks
			SET sharing = $2, owner_id = COALESCE(NULLIF($3, '')::uuid, owner_id)
			WHERE id = $1`, u, string(sharing), ownerID); err != nil {
			return err
		}
		if _, err := tx.db.Exec(ctx, `DELETE FROM deck_shares WHERE deck_id = $1 AND NOT (person_id::text = ANY($2))`,
			u, strs(people)); err != nil {
			return classify("share deck", err)
		}
		_, err := tx.db.Exec(ctx, `INSERT INTO deck_shares (deck_id, person_id)
			SELECT $1, p::uuid FROM unnest($2::text[]) p ON CONFLICT DO NOTHING`, u, strs(people))
		return classify("share deck", err)
	})
}

// PersonCards returns the cards linked to the decks a person may use (their own, those shared
// with everyone and those shared with them), by type.
func (s *Store) PersonCards(ctx context.Context, personID string) (backend.PersonCards, error) {
	out := backend.PersonCards{}
	u := asUUID(personID)
	if u == "" {
		return out, nil
	}
	// The credentials the services of those decks present count too: a person brings their own
	// secret for them.
	rows, err := s.db.Query(ctx, `
		WITH usable AS (
			SELECT d.id FROM decks d
			WHERE d.owner_id = $1 OR d.sharing = 'everyone'
				OR d.sharing = 'people' AND EXISTS (SELECT 1 FROM deck_shares x WHERE x.deck_id = d.id AND x.person_id = $1))
		SELECT c.card_type, c.card_id FROM deck_cards c JOIN usable u ON u.id = c.deck_id
		UNION
		SELECT 'credential', s.credential_id FROM deck_cards c JOIN usable u ON u.id = c.deck_id
			JOIN services s ON s.id = c.service_id WHERE s.credential_id IS NOT NULL
		UNION
		SELECT 'credential', st.credential_id FROM deck_service_settings st JOIN usable u ON u.id = st.deck_id
			WHERE st.credential_id IS NOT NULL`, u)
	if err != nil {
		return nil, classify("list a person's cards", err)
	}
	defer rows.Close()
	for rows.Next() {
		var t, id string
		if err := rows.Scan(&t, &id); err != nil {
			return nil, classify("list a person's cards", err)
		}
		ct := backend.CardType(t)
		if out[ct] == nil {
			out[ct] = map[string]bool{}
		}
		out[ct][id] = true
	}
	return out, classify("list a person's cards", rows.Err())
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
	return s.execOne(ctx, "delete deck", "deck", id, `DELETE FROM decks WHERE id = $1`, u)
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
