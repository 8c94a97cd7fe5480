package core

import (
	"context"
	"fmt"
	"sort"
	"strings"

	"github.com/agent-deck/agent-deck/backend"
)

// PlaybookPatch changes some fields of a playbook; nil means unchanged.
type PlaybookPatch struct {
	Title                  *string   `json:"title,omitempty"`
	Body                   *string   `json:"body,omitempty"`
	Triggers               *[]string `json:"triggers,omitempty"`
	Exec                   *string   `json:"exec,omitempty"`
	Skill                  *string   `json:"skill,omitempty"`
	DependsOnCredentialIDs *[]string `json:"depends_on_credential_ids,omitempty"`
	DependsOnServiceIDs    *[]string `json:"depends_on_service_ids,omitempty"`
	AutoDetectDependencies *bool     `json:"auto_detect_dependencies,omitempty"`
}

// PlaybookResult is a written playbook plus advice: conflicting triggers and dependency ids
// that name no existing card.
type PlaybookResult struct {
	backend.Playbook
	Warnings            []Warning `json:"warnings"`
	UnknownDependencies []string  `json:"unknown_dependencies"`
	// Proposal is set when an agent's write was held for review (playbook_review.go): the
	// playbook above is as it stays until a person accepts the proposal.
	Proposal *backend.Proposal `json:"proposal,omitempty"`
	// Next says what happens to a held write.
	Next string `json:"next,omitempty"`
}

// ListPlaybooks returns every playbook, by title.
func (s *Hub) ListPlaybooks(ctx context.Context) ([]backend.Playbook, error) {
	if _, err := backend.RequireRead(ctx, "list playbooks"); err != nil {
		return nil, err
	}
	ps, err := s.store.ListPlaybooks(ctx)
	if err != nil {
		return nil, backend.StoreErr("listing playbooks", err)
	}
	for i := range ps {
		ps[i] = playbookView(ps[i])
	}
	sort.SliceStable(ps, func(i, j int) bool {
		return strings.ToLower(ps[i].Title) < strings.ToLower(ps[j].Title)
	})
	return backend.OrEmpty(ps), nil
}

// GetPlaybook finds a playbook by id or title.
func (s *Hub) GetPlaybook(ctx context.Context, ref string) (backend.Playbook, error) {
	if _, err := backend.RequireRead(ctx, "read playbooks"); err != nil {
		return backend.Playbook{}, err
	}
	p, err := backend.PlaybookByRef(ctx, s.store, ref)
	return playbookView(p), err
}

// CreatePlaybook stores a playbook with cleaned triggers and detected dependencies. An agent
// token's playbook is held for review where the server's default requires it.
func (s *Hub) CreatePlaybook(ctx context.Context, in backend.PlaybookInput) (PlaybookResult, error) {
	a, err := backend.RequireWrite(ctx, "create playbooks")
	if err != nil {
		return PlaybookResult{}, err
	}
	return s.createOrHold(ctx, a, writeOrigin{}, "", in)
}

// createOrHold creates a playbook, or holds it for review when the deck it goes on (deckID, or
// none) requires review of agents' writes.
func (s *Hub) createOrHold(ctx context.Context, a backend.Actor, o writeOrigin, deckID string, in backend.PlaybookInput) (PlaybookResult, error) {
	p, err := newPlaybook(in)
	if err != nil {
		return PlaybookResult{}, err
	}
	if err := requireAdminToRun(ctx, a, backend.Playbook{}, p); err != nil {
		return PlaybookResult{}, err
	}
	held, err := s.reviewRequired(ctx, s.store, a, "", deckID)
	if err != nil {
		return PlaybookResult{}, err
	}
	if held {
		return s.holdCreate(ctx, s.store, a, o, deckID, in, p)
	}
	return s.createPlaybook(ctx, p, in)
}

// createPlaybook stores a validated playbook, picking its id.
func (s *Hub) createPlaybook(ctx context.Context, p backend.Playbook, in backend.PlaybookInput) (PlaybookResult, error) {
	maskPlaybook(s.heldMask(), &p)
	cat, err := catalog(ctx, s.store)
	if err != nil {
		return PlaybookResult{}, err
	}
	setDependencies(&p, cat, in.DependsOnCredentialIDs, in.DependsOnServiceIDs, in.AutoDetectDependencies)
	p.ID, err = pickID(ctx, p.ID, backend.DerivePlaybookID(p.Title), "playbook_id", func(id string) (bool, error) {
		got, err := s.store.GetPlaybook(ctx, id)
		return got.ID == id, err
	})
	if err != nil {
		return PlaybookResult{}, err
	}
	p.CreatedAt, p.UpdatedAt = s.clock(), s.clock()
	if err := s.store.CreatePlaybook(ctx, &p); err != nil {
		return PlaybookResult{}, backend.NameConflict(err, "playbook", "title", p.Title)
	}
	return PlaybookResult{Playbook: playbookView(p), Warnings: []Warning{},
		UnknownDependencies: cat.unknownOf(p)}, nil
}

// UpdatePlaybook snapshots the current version, then applies the patch; an agent token's
// change is held for review where a deck holding the playbook requires it.
func (s *Hub) UpdatePlaybook(ctx context.Context, ref string, in PlaybookPatch) (PlaybookResult, error) {
	return s.updatePlaybook(ctx, ref, in, writeOrigin{})
}

func (s *Hub) updatePlaybook(ctx context.Context, ref string, in PlaybookPatch, o writeOrigin) (PlaybookResult, error) {
	a, err := backend.RequireWrite(ctx, "change playbooks")
	if err != nil {
		return PlaybookResult{}, err
	}
	return backend.Transact(ctx, s.store, func(tx backend.Store) (PlaybookResult, error) {
		cur, err := backend.PlaybookByRef(ctx, tx, ref)
		if err != nil {
			return PlaybookResult{}, err
		}
		next, err := applyPlaybookPatch(cur, in)
		if err != nil {
			return PlaybookResult{}, err
		}
		if err := requireAdminToRun(ctx, a, cur, next); err != nil {
			return PlaybookResult{}, err
		}
		cat, err := catalog(ctx, tx)
		if err != nil {
			return PlaybookResult{}, err
		}
		creds, svcs := cur.ExplicitCredentialIDs, cur.ExplicitServiceIDs
		setIf(&creds, in.DependsOnCredentialIDs)
		setIf(&svcs, in.DependsOnServiceIDs)
		setDependencies(&next, cat, creds, svcs, in.AutoDetectDependencies)
		held, err := s.reviewRequired(ctx, tx, a, cur.ID, "")
		if err != nil {
			return PlaybookResult{}, err
		}
		if held && !samePlaybook(cur, next) {
			return s.holdEdit(ctx, tx, a, o, cur, editOf(in), "an agent's update_playbook, held for review")
		}
		return s.writePlaybookChange(ctx, tx, a, cur, next, cat)
	})
}

// DeletePlaybook removes a playbook and its versions: its owner or an admin, on a person's own
// surface.
func (s *Hub) DeletePlaybook(ctx context.Context, ref string) error {
	a, err := backend.RequirePerson(ctx, "delete playbooks")
	if err != nil {
		return err
	}
	p, err := backend.PlaybookByRef(ctx, s.store, ref)
	if err != nil {
		return err
	}
	if err := mayManage(a, "playbook", p.Title, p.OwnerID, "delete"); err != nil {
		return err
	}
	return backend.StoreErr("deleting a playbook", s.store.DeletePlaybook(ctx, p.ID))
}

// ListPlaybookVersions returns a playbook's snapshots, newest first.
func (s *Hub) ListPlaybookVersions(ctx context.Context, ref string) ([]backend.PlaybookVersion, error) {
	if _, err := backend.RequireRead(ctx, "read playbook versions"); err != nil {
		return nil, err
	}
	p, err := backend.PlaybookByRef(ctx, s.store, ref)
	if err != nil {
		return nil, err
	}
	vs, err := s.store.ListPlaybookVersions(ctx, p.ID)
	if err != nil {
		return nil, backend.StoreErr("listing playbook versions", err)
	}
	for i := range vs {
		vs[i].Snapshot = playbookView(vs[i].Snapshot)
	}
	sort.SliceStable(vs, func(i, j int) bool { return vs[i].Version > vs[j].Version })
	return backend.OrEmpty(vs), nil
}

// RestorePlaybookVersion snapshots the current version, then brings back version n.
func (s *Hub) RestorePlaybookVersion(ctx context.Context, ref string, n int) (PlaybookResult, error) {
	a, err := backend.RequireWrite(ctx, "restore playbook versions")
	if err != nil {
		return PlaybookResult{}, err
	}
	if n < 1 {
		return PlaybookResult{}, backend.Invalid("version", "must be a version number (1 or more), got %d", n)
	}
	return backend.Transact(ctx, s.store, func(tx backend.Store) (PlaybookResult, error) {
		cur, err := backend.PlaybookByRef(ctx, tx, ref)
		if err != nil {
			return PlaybookResult{}, err
		}
		v, err := versionOf(ctx, tx, cur, n)
		if err != nil {
			return PlaybookResult{}, err
		}
		next := restoredFrom(cur, v.Snapshot)
		if err := requireAdminToRun(ctx, a, cur, next); err != nil {
			return PlaybookResult{}, err
		}
		cat, err := catalog(ctx, tx)
		if err != nil {
			return PlaybookResult{}, err
		}
		held, err := s.reviewRequired(ctx, tx, a, cur.ID, "")
		if err != nil {
			return PlaybookResult{}, err
		}
		if held && !samePlaybook(cur, next) {
			return s.holdEdit(ctx, tx, a, writeOrigin{}, cur, restoreEdit(v.Snapshot),
				fmt.Sprintf("an agent's restore of version %d, held for review", n))
		}
		return s.writePlaybookChange(ctx, tx, a, cur, next, cat)
	})
}

// Dependents returns the playbooks that depend on a card.
func (s *Hub) Dependents(ctx context.Context, t backend.CardType, cardRef string) ([]backend.PlaybookSummary, error) {
	if _, err := backend.RequireRead(ctx, "read playbook dependencies"); err != nil {
		return nil, err
	}
	if t != backend.CardService && t != backend.CardCredential {
		return nil, backend.InvalidEnum("card_type", t, []backend.CardType{backend.CardService, backend.CardCredential})
	}
	id := strings.TrimSpace(cardRef)
	card, err := backend.ResolveCard(ctx, s.store, t, id)
	if err == nil {
		id = card.ID
	} else if !backend.IsNotFound(err) {
		return nil, err
	}
	deps, derr := s.store.PlaybooksDependingOn(ctx, t, id)
	if derr != nil {
		return nil, backend.StoreErr("finding dependent playbooks", derr)
	}
	if err != nil && len(deps) == 0 {
		// Unknown dependency ids are kept on playbooks; only a ref nobody names is an error.
		return nil, err
	}
	out := make([]backend.PlaybookSummary, len(deps))
	for i, p := range deps {
		out[i] = backend.PlaybookSummary{ID: p.ID, Title: p.Title, Triggers: backend.OrEmpty(p.Triggers)}
	}
	return out, nil
}
