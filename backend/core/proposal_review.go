package core

import (
	"context"
	"slices"
	"strings"

	"github.com/agent-deck/agent-deck/backend"
)

// ProposalPreview is a proposal with what accepting it now would do: the body and triggers
// before and after, or the conflict that would make it stale.
type ProposalPreview struct {
	backend.Proposal
	Summary        string    `json:"summary"`
	BodyBefore     string    `json:"body_before"`
	BodyAfter      string    `json:"body_after"`
	TriggersBefore []string  `json:"triggers_before"`
	TriggersAfter  []string  `json:"triggers_after"`
	Warnings       []Warning `json:"warnings"`
	// Conflict is why the ops no longer apply to the current body; accepting would make the
	// proposal stale.
	Conflict *ProposalConflict `json:"conflict,omitempty"`
}

// ProposalConflict is the error an accept would meet now.
type ProposalConflict struct {
	Code    backend.Code `json:"code"`
	Message string       `json:"message"`
	Hint    string       `json:"hint,omitempty"`
}

// ListProposals returns proposals matching the filter, newest first. Admin only: proposals
// are reviewed by people.
func (s *Hub) ListProposals(ctx context.Context, f backend.ProposalFilter) ([]backend.Proposal, error) {
	if _, err := backend.RequireAdmin(ctx, "review proposals"); err != nil {
		return nil, err
	}
	if f.Status != "" && !slices.Contains(backend.ProposalStatuses, f.Status) {
		return nil, backend.InvalidEnum("status", f.Status, backend.ProposalStatuses)
	}
	if ref := strings.TrimSpace(f.PlaybookID); ref != "" {
		p, err := backend.PlaybookByRef(ctx, s.store, ref)
		if err != nil {
			return nil, err
		}
		f.PlaybookID = p.ID
	}
	if ref := strings.TrimSpace(f.DeckID); ref != "" {
		d, err := s.deckByRef(ctx, s.store, ref)
		if err != nil {
			return nil, err
		}
		f.DeckID = d.ID
	}
	ps, err := s.store.ListProposals(ctx, f)
	if err != nil {
		return nil, backend.StoreErr("listing proposals", err)
	}
	return backend.OrEmpty(ps), nil
}

// PreviewProposal shows one proposal and what accepting it now would change.
func (s *Hub) PreviewProposal(ctx context.Context, id string) (ProposalPreview, error) {
	if _, err := backend.RequireAdmin(ctx, "review proposals"); err != nil {
		return ProposalPreview{}, err
	}
	p, err := proposalByRef(ctx, s.store, id)
	if err != nil {
		return ProposalPreview{}, err
	}
	pv := ProposalPreview{Proposal: p, Summary: summarizeProposal(p), Warnings: []Warning{},
		TriggersBefore: []string{}, TriggersAfter: []string{}}
	var next *backend.Playbook
	switch p.Kind {
	case backend.ProposalCreate:
		np, err := newPlaybook(*p.NewPlaybook)
		if err != nil {
			return ProposalPreview{}, err
		}
		pv.BodyAfter, pv.TriggersAfter, next = np.Body, np.Triggers, &np
	default:
		cur, err := s.store.GetPlaybook(ctx, p.PlaybookID)
		if err != nil {
			return ProposalPreview{}, backend.StoreErr("reading a playbook", err)
		}
		pv.BodyBefore, pv.TriggersBefore = cur.Body, backend.OrEmpty(cur.Triggers)
		if p.Kind == backend.ProposalRetire {
			break
		}
		cat, err := catalog(ctx, s.store)
		if err != nil {
			return ProposalPreview{}, err
		}
		got, err := proposedChange(cur, p, cat)
		if err != nil {
			e := backend.AsError(err)
			pv.Conflict = &ProposalConflict{Code: e.Code, Message: e.Message, Hint: e.Hint}
			pv.BodyAfter, pv.TriggersAfter = cur.Body, backend.OrEmpty(cur.Triggers)
			break
		}
		pv.BodyAfter, pv.TriggersAfter = got.Body, backend.OrEmpty(got.Triggers)
		next = &got
	}
	if next != nil && p.Status == backend.ProposalOpen {
		if pv.Warnings, err = proposalWarnings(ctx, s.store, p, *next); err != nil {
			return ProposalPreview{}, err
		}
	}
	return pv, nil
}

// AcceptResult is an accepted proposal and the playbook it wrote.
type AcceptResult struct {
	Proposal backend.Proposal `json:"proposal"`
	Playbook *PlaybookResult  `json:"playbook,omitempty"`
}

// AcceptProposal re-applies the proposal to the playbook as it is now, in one transaction.
// Ops that no longer apply make the proposal stale and change nothing else (PATCH_CONFLICT).
// The token that proposed it may not accept it.
func (s *Hub) AcceptProposal(ctx context.Context, id string) (AcceptResult, error) {
	a, err := backend.RequireAdmin(ctx, "accept proposals")
	if err != nil {
		return AcceptResult{}, err
	}
	var stale error
	res, err := backend.Transact(ctx, s.store, func(tx backend.Store) (AcceptResult, error) {
		p, err := s.decidable(ctx, tx, a, id)
		if err != nil {
			return AcceptResult{}, err
		}
		pr, err := s.applyProposal(ctx, tx, p)
		if code := backend.ErrorCode(err); code == backend.CodePatchConflict || code == backend.CodePatchNoChange {
			stale = err
			return s.closeProposal(ctx, tx, p, backend.ProposalStale, "", backend.SignalOpen)
		}
		if err != nil {
			return AcceptResult{}, err
		}
		if p.Kind == backend.ProposalCreate {
			p.PlaybookID = pr.ID
		}
		res, err := s.closeProposal(ctx, tx, p, backend.ProposalAccepted, "", backend.SignalActioned)
		res.Playbook = pr
		return res, err
	})
	if err == nil && stale != nil {
		e := backend.AsError(stale)
		return res, backend.Errorf(backend.CodePatchConflict, "proposal %s no longer applies to the playbook and is now stale: %s",
			res.Proposal.ID, e.Message).WithHint("nothing changed; the agent can propose again against the current playbook")
	}
	return res, err
}

// RejectProposal closes an open proposal with an optional reason; its signals reopen.
func (s *Hub) RejectProposal(ctx context.Context, id, reason string) (AcceptResult, error) {
	a, err := backend.RequireAdmin(ctx, "reject proposals")
	if err != nil {
		return AcceptResult{}, err
	}
	reason, err = backend.CleanText("reason", strings.TrimSpace(reason), maxRationaleChars, true)
	if err != nil {
		return AcceptResult{}, err
	}
	return backend.Transact(ctx, s.store, func(tx backend.Store) (AcceptResult, error) {
		p, err := s.decidable(ctx, tx, a, id)
		if err != nil {
			return AcceptResult{}, err
		}
		return s.closeProposal(ctx, tx, p, backend.ProposalRejected, reason, backend.SignalOpen)
	})
}

// proposalByRef loads (and locks, in a transaction) a proposal by its id or the unique start of
// its id.
func proposalByRef(ctx context.Context, st backend.Store, ref string) (backend.Proposal, error) {
	ref = strings.TrimSpace(ref)
	p, err := st.GetProposal(ctx, ref)
	if backend.IsNotFound(err) {
		id, perr := backend.ResolveIDPrefix(ctx, st, backend.IDProposal, ref)
		if perr != nil {
			return p, perr
		}
		if id != "" {
			p, err = st.GetProposal(ctx, id)
		}
	}
	return p, backend.StoreErr("reading a proposal", err)
}

// decidable loads and locks an open proposal that this caller did not make.
func (s *Hub) decidable(ctx context.Context, tx backend.Store, a backend.Actor, id string) (backend.Proposal, error) {
	p, err := proposalByRef(ctx, tx, id)
	if err != nil {
		return backend.Proposal{}, err
	}
	if p.TokenID != "" && p.TokenID == a.TokenID {
		return backend.Proposal{}, backend.Errorf(backend.CodeForbidden, "the token that made proposal %s may not decide it", p.ID).
			WithHint("a person reviews it with their own token: agent-deck proposal accept " + p.ID)
	}
	if p.Status != backend.ProposalOpen {
		return backend.Proposal{}, backend.Errorf(backend.CodeConflict, "proposal %s is %s; only open proposals can be decided", p.ID, p.Status).
			WithDetail("status", string(p.Status))
	}
	return p, nil
}

func (s *Hub) closeProposal(ctx context.Context, tx backend.Store, p backend.Proposal, to backend.ProposalStatus, reason string, signals backend.SignalStatus) (AcceptResult, error) {
	now := s.clock()
	p.Status, p.Reason, p.DecidedAt = to, reason, &now
	if a, ok := backend.ActorFrom(ctx); ok {
		p.DecidedBy = a.PersonName
	}
	if err := tx.UpdateProposal(ctx, &p); err != nil {
		return AcceptResult{}, backend.StoreErr("closing a proposal", err)
	}
	ids, err := tx.SignalsOfProposal(ctx, p.ID)
	if err != nil {
		return AcceptResult{}, backend.StoreErr("reading signals", err)
	}
	if len(ids) > 0 {
		owner := p.ID
		if signals == backend.SignalOpen {
			owner = ""
		}
		if err := tx.SetSignals(ctx, ids, signals, owner); err != nil {
			return AcceptResult{}, backend.StoreErr("moving signals", err)
		}
	}
	return AcceptResult{Proposal: p}, nil
}
