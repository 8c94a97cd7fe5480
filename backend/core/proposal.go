package core

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/agent-deck/agent-deck/backend"
)

const (
	maxRationaleChars = 2000
	maxEvidenceChars  = 2000
	maxProposalRefs   = 20
)

// ProposeInput is propose_playbook_patch: what an agent suggests and why.
type ProposeInput struct {
	Kind        backend.ProposalKind   `json:"kind"`
	PlaybookID  string                 `json:"playbook_id,omitempty"`
	Ops         []backend.PlaybookOp   `json:"ops,omitempty"`
	NewPlaybook *backend.PlaybookInput `json:"new_playbook,omitempty"`
	Rationale   string                 `json:"rationale"`
	Evidence    backend.Evidence       `json:"evidence"`
	Supersedes  []string               `json:"supersedes,omitempty"`
	SignalIDs   []string               `json:"signal_ids,omitempty"`
}

// ProposeResult is a stored proposal (or, for signal_only, a signal) plus the trigger
// conflicts the change would bring on the decks holding the playbook.
type ProposeResult struct {
	Proposal *backend.Proposal `json:"proposal,omitempty"`
	Signal   *backend.Signal   `json:"signal,omitempty"`
	Warnings []Warning         `json:"warnings"`
	Next     string            `json:"next"`
}

// ProposePlaybookPatch records an agent's suggested change for a person to review. The ops
// must apply to the playbook as it is now (PATCH_CONFLICT / PATCH_NO_CHANGE otherwise); create
// targets the bound deck; update and retire need the playbook on the bound deck.
func (s *Hub) ProposePlaybookPatch(ctx context.Context, sessionID string, in ProposeInput) (ProposeResult, error) {
	a, err := backend.RequireWrite(ctx, "propose playbook changes")
	if err != nil {
		return ProposeResult{}, err
	}
	sess, err := s.boundSession(ctx, sessionID)
	if err != nil {
		return ProposeResult{}, err
	}
	if !slices.Contains(backend.ProposalKinds, in.Kind) {
		return ProposeResult{}, backend.InvalidEnum("kind", in.Kind, backend.ProposalKinds)
	}
	p := backend.Proposal{Status: backend.ProposalOpen, Kind: in.Kind, DeckID: sess.DeckID, Ops: backend.OrEmpty(in.Ops),
		SessionID: sess.ID, ClientName: sess.ClientName, TokenID: a.TokenID, Supersedes: []string{}}
	if p.Rationale, err = cleanRequired("rationale", in.Rationale, maxRationaleChars); err != nil {
		return ProposeResult{}, err
	}
	if p.Evidence, err = cleanEvidence(in.Evidence); err != nil {
		return ProposeResult{}, err
	}
	maskLearning(s.heldMask(), &p.Rationale, &p.Evidence, p.Ops)
	needsPlaybook := in.Kind == backend.ProposalUpdate || in.Kind == backend.ProposalRetire
	if needsPlaybook || in.Kind == backend.ProposalSignalOnly && strings.TrimSpace(in.PlaybookID) != "" {
		if p.PlaybookID, err = s.boundPlaybookID(ctx, sessionID, in.PlaybookID); err != nil {
			return ProposeResult{}, err
		}
	}
	if in.Kind == backend.ProposalSignalOnly {
		return s.recordSignal(ctx, a, p)
	}
	next, err := s.proposedPlaybook(ctx, &p, in)
	if err != nil {
		return ProposeResult{}, err
	}
	if p.Kind == backend.ProposalCreate {
		if err := requireAdminToRun(ctx, a, backend.Playbook{}, *next); err != nil {
			return ProposeResult{}, err
		}
	}
	return backend.Transact(ctx, s.store, func(tx backend.Store) (ProposeResult, error) {
		return s.storeProposal(ctx, tx, a, p, next, in)
	})
}

func cleanRequired(field, text string, maxChars int) (string, error) {
	text = strings.TrimSpace(text)
	if text == "" {
		return "", backend.Invalid(field, "must say why, in a sentence or two")
	}
	return backend.CleanText(field, text, maxChars, true)
}

func cleanEvidence(e backend.Evidence) (backend.Evidence, error) {
	var err error
	for _, f := range []struct {
		name string
		v    *string
	}{{"evidence.failure_summary", &e.FailureSummary}, {"evidence.user_feedback_excerpt", &e.UserFeedbackExcerpt},
		{"evidence.corrected_output_hint", &e.CorrectedOutputHint}} {
		if *f.v, err = backend.CleanText(f.name, strings.TrimSpace(*f.v), maxEvidenceChars, true); err != nil {
			return backend.Evidence{}, err
		}
	}
	return e, nil
}

// proposedPlaybook checks the change against the playbook as it is now and returns the
// playbook it would make (for warnings); retire makes none.
func (s *Hub) proposedPlaybook(ctx context.Context, p *backend.Proposal, in ProposeInput) (*backend.Playbook, error) {
	switch p.Kind {
	case backend.ProposalCreate:
		if in.NewPlaybook == nil {
			return nil, backend.Invalid("new_playbook", "create needs new_playbook {title, body, triggers}")
		}
		if len(in.Ops) > 0 || strings.TrimSpace(in.PlaybookID) != "" {
			return nil, backend.Invalid("kind", "create takes new_playbook only; to change a playbook use kind update with ops")
		}
		np, err := newPlaybook(*in.NewPlaybook)
		if err != nil {
			return nil, err
		}
		if len(np.Triggers) == 0 {
			return nil, backend.Invalid("new_playbook.triggers", "must hold at least one trigger, so agents know when to use it")
		}
		np.Triggers = append([]string(nil), np.Triggers...)
		maskPlaybook(s.heldMask(), &np)
		nin := *in.NewPlaybook
		maskPlaybookInput(s.heldMask(), &nin)
		p.NewPlaybook = &nin
		return &np, nil
	case backend.ProposalRetire:
		if len(in.Ops) > 0 || in.NewPlaybook != nil {
			return nil, backend.Invalid("kind", "retire takes playbook_id and rationale only")
		}
		return nil, nil
	}
	if in.NewPlaybook != nil {
		return nil, backend.Invalid("new_playbook", "only for kind create; update takes ops")
	}
	cur, err := s.store.GetPlaybook(ctx, p.PlaybookID)
	if err != nil {
		return nil, backend.StoreErr("reading a playbook", err)
	}
	got, err := ApplyPlaybookOps(PlaybookContent{Body: cur.Body, Triggers: cur.Triggers}, in.Ops)
	if err != nil {
		return nil, err
	}
	next := cur
	next.Body, next.Triggers = got.Body, got.Triggers
	return &next, nil
}

// storeProposal writes the proposal, supersedes the ones it names and parks its signals.
func (s *Hub) storeProposal(ctx context.Context, tx backend.Store, a backend.Actor, p backend.Proposal, next *backend.Playbook, in ProposeInput) (ProposeResult, error) {
	olds, err := s.supersedable(ctx, tx, p, in.Supersedes)
	if err != nil {
		return ProposeResult{}, err
	}
	freed := 0
	for _, o := range olds {
		if o.TokenID == a.TokenID {
			freed++
		}
	}
	if err := roomToRecord(ctx, tx, a, recordProposal, freed); err != nil {
		return ProposeResult{}, err
	}
	signals, err := openSignals(ctx, tx, in.SignalIDs)
	if err != nil {
		return ProposeResult{}, err
	}
	p.CreatedAt = s.clock()
	for _, o := range olds {
		p.Supersedes = append(p.Supersedes, o.ID)
	}
	if err := tx.CreateProposal(ctx, &p); err != nil {
		return ProposeResult{}, backend.StoreErr("recording a proposal", err)
	}
	for _, o := range olds {
		moved, err := tx.SignalsOfProposal(ctx, o.ID)
		if err != nil {
			return ProposeResult{}, backend.StoreErr("reading signals", err)
		}
		signals = append(signals, moved...)
		o.Status, o.SupersededBy, o.DecidedAt = backend.ProposalSuperseded, p.ID, &p.CreatedAt
		if err := tx.UpdateProposal(ctx, &o); err != nil {
			return ProposeResult{}, backend.StoreErr("superseding a proposal", err)
		}
	}
	if len(signals) > 0 {
		if err := tx.SetSignals(ctx, signals, backend.SignalParked, p.ID); err != nil {
			return ProposeResult{}, backend.StoreErr("parking signals", err)
		}
	}
	res := ProposeResult{Proposal: &p, Warnings: []Warning{},
		Next: "A person reviews it (agent-deck proposal show " + p.ID + "); keep working with the current playbook."}
	if next != nil {
		w, err := proposalWarnings(ctx, tx, p, *next)
		if err != nil {
			return ProposeResult{}, err
		}
		res.Warnings = w
	}
	return res, nil
}

// proposalWarnings are the trigger conflicts the change would bring: against every deck
// holding the playbook, or the bound deck for a new one.
func proposalWarnings(ctx context.Context, st backend.Store, p backend.Proposal, next backend.Playbook) ([]Warning, error) {
	if p.Kind != backend.ProposalCreate {
		return playbookWarnings(ctx, st, next)
	}
	ids, err := linkedIDs(ctx, st, p.DeckID, backend.CardPlaybook)
	if err != nil {
		return nil, err
	}
	all, err := st.ListPlaybooks(ctx)
	if err != nil {
		return nil, backend.StoreErr("listing playbooks", err)
	}
	var others []backend.Playbook
	for _, x := range all {
		if slices.Contains(ids, x.ID) {
			others = append(others, x)
		}
	}
	d, err := st.GetDeck(ctx, p.DeckID)
	if err != nil {
		return nil, backend.StoreErr("reading a deck", err)
	}
	return backend.OrEmpty(triggerConflicts(next, others, d.Name)), nil
}

// supersedable loads the open proposals a new one replaces; they must target the same
// playbook (or, for creates, the same deck).
func (s *Hub) supersedable(ctx context.Context, tx backend.Store, p backend.Proposal, ids []string) ([]backend.Proposal, error) {
	if len(ids) > maxProposalRefs {
		return nil, backend.Invalid("supersedes", "at most %d ids, got %d", maxProposalRefs, len(ids))
	}
	var out []backend.Proposal
	for i, id := range ids {
		o, err := tx.GetProposal(ctx, strings.TrimSpace(id))
		if err != nil {
			return nil, err
		}
		field := fmt.Sprintf("supersedes[%d]", i)
		if o.Status != backend.ProposalOpen {
			return nil, backend.Errorf(backend.CodeConflict, "%s: proposal %s is %s, only open proposals can be superseded",
				field, o.ID, o.Status).WithDetail("field", field)
		}
		same := o.PlaybookID == p.PlaybookID && (p.PlaybookID != "" || o.DeckID == p.DeckID)
		if !same {
			return nil, backend.Invalid(field, "proposal %s is about another playbook; supersede only proposals on the same one", o.ID)
		}
		out = append(out, o)
	}
	return out, nil
}

// openSignals checks that every id names an open signal.
func openSignals(ctx context.Context, tx backend.Store, ids []string) ([]string, error) {
	if len(ids) > maxProposalRefs {
		return nil, backend.Invalid("signal_ids", "at most %d ids, got %d", maxProposalRefs, len(ids))
	}
	out := []string{}
	for i, id := range ids {
		g, err := tx.GetSignal(ctx, strings.TrimSpace(id))
		if err != nil {
			return nil, err
		}
		if g.Status != backend.SignalOpen {
			return nil, backend.Errorf(backend.CodeConflict, "signal_ids[%d]: signal %s is %s, only open signals can be used", i, g.ID, g.Status).
				WithDetail("field", fmt.Sprintf("signal_ids[%d]", i))
		}
		out = append(out, g.ID)
	}
	return out, nil
}

// recordSignal stores a signal_only call: a correction not yet generalizable.
func (s *Hub) recordSignal(ctx context.Context, a backend.Actor, p backend.Proposal) (ProposeResult, error) {
	if err := roomToRecord(ctx, s.store, a, recordSignal, 0); err != nil {
		return ProposeResult{}, err
	}
	g := backend.Signal{Status: backend.SignalOpen, PlaybookID: p.PlaybookID, DeckID: p.DeckID, Rationale: p.Rationale,
		Evidence: p.Evidence, SessionID: p.SessionID, ClientName: p.ClientName, CreatedAt: s.clock(), TokenID: a.TokenID}
	if err := s.store.CreateSignal(ctx, &g); err != nil {
		return ProposeResult{}, backend.StoreErr("recording a signal", err)
	}
	return ProposeResult{Signal: &g, Warnings: []Warning{},
		Next: "Recorded. When corrections repeat, propose a change naming signal_ids."}, nil
}

// summarizeProposal is a one-line description of a proposal for lists and get_playbook.
func summarizeProposal(p backend.Proposal) string {
	switch p.Kind {
	case backend.ProposalCreate:
		if p.NewPlaybook != nil {
			return fmt.Sprintf("create %q", p.NewPlaybook.Title)
		}
		return "create a playbook"
	case backend.ProposalRetire:
		return "retire " + p.PlaybookID
	}
	if p.Edit != nil {
		return "edit " + strings.Join(editedFields(*p.Edit), ", ")
	}
	parts := make([]string, len(p.Ops))
	for i, op := range p.Ops {
		switch op.Op {
		case backend.OpAddItem:
			parts[i] = fmt.Sprintf("add to %q: %s", op.Section, op.Text)
		case backend.OpAmendItem:
			parts[i] = fmt.Sprintf("amend in %q: %s", op.Section, op.Anchor)
		case backend.OpRemoveItem:
			parts[i] = fmt.Sprintf("remove from %q: %s", op.Section, op.Anchor)
		case backend.OpSetTriggers:
			parts[i] = "set triggers: " + strings.Join(op.Triggers, ", ")
		default:
			parts[i] = "rewrite the body"
		}
	}
	return strings.Join(parts, "; ")
}
