package core

import (
	"context"
	"slices"

	"github.com/agent-deck/agent-deck/backend"
)

// applyProposal makes the proposal's change inside the accept's transaction. Ops that no
// longer apply are a PATCH_CONFLICT (or PATCH_NO_CHANGE), which the accept turns into stale.
func (s *Hub) applyProposal(ctx context.Context, tx backend.Store, p backend.Proposal) (*PlaybookResult, error) {
	switch p.Kind {
	case backend.ProposalCreate:
		return s.acceptCreate(ctx, tx, p)
	case backend.ProposalRetire:
		return nil, s.acceptRetire(ctx, tx, p)
	}
	if err := tx.LockPlaybook(ctx, p.PlaybookID); err != nil {
		return nil, backend.StoreErr("locking a playbook", err)
	}
	cur, err := tx.GetPlaybook(ctx, p.PlaybookID)
	if err != nil {
		return nil, backend.StoreErr("reading a playbook", err)
	}
	cat, err := catalog(ctx, tx)
	if err != nil {
		return nil, err
	}
	next, err := proposedChange(cur, p, cat)
	if err != nil {
		return nil, err
	}
	maskPlaybook(s.heldMask(), &next)
	now := s.clock()
	// The change is the proposing agent's, accepted by a person: the version names the proposer.
	v := backend.PlaybookVersion{PlaybookID: cur.ID, Snapshot: playbookView(cur), Actor: backend.ActorAgent, CreatedAt: now,
		ProposalID: p.ID, Person: p.Person}
	if err := tx.AddPlaybookVersion(ctx, &v); err != nil {
		return nil, backend.StoreErr("recording a playbook version", err)
	}
	next.UpdatedAt = now
	if err := tx.UpdatePlaybook(ctx, &next); err != nil {
		return nil, backend.NameConflict(err, "playbook", "title", next.Title)
	}
	warnings, err := playbookWarnings(ctx, tx, next)
	if err != nil {
		return nil, err
	}
	return &PlaybookResult{Playbook: playbookView(next), Warnings: warnings, UnknownDependencies: cat.unknownOf(next)}, nil
}

// proposedChange is the playbook an update proposal makes of cur: its ops re-applied to the
// body as it is now (PATCH_CONFLICT when they no longer apply), or its held edit applied to the
// fields (PATCH_NO_CHANGE when the playbook already reads so).
func proposedChange(cur backend.Playbook, p backend.Proposal, cat DependencyCatalog) (backend.Playbook, error) {
	if p.Edit == nil {
		got, err := ApplyPlaybookOps(PlaybookContent{Body: cur.Body, Triggers: cur.Triggers}, p.Ops)
		if err != nil {
			return cur, err
		}
		next := cur
		next.Body, next.Triggers = got.Body, got.Triggers
		setDependencies(&next, cat, cur.ExplicitCredentialIDs, cur.ExplicitServiceIDs, nil)
		return next, nil
	}
	next, err := applyPlaybookPatch(cur, patchOf(*p.Edit))
	if err != nil {
		return cur, err
	}
	creds, svcs := cur.ExplicitCredentialIDs, cur.ExplicitServiceIDs
	setIf(&creds, p.Edit.DependsOnCredentialIDs)
	setIf(&svcs, p.Edit.DependsOnServiceIDs)
	setDependencies(&next, cat, creds, svcs, p.Edit.AutoDetectDependencies)
	if samePlaybook(cur, next) {
		return cur, backend.Errorf(backend.CodePatchNoChange, "the playbook already reads as the edit would make it").
			WithHint("reject the proposal; nothing is left to apply")
	}
	return next, nil
}

// acceptCreate stores the proposed playbook and puts it on the deck it was proposed for.
func (s *Hub) acceptCreate(ctx context.Context, tx backend.Store, p backend.Proposal) (*PlaybookResult, error) {
	np, err := newPlaybook(*p.NewPlaybook)
	if err != nil {
		return nil, err
	}
	cat, err := catalog(ctx, tx)
	if err != nil {
		return nil, err
	}
	in := p.NewPlaybook
	setDependencies(&np, cat, in.DependsOnCredentialIDs, in.DependsOnServiceIDs, in.AutoDetectDependencies)
	maskPlaybook(s.heldMask(), &np)
	np.ID, err = pickID(ctx, np.ID, backend.DerivePlaybookID(np.Title), "playbook_id", func(id string) (bool, error) {
		got, err := tx.GetPlaybook(ctx, id)
		return got.ID == id, err
	})
	if err != nil {
		return nil, err
	}
	np.CreatedAt, np.UpdatedAt = s.clock(), s.clock()
	if err := tx.CreatePlaybook(ctx, &np); err != nil {
		return nil, backend.NameConflict(err, "playbook", "title", np.Title)
	}
	res := &PlaybookResult{Playbook: playbookView(np), Warnings: []Warning{}, UnknownDependencies: cat.unknownOf(np)}
	if p.DeckID == "" {
		return res, nil
	}
	cr, err := s.link(ctx, tx, LinkCardInput{CardRef: CardRef{Deck: p.DeckID, CardType: backend.CardPlaybook, CardID: np.ID}})
	if err != nil {
		return nil, err
	}
	res.Warnings = append(res.Warnings, cr.Warnings...)
	return res, nil
}

// acceptRetire takes the playbook off the deck it was proposed on; the playbook stays in the
// collection, as other decks may hold it.
func (s *Hub) acceptRetire(ctx context.Context, tx backend.Store, p backend.Proposal) error {
	if p.DeckID != "" {
		if err := tx.LockDeck(ctx, p.DeckID); err != nil {
			return backend.StoreErr("locking a deck", err)
		}
		ids, err := linkedIDs(ctx, tx, p.DeckID, backend.CardPlaybook)
		if err != nil {
			return err
		}
		if slices.Contains(ids, p.PlaybookID) {
			_, err := s.unlink(ctx, tx, CardRef{Deck: p.DeckID, CardType: backend.CardPlaybook, CardID: p.PlaybookID})
			return err
		}
	}
	return backend.Errorf(backend.CodePatchConflict, "playbook %q is no longer on the deck the proposal retires it from", p.PlaybookID)
}
