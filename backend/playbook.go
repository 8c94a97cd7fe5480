package backend

import (
	"context"
	"sort"
	"strings"
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
	Playbook
	Warnings            []Warning `json:"warnings"`
	UnknownDependencies []string  `json:"unknown_dependencies"`
}

// ListPlaybooks returns every playbook, by title.
func (s *Service) ListPlaybooks(ctx context.Context) ([]Playbook, error) {
	if _, err := requireRead(ctx, "list playbooks"); err != nil {
		return nil, err
	}
	ps, err := s.store.ListPlaybooks(ctx)
	if err != nil {
		return nil, storeErr("listing playbooks", err)
	}
	for i := range ps {
		ps[i] = playbookView(ps[i])
	}
	sort.SliceStable(ps, func(i, j int) bool {
		return strings.ToLower(ps[i].Title) < strings.ToLower(ps[j].Title)
	})
	return orEmpty(ps), nil
}

// GetPlaybook finds a playbook by id or title.
func (s *Service) GetPlaybook(ctx context.Context, ref string) (Playbook, error) {
	if _, err := requireRead(ctx, "read playbooks"); err != nil {
		return Playbook{}, err
	}
	p, err := playbookByRef(ctx, s.store, ref)
	return playbookView(p), err
}

// CreatePlaybook stores a playbook with cleaned triggers and detected dependencies.
func (s *Service) CreatePlaybook(ctx context.Context, in PlaybookInput) (PlaybookResult, error) {
	if _, err := requireWrite(ctx, "create playbooks"); err != nil {
		return PlaybookResult{}, err
	}
	p, err := newPlaybook(in)
	if err != nil {
		return PlaybookResult{}, err
	}
	cat, err := catalog(ctx, s.store)
	if err != nil {
		return PlaybookResult{}, err
	}
	setDependencies(&p, cat, in.DependsOnCredentialIDs, in.DependsOnServiceIDs, in.AutoDetectDependencies)
	p.ID, err = pickID(ctx, p.ID, DerivePlaybookID(p.Title), "playbook_id", func(id string) (bool, error) {
		got, err := s.store.GetPlaybook(ctx, id)
		return got.ID == id, err
	})
	if err != nil {
		return PlaybookResult{}, err
	}
	p.CreatedAt, p.UpdatedAt = s.clock(), s.clock()
	if err := s.store.CreatePlaybook(ctx, &p); err != nil {
		return PlaybookResult{}, nameConflict(err, "playbook", "title", p.Title)
	}
	return PlaybookResult{Playbook: playbookView(p), Warnings: []Warning{},
		UnknownDependencies: cat.unknownOf(p)}, nil
}

// UpdatePlaybook snapshots the current version, then applies the patch.
func (s *Service) UpdatePlaybook(ctx context.Context, ref string, in PlaybookPatch) (PlaybookResult, error) {
	a, err := requireWrite(ctx, "change playbooks")
	if err != nil {
		return PlaybookResult{}, err
	}
	return transact(ctx, s.store, func(tx Store) (PlaybookResult, error) {
		cur, err := playbookByRef(ctx, tx, ref)
		if err != nil {
			return PlaybookResult{}, err
		}
		next, err := applyPlaybookPatch(cur, in)
		if err != nil {
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
		return s.writePlaybookChange(ctx, tx, a, cur, next, cat)
	})
}

// DeletePlaybook removes a playbook and its versions. Admin only.
func (s *Service) DeletePlaybook(ctx context.Context, ref string) error {
	if _, err := requireAdmin(ctx, "delete playbooks"); err != nil {
		return err
	}
	p, err := playbookByRef(ctx, s.store, ref)
	if err != nil {
		return err
	}
	return storeErr("deleting a playbook", s.store.DeletePlaybook(ctx, p.ID))
}

// ListPlaybookVersions returns a playbook's snapshots, newest first.
func (s *Service) ListPlaybookVersions(ctx context.Context, ref string) ([]PlaybookVersion, error) {
	if _, err := requireRead(ctx, "read playbook versions"); err != nil {
		return nil, err
	}
	p, err := playbookByRef(ctx, s.store, ref)
	if err != nil {
		return nil, err
	}
	vs, err := s.store.ListPlaybookVersions(ctx, p.ID)
	if err != nil {
		return nil, storeErr("listing playbook versions", err)
	}
	for i := range vs {
		vs[i].Snapshot = playbookView(vs[i].Snapshot)
	}
	sort.SliceStable(vs, func(i, j int) bool { return vs[i].Version > vs[j].Version })
	return orEmpty(vs), nil
}

// RestorePlaybookVersion snapshots the current version, then brings back version n.
func (s *Service) RestorePlaybookVersion(ctx context.Context, ref string, n int) (PlaybookResult, error) {
	a, err := requireWrite(ctx, "restore playbook versions")
	if err != nil {
		return PlaybookResult{}, err
	}
	if n < 1 {
		return PlaybookResult{}, invalid("version", "must be a version number (1 or more), got %d", n)
	}
	return transact(ctx, s.store, func(tx Store) (PlaybookResult, error) {
		cur, err := playbookByRef(ctx, tx, ref)
		if err != nil {
			return PlaybookResult{}, err
		}
		v, err := versionOf(ctx, tx, cur, n)
		if err != nil {
			return PlaybookResult{}, err
		}
		next := restoredFrom(cur, v.Snapshot)
		cat, err := catalog(ctx, tx)
		if err != nil {
			return PlaybookResult{}, err
		}
		return s.writePlaybookChange(ctx, tx, a, cur, next, cat)
	})
}

// Dependents returns the playbooks that depend on a card.
func (s *Service) Dependents(ctx context.Context, t CardType, cardRef string) ([]PlaybookSummary, error) {
	if _, err := requireRead(ctx, "read playbook dependencies"); err != nil {
		return nil, err
	}
	if t != CardService && t != CardCredential {
		return nil, invalidEnum("card_type", t, []CardType{CardService, CardCredential})
	}
	id := strings.TrimSpace(cardRef)
	card, err := resolveCard(ctx, s.store, t, id)
	if err == nil {
		id = card.ID
	} else if !isNotFound(err) {
		return nil, err
	}
	deps, derr := s.store.PlaybooksDependingOn(ctx, t, id)
	if derr != nil {
		return nil, storeErr("finding dependent playbooks", derr)
	}
	if err != nil && len(deps) == 0 {
		// Unknown dependency ids are kept on playbooks; only a ref nobody names is an error.
		return nil, err
	}
	out := make([]PlaybookSummary, len(deps))
	for i, p := range deps {
		out[i] = PlaybookSummary{ID: p.ID, Title: p.Title, Triggers: orEmpty(p.Triggers)}
	}
	return out, nil
}
