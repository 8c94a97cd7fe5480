package postgres

import (
	"context"
	"errors"

	"github.com/jackc/pgx/v5"

	"github.com/agent-deck/agent-deck/backend"
)

// DeckProjection returns the deck's projected-tools caps; ok is false when projection is off.
func (s *Store) DeckProjection(ctx context.Context, deckID string) (backend.DeckProjection, bool, error) {
	deck := asUUID(deckID)
	if deck == "" {
		return backend.DeckProjection{}, false, nil
	}
	var p backend.DeckProjection
	err := s.db.QueryRow(ctx, `SELECT max_tools, max_tokens FROM deck_tool_projection WHERE deck_id = $1`, deck).
		Scan(&p.MaxTools, &p.MaxTokens)
	if errors.Is(err, pgx.ErrNoRows) {
		return backend.DeckProjection{}, false, nil
	}
	return p, err == nil, classify("read a deck's tool projection", err)
}

// SetDeckProjection turns projection on with its caps (a row), or off (no row).
func (s *Store) SetDeckProjection(ctx context.Context, deckID string, p *backend.DeckProjection) error {
	deck := asUUID(deckID)
	if deck == "" {
		return notFound("deck", deckID)
	}
	var err error
	if p != nil {
		_, err = s.db.Exec(ctx, `INSERT INTO deck_tool_projection (deck_id, max_tools, max_tokens) VALUES ($1, $2, $3)
			ON CONFLICT (deck_id) DO UPDATE SET max_tools = $2, max_tokens = $3, updated_at = now()`,
			deck, p.MaxTools, p.MaxTokens)
	} else {
		_, err = s.db.Exec(ctx, `DELETE FROM deck_tool_projection WHERE deck_id = $1`, deck)
	}
	return classify("set a deck's tool projection", err)
}
