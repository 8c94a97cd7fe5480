package client

import (
	"context"
	"net/http"

	"github.com/agent-deck/agent-deck/backend/core"
)

// SetDeckSampling allows or forbids a service on a deck to sample.
func (c *Client) SetDeckSampling(ctx context.Context, deck, service string, allowed bool) (core.DeckSampling, error) {
	var out core.DeckSampling
	return out, c.Do(ctx, http.MethodPut, "/decks/"+esc(deck)+"/services/"+esc(service)+"/sampling", nil,
		core.DeckSamplingInput{Allowed: &allowed}, &out)
}
