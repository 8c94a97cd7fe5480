package client

import (
	"context"
	"net/http"

	"github.com/agent-deck/agent-deck/backend"
)

// SetDeckSampling allows or forbids a service on a deck to sample.
func (c *Client) SetDeckSampling(ctx context.Context, deck, service string, allowed bool) (backend.DeckSampling, error) {
	var out backend.DeckSampling
	return out, c.Do(ctx, http.MethodPut, "/decks/"+esc(deck)+"/services/"+esc(service)+"/sampling", nil,
		backend.DeckSamplingInput{Allowed: &allowed}, &out)
}
