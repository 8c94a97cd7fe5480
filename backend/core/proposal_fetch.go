package core

import (
	"context"
	"time"

	"github.com/agent-deck/agent-deck/backend"
)

// BoundPlaybookView is what get_playbook returns: the playbook and its open proposals, so an
// agent supersedes one instead of stacking a duplicate.
type BoundPlaybookView struct {
	backend.Playbook
	OpenProposals []backend.ProposalSummary `json:"open_proposals"`
}

// playbookForAgent adds the open proposals and records the fetch. A fetch that cannot be
// recorded is logged, never a failed read.
func (s *Hub) playbookForAgent(ctx context.Context, sessionID string, p backend.Playbook) (BoundPlaybookView, error) {
	ps, err := s.store.ListProposals(ctx, backend.ProposalFilter{Status: backend.ProposalOpen, PlaybookID: p.ID})
	if err != nil {
		return BoundPlaybookView{}, backend.StoreErr("listing proposals", err)
	}
	v := BoundPlaybookView{Playbook: p, OpenProposals: make([]backend.ProposalSummary, len(ps))}
	for i, x := range ps {
		v.OpenProposals[i] = backend.ProposalSummary{ID: x.ID, Kind: x.Kind, Rationale: x.Rationale,
			Summary: summarizeProposal(x), CreatedAt: x.CreatedAt}
	}
	f := backend.PlaybookFetch{PlaybookID: p.ID, SessionID: sessionID, At: s.clock()}
	if sess, err := s.sessionFor(ctx, sessionID); err == nil {
		f.ClientName = sess.ClientName
	}
	if err := s.store.RecordPlaybookFetch(ctx, f); err != nil {
		s.log.WarnContext(ctx, "recording a playbook fetch failed", "playbook_id", p.ID, "error", err)
	}
	return v, nil
}

// PlaybookFetchStats shows which playbooks agents fetched within the retention period and
// how often; a playbook missing from it never triggered. Admin only.
func (s *Hub) PlaybookFetchStats(ctx context.Context) ([]backend.PlaybookFetchStat, error) {
	if _, err := backend.RequireAdmin(ctx, "read playbook usage"); err != nil {
		return nil, err
	}
	st, err := s.store.PlaybookFetchStats(ctx)
	if err != nil {
		return nil, backend.StoreErr("counting playbook fetches", err)
	}
	return backend.OrEmpty(st), nil
}

// DefaultPlaybookFetchRetention is Config.PlaybookFetchRetention when unset.
const DefaultPlaybookFetchRetention = 90 * 24 * time.Hour

// pruneFetches deletes fetch events older than the retention period. It is housekeeping done
// as sessions open, like idle expiry; a failure is logged and left to the next open.
func (s *Hub) pruneFetches(ctx context.Context) {
	if _, err := s.store.PrunePlaybookFetches(ctx, s.clock().Add(-s.cfg.PlaybookFetchRetention)); err != nil {
		s.log.WarnContext(ctx, "pruning playbook fetch events failed", "error", err)
	}
}
