package client

import (
	"context"
	"net/http"

	"github.com/agent-deck/agent-deck/backend/core"
)

// DeckProjection reads a deck's projected-tools setting and what it projects now.
func (c *Client) DeckProjection(ctx context.Context, deck string) (core.DeckProjectionView, error) {
	var out core.DeckProjectionView
	return out, c.Do(ctx, http.MethodGet, "/decks/"+esc(deck)+"/projection", nil, nil, &out)
}

// SetDeckProjection turns a deck's projected tools on (with caps) or off.
func (c *Client) SetDeckProjection(ctx context.Context, deck string, in core.DeckProjectionInput) (core.DeckProjectionView, error) {
	var out core.DeckProjectionView
	return out, c.Do(ctx, http.MethodPut, "/decks/"+esc(deck)+"/projection", nil, in, &out)
}
