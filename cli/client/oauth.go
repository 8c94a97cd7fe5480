package client

import (
	"context"
	"net/http"

	"github.com/agent-deck/agent-deck/backend/core"
)

// ConnectService starts signing in to a service that needs OAuth and returns the page a person
// opens to consent.
func (c *Client) ConnectService(ctx context.Context, ref string, in core.OAuthConnectInput) (core.OAuthConnect, error) {
	var out core.OAuthConnect
	return out, c.Do(ctx, http.MethodPost, "/services/"+esc(ref)+"/connect", nil, in, &out)
}

// DisconnectService forgets a service's sign-in.
func (c *Client) DisconnectService(ctx context.Context, ref string) error {
	return c.Do(ctx, http.MethodPost, "/services/"+esc(ref)+"/disconnect", nil, nil, nil)
}

// ServiceAuth returns a service's sign-in state.
func (c *Client) ServiceAuth(ctx context.Context, ref string) (core.OAuthStatus, error) {
	var out core.OAuthStatus
	return out, c.Do(ctx, http.MethodGet, "/services/"+esc(ref)+"/auth", nil, nil, &out)
}
