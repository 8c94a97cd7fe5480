package postgres

import (
	"context"
	"errors"

	"github.com/jackc/pgx/v5"
)

// PlaybookReviewRequired reports whether any deck holding the playbook requires review of
// agents' writes; decks without a setting, and a playbook on no deck, follow byDefault.
func (s *Store) PlaybookReviewRequired(ctx context.Context, playbookID string, byDefault bool) (bool, error) {
	var required bool
	err := s.db.QueryRow(ctx, `
		SELECT CASE WHEN count(*) = 0 THEN $2 ELSE bool_or(COALESCE(r.required, $2)) END
		FROM deck_cards c LEFT JOIN deck_playbook_review r ON r.deck_id = c.deck_id
		WHERE c.card_type = 'playbook' AND c.playbook_id = $1`, playbookID, byDefault).Scan(&required)
	return required, classify("read the review setting of a playbook's decks", err)
}

// DeckPlaybookReview is the deck's own review setting, nil when it has none.
func (s *Store) DeckPlaybookReview(ctx context.Context, deckID string) (*bool, error) {
	u := asUUID(deckID)
	if u == "" {
		return nil, nil
	}
	var required bool
	err := s.db.QueryRow(ctx, `SELECT required FROM deck_playbook_review WHERE deck_id = $1`, u).Scan(&required)
	if errors.Is(err, pgx.ErrNoRows) {
		return nil, nil
	}
	if err != nil {
		return nil, classify("read a deck's review setting", err)
	}
	return &required, nil
}

// SetDeckPlaybookReview stores the deck's review setting; nil deletes it, so the deck follows
// the server's default.
func (s *Store) SetDeckPlaybookReview(ctx context.Context, deckID string, required *bool) error {
	u := asUUID(deckID)
	if u == "" {
		return notFound("deck", deckID)
	}
	var err error
	if required == nil {
		_, err = s.db.Exec(ctx, `DELETE FROM deck_playbook_review WHERE deck_id = $1`, u)
	} else {
		_, err = s.db.Exec(ctx, `INSERT INTO deck_playbook_review (deck_id, required, updated_at) VALUES ($1, $2, now())
			ON CONFLICT (deck_id) DO UPDATE SET required = EXCLUDED.required, updated_at = now()`, u, *required)
	}
	return classify("set a deck's review setting", err)
}
