package client

import (
	"context"
	"net/http"

	"github.com/agent-deck/agent-deck/backend/core"
)

// limitsPath is the REST path of a subject's rate limits: a deck's, a service's, or both.
func limitsPath(deck, service string) string {
	switch {
	case deck != "" && service != "":
		return "/decks/" + esc(deck) + "/services/" + esc(service) + "/limits"
	case deck != "":
		return "/decks/" + esc(deck) + "/limits"
	}
	return "/services/" + esc(service) + "/limits"
}

// RateLimits shows the limits that apply to a deck's services, a service, or a service on a deck.
func (c *Client) RateLimits(ctx context.Context, deck, service string) (core.RateLimits, error) {
	var out core.RateLimits
	return out, c.Do(ctx, http.MethodGet, limitsPath(deck, service), nil, nil, &out)
}

// SetRateLimits overrides the limits of a subject; nil inherits.
func (c *Client) SetRateLimits(ctx context.Context, deck, service string, in core.RateLimitsInput) (core.RateLimits, error) {
	var out core.RateLimits
	return out, c.Do(ctx, http.MethodPut, limitsPath(deck, service), nil, in, &out)
}
