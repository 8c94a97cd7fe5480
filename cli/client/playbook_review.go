package client

import (
	"context"
	"net/http"

	"github.com/agent-deck/agent-deck/backend/core"
)

// DeckPlaybookReview says whether agents' playbook writes on a deck are held for review.
func (c *Client) DeckPlaybookReview(ctx context.Context, deck string) (core.DeckPlaybookReview, error) {
	var out core.DeckPlaybookReview
	return out, c.Do(ctx, http.MethodGet, "/decks/"+esc(deck)+"/playbook-review", nil, nil, &out)
}

// SetDeckPlaybookReview sets a deck's review setting; nil follows the server's default.
func (c *Client) SetDeckPlaybookReview(ctx context.Context, deck string, required *bool) (core.DeckPlaybookReview, error) {
	var out core.DeckPlaybookReview
	return out, c.Do(ctx, http.MethodPut, "/decks/"+esc(deck)+"/playbook-review", nil,
		core.DeckPlaybookReviewInput{Required: required}, &out)
}
