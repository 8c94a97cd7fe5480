package client

import (
	"context"
	"net/http"
	"net/url"

	"github.com/agent-deck/agent-deck/backend"
	"github.com/agent-deck/agent-deck/backend/core"
)

// Me returns the person the client's token acts for.
func (c *Client) Me(ctx context.Context) (backend.Person, error) {
	var out backend.Person
	return out, c.Do(ctx, http.MethodGet, "/me", nil, nil, &out)
}

// ListPeople returns the people (and the removed ones, when asked).
func (c *Client) ListPeople(ctx context.Context, removed bool) ([]backend.Person, error) {
	var q url.Values
	if removed {
		q = url.Values{"removed": {"true"}}
	}
	var out []backend.Person
	return out, c.Do(ctx, http.MethodGet, "/people", q, nil, &out)
}

// AddPerson adds a person.
func (c *Client) AddPerson(ctx context.Context, in core.PersonInput) (backend.Person, error) {
	var out backend.Person
	return out, c.Do(ctx, http.MethodPost, "/people", nil, in, &out)
}

// UpdatePerson changes a person's role or sign-in.
func (c *Client) UpdatePerson(ctx context.Context, ref string, in core.PersonPatch) (backend.Person, error) {
	var out backend.Person
	return out, c.Do(ctx, http.MethodPatch, "/people/"+url.PathEscape(ref), nil, in, &out)
}

// RemovePerson removes a person, revoking their tokens and ending their sessions.
func (c *Client) RemovePerson(ctx context.Context, ref string) (backend.PersonRemoval, error) {
	var out backend.PersonRemoval
	return out, c.Do(ctx, http.MethodDelete, "/people/"+url.PathEscape(ref), nil, nil, &out)
}
