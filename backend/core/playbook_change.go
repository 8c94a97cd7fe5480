package core

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/agent-deck/agent-deck/backend"
)

const (
	maxDependencies    = 64
	maxDependencyChars = 200
)

// playbookView normalises a playbook for output: empty lists are [] rather than null.
func playbookView(p backend.Playbook) backend.Playbook {
	p.Triggers = backend.OrEmpty(p.Triggers)
	p.DependsOnCredentialIDs = backend.OrEmpty(p.DependsOnCredentialIDs)
	p.DependsOnServiceIDs = backend.OrEmpty(p.DependsOnServiceIDs)
	p.ExplicitCredentialIDs = backend.OrEmpty(p.ExplicitCredentialIDs)
	p.ExplicitServiceIDs = backend.OrEmpty(p.ExplicitServiceIDs)
	return p
}

// newPlaybook validates a create request; the id is picked later, once known to be free.
func newPlaybook(in backend.PlaybookInput) (backend.Playbook, error) {
	p := backend.Playbook{ID: strings.TrimSpace(in.ID)}
	if p.ID != "" {
		if err := backend.CheckPlaybookID(p.ID); err != nil {
			return backend.Playbook{}, err
		}
	}
	patch := PlaybookPatch{
		Title: &in.Title, Body: &in.Body, Triggers: &in.Triggers, Exec: &in.Exec, Skill: &in.Skill,
		DependsOnCredentialIDs: &in.DependsOnCredentialIDs, DependsOnServiceIDs: &in.DependsOnServiceIDs,
	}
	return applyPlaybookPatch(p, patch)
}

// applyPlaybookPatch validates and applies the text fields of a patch. Dependencies are only
// checked here; setDependencies resolves and merges them.
func applyPlaybookPatch(cur backend.Playbook, in PlaybookPatch) (backend.Playbook, error) {
	next := cur
	var err error
	if in.Title != nil {
		if next.Title, err = backend.CleanName("title", *in.Title); err != nil {
			return backend.Playbook{}, err
		}
	}
	if in.Body != nil {
		if next.Body, err = backend.CleanText("body", *in.Body, backend.MaxBodyBytes, true); err != nil {
			return backend.Playbook{}, err
		}
	}
	if in.Triggers != nil {
		if next.Triggers, err = CleanTriggers(*in.Triggers); err != nil {
			return backend.Playbook{}, err
		}
	}
	if in.Exec != nil {
		if next.Exec, err = backend.CleanText("exec", strings.TrimSpace(*in.Exec), backend.MaxExecLength, true); err != nil {
			return backend.Playbook{}, err
		}
	}
	if in.Skill != nil {
		if next.Skill, err = backend.CleanText("skill", strings.TrimSpace(*in.Skill), backend.MaxSkillLength, false); err != nil {
			return backend.Playbook{}, err
		}
	}
	if in.DependsOnCredentialIDs != nil {
		if err := checkDepRefs("depends_on_credential_ids", *in.DependsOnCredentialIDs); err != nil {
			return backend.Playbook{}, err
		}
	}
	if in.DependsOnServiceIDs != nil {
		if err := checkDepRefs("depends_on_service_ids", *in.DependsOnServiceIDs); err != nil {
			return backend.Playbook{}, err
		}
	}
	return next, nil
}

func checkDepRefs(field string, refs []string) error {
	if len(refs) > maxDependencies {
		return backend.Invalid(field, "at most %d ids, got %d", maxDependencies, len(refs))
	}
	for _, r := range refs {
		if len(r) > maxDependencyChars || backend.HasControl(r, false) {
			return backend.Invalid(field, "%q must be an id or name of at most %d characters", backend.Clip(r, 60),
				maxDependencyChars)
		}
	}
	return nil
}

// catalog is the collection dependencies are detected against.
func catalog(ctx context.Context, st backend.Store) (DependencyCatalog, error) {
	creds, err := st.ListCredentials(ctx)
	if err != nil {
		return DependencyCatalog{}, backend.StoreErr("listing credentials", err)
	}
	svcs, err := st.ListServices(ctx)
	if err != nil {
		return DependencyCatalog{}, backend.StoreErr("listing services", err)
	}
	cat := DependencyCatalog{
		Credentials: make([]backend.Credential, len(creds)),
		Services:    make([]backend.ServiceCard, len(svcs)),
	}
	for i, c := range creds {
		cat.Credentials[i] = c.Credential
	}
	for i, sv := range svcs {
		cat.Services[i] = sv.ServiceCard
	}
	return cat, nil
}

// setDependencies resolves the explicit dependencies (ids or names), records them as explicit
// and, unless turned off, merges in those detected in the playbook's text: the effective sets
// are rebuilt from scratch, so a detected id the text no longer mentions goes away.
func setDependencies(p *backend.Playbook, cat DependencyCatalog, creds, svcs []string, auto *bool) {
	d := Dependencies{
		CredentialIDs: cat.resolveExplicit(backend.CardCredential, creds),
		ServiceIDs:    cat.resolveExplicit(backend.CardService, svcs),
	}
	p.ExplicitCredentialIDs = backend.OrEmpty(slices.Clone(d.CredentialIDs))
	p.ExplicitServiceIDs = backend.OrEmpty(slices.Clone(d.ServiceIDs))
	if auto == nil || *auto {
		found := DetectDependencies(cat, p.Title, p.Body, p.Exec, p.Skill, strings.Join(p.Triggers, "\n"))
		for _, id := range found.CredentialIDs {
			d.CredentialIDs = appendUnique(d.CredentialIDs, id)
		}
		for _, id := range found.ServiceIDs {
			d.ServiceIDs = appendUnique(d.ServiceIDs, id)
		}
	}
	p.DependsOnCredentialIDs = backend.OrEmpty(d.CredentialIDs)
	p.DependsOnServiceIDs = backend.OrEmpty(d.ServiceIDs)
}

// unknownOf lists a playbook's dependency ids that name no card.
func (cat DependencyCatalog) unknownOf(p backend.Playbook) []string {
	return cat.unknown(Dependencies{CredentialIDs: p.DependsOnCredentialIDs, ServiceIDs: p.DependsOnServiceIDs})
}

// samePlaybook reports whether a change would alter nothing a version records.
func samePlaybook(a, b backend.Playbook) bool {
	return a.Title == b.Title && a.Body == b.Body && a.Exec == b.Exec && a.Skill == b.Skill &&
		slices.Equal(a.Triggers, b.Triggers) &&
		slices.Equal(a.DependsOnCredentialIDs, b.DependsOnCredentialIDs) &&
		slices.Equal(a.DependsOnServiceIDs, b.DependsOnServiceIDs) &&
		slices.Equal(a.ExplicitCredentialIDs, b.ExplicitCredentialIDs) &&
		slices.Equal(a.ExplicitServiceIDs, b.ExplicitServiceIDs)
}

// writePlaybookChange records cur as a version, then writes next with every held secret
// masked, inside the caller's transaction. A change that alters nothing writes nothing.
func (s *Hub) writePlaybookChange(ctx context.Context, tx backend.Store, a backend.Actor, cur, next backend.Playbook, cat DependencyCatalog) (PlaybookResult, error) {
	maskPlaybook(s.heldMask(), &next)
	if !samePlaybook(cur, next) {
		kind := a.Kind
		if kind != backend.ActorAgent {
			kind = backend.ActorUser
		}
		now := s.clock()
		v := backend.PlaybookVersion{PlaybookID: cur.ID, Snapshot: playbookView(cur), Actor: kind, CreatedAt: now, Person: a.PersonName}
		if err := tx.AddPlaybookVersion(ctx, &v); err != nil {
			return PlaybookResult{}, backend.StoreErr("recording a playbook version", err)
		}
		next.UpdatedAt = now
		if err := tx.UpdatePlaybook(ctx, &next); err != nil {
			return PlaybookResult{}, backend.NameConflict(err, "playbook", "title", next.Title)
		}
	}
	warnings, err := playbookWarnings(ctx, tx, next)
	if err != nil {
		return PlaybookResult{}, err
	}
	return PlaybookResult{Playbook: playbookView(next), Warnings: warnings,
		UnknownDependencies: cat.unknownOf(next)}, nil
}

// versionOf finds version n; NOT_FOUND lists the versions there are.
func versionOf(ctx context.Context, st backend.Store, p backend.Playbook, n int) (backend.PlaybookVersion, error) {
	v, err := st.GetPlaybookVersion(ctx, p.ID, n)
	if !backend.IsNotFound(err) {
		return v, backend.StoreErr("reading a playbook version", err)
	}
	vs, lerr := st.ListPlaybookVersions(ctx, p.ID)
	if lerr != nil {
		return v, backend.StoreErr("listing playbook versions", lerr)
	}
	nums := make([]string, len(vs))
	for i, x := range vs {
		nums[i] = fmt.Sprint(x.Version)
	}
	return v, backend.Errorf(backend.CodeNotFound, "playbook %q has no version %d; its versions: %s", p.ID, n, backend.KnownList(nums)).
		WithDetail("field", "version")
}

// restoredFrom is cur with the content of a snapshot; id and creation time stay.
func restoredFrom(cur, snap backend.Playbook) backend.Playbook {
	next := cur
	next.Title, next.Body, next.Exec, next.Skill = snap.Title, snap.Body, snap.Exec, snap.Skill
	next.Triggers = backend.OrEmpty(slices.Clone(snap.Triggers))
	next.DependsOnCredentialIDs = backend.OrEmpty(slices.Clone(snap.DependsOnCredentialIDs))
	next.DependsOnServiceIDs = backend.OrEmpty(slices.Clone(snap.DependsOnServiceIDs))
	next.ExplicitCredentialIDs, next.ExplicitServiceIDs = explicitOf(snap)
	return next
}

// explicitOf returns a snapshot's explicit dependencies. Snapshots taken before they were
// recorded have none: like the rows migrated then, all their dependencies count as explicit.
func explicitOf(snap backend.Playbook) (creds, svcs []string) {
	creds, svcs = snap.ExplicitCredentialIDs, snap.ExplicitServiceIDs
	if creds == nil && svcs == nil {
		creds, svcs = snap.DependsOnCredentialIDs, snap.DependsOnServiceIDs
	}
	return backend.OrEmpty(slices.Clone(creds)), backend.OrEmpty(slices.Clone(svcs))
}

// playbookWarnings reports trigger conflicts with the other playbooks on every deck holding p.
func playbookWarnings(ctx context.Context, st backend.Store, p backend.Playbook) ([]Warning, error) {
	out := []Warning{}
	decks, err := st.DecksLinking(ctx, backend.CardPlaybook, p.ID)
	if err != nil || len(decks) == 0 {
		return out, backend.StoreErr("finding decks of a playbook", err)
	}
	all, err := st.ListPlaybooks(ctx)
	if err != nil {
		return nil, backend.StoreErr("listing playbooks", err)
	}
	byID := make(map[string]backend.Playbook, len(all))
	for _, x := range all {
		byID[x.ID] = x
	}
	seen := map[string]bool{}
	for _, d := range decks {
		ids, err := linkedIDs(ctx, st, d.ID, backend.CardPlaybook)
		if err != nil {
			return nil, err
		}
		var others []backend.Playbook
		for _, id := range ids {
			if o, ok := byID[id]; ok && !seen[id] {
				others = append(others, o)
			}
		}
		for _, w := range triggerConflicts(p, others, d.Name) {
			seen[w.Playbooks[0]] = true
			out = append(out, w)
		}
	}
	return out, nil
}
