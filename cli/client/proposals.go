package client

import (
	"context"
	"net/http"
	"net/url"

	"github.com/agent-deck/agent-deck/backend"
	"github.com/agent-deck/agent-deck/backend/core"
)

// ProposalView is a proposal preview as GET /proposals/{id} answers: with the body change as
// a unified diff.
type ProposalView struct {
	core.ProposalPreview
	Diff string `json:"diff"`
}

// ListProposals lists proposals, optionally of one status.
func (c *Client) ListProposals(ctx context.Context, status string) ([]backend.Proposal, error) {
	var q url.Values
	if status != "" {
		q = url.Values{"status": {status}}
	}
	return listAll[backend.Proposal](ctx, c, "/proposals", q)
}

// GetProposal shows one proposal with its preview.
func (c *Client) GetProposal(ctx context.Context, id string) (ProposalView, error) {
	var out ProposalView
	return out, c.Do(ctx, http.MethodGet, "/proposals/"+esc(id), nil, nil, &out)
}

// AcceptProposal applies a proposal to the current playbook.
func (c *Client) AcceptProposal(ctx context.Context, id string) (core.AcceptResult, error) {
	var out core.AcceptResult
	return out, c.Do(ctx, http.MethodPost, "/proposals/"+esc(id)+"/accept", nil, nil, &out)
}

// RejectProposal closes a proposal with an optional reason.
func (c *Client) RejectProposal(ctx context.Context, id, reason string) (core.AcceptResult, error) {
	var out core.AcceptResult
	return out, c.Do(ctx, http.MethodPost, "/proposals/"+esc(id)+"/reject", nil, map[string]string{"reason": reason}, &out)
}

// ListSignals lists feedback signals.
func (c *Client) ListSignals(ctx context.Context) ([]backend.Signal, error) {
	return listAll[backend.Signal](ctx, c, "/signals", nil)
}

// DiscardSignals discards feedback signals, all or none.
func (c *Client) DiscardSignals(ctx context.Context, ids []string) ([]backend.Signal, error) {
	var out []backend.Signal
	return out, c.Do(ctx, http.MethodPost, "/signals/discard", nil, map[string][]string{"ids": ids}, &out)
}
