package backend

import (
	"context"
	"fmt"
	"slices"
	"strings"
)

const (
	maxDependencies    = 64
	maxDependencyChars = 200
)

// playbookView normalises a playbook for output: empty lists are [] rather than null.
func playbookView(p Playbook) Playbook {
	p.Triggers = orEmpty(p.Triggers)
	p.DependsOnCredentialIDs = orEmpty(p.DependsOnCredentialIDs)
	p.DependsOnServiceIDs = orEmpty(p.DependsOnServiceIDs)
	p.ExplicitCredentialIDs = orEmpty(p.ExplicitCredentialIDs)
	p.ExplicitServiceIDs = orEmpty(p.ExplicitServiceIDs)
	return p
}

// newPlaybook validates a create request; the id is picked later, once known to be free.
func newPlaybook(in PlaybookInput) (Playbook, error) {
	p := Playbook{ID: strings.TrimSpace(in.ID)}
	if p.ID != "" {
		if err := checkPlaybookID(p.ID); err != nil {
			return Playbook{}, err
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
func applyPlaybookPatch(cur Playbook, in PlaybookPatch) (Playbook, error) {
	next := cur
	var err error
	if in.Title != nil {
		if next.Title, err = cleanName("title", *in.Title); err != nil {
			return Playbook{}, err
		}
	}
	if in.Body != nil {
		if next.Body, err = cleanText("body", *in.Body, maxBodyBytes, true); err != nil {
			return Playbook{}, err
		}
	}
	if in.Triggers != nil {
		if next.Triggers, err = CleanTriggers(*in.Triggers); err != nil {
			return Playbook{}, err
		}
	}
	if in.Exec != nil {
		if next.Exec, err = cleanText("exec", strings.TrimSpace(*in.Exec), maxExecLength, true); err != nil {
			return Playbook{}, err
		}
	}
	if in.Skill != nil {
		if next.Skill, err = cleanText("skill", strings.TrimSpace(*in.Skill), maxSkillLength, false); err != nil {
			return Playbook{}, err
		}
	}
	if in.DependsOnCredentialIDs != nil {
		if err := checkDepRefs("depends_on_credential_ids", *in.DependsOnCredentialIDs); err != nil {
			return Playbook{}, err
		}
	}
	if in.DependsOnServiceIDs != nil {
		if err := checkDepRefs("depends_on_service_ids", *in.DependsOnServiceIDs); err != nil {
			return Playbook{}, err
		}
	}
	return next, nil
}

func checkDepRefs(field string, refs []string) error {
	if len(refs) > maxDependencies {
		return invalid(field, "at most %d ids, got %d", maxDependencies, len(refs))
	}
	for _, r := range refs {
		if len(r) > maxDependencyChars || hasControl(r, false) {
			return invalid(field, "%q must be an id or name of at most %d characters", clip(r, 60),
				maxDependencyChars)
		}
	}
	return nil
}

// catalog is the collection dependencies are detected against.
func catalog(ctx context.Context, st Store) (DependencyCatalog, error) {
	creds, err := st.ListCredentials(ctx)
	if err != nil {
		return DependencyCatalog{}, storeErr("listing credentials", err)
	}
	svcs, err := st.ListServices(ctx)
	if err != nil {
		return DependencyCatalog{}, storeErr("listing services", err)
	}
	cat := DependencyCatalog{
		Credentials: make([]Credential, len(creds)),
		Services:    make([]ServiceCard, len(svcs)),
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
func setDependencies(p *Playbook, cat DependencyCatalog, creds, svcs []string, auto *bool) {
	d := Dependencies{
		CredentialIDs: cat.resolveExplicit(CardCredential, creds),
		ServiceIDs:    cat.resolveExplicit(CardService, svcs),
	}
	p.ExplicitCredentialIDs = orEmpty(slices.Clone(d.CredentialIDs))
	p.ExplicitServiceIDs = orEmpty(slices.Clone(d.ServiceIDs))
	if auto == nil || *auto {
		found := DetectDependencies(cat, p.Title, p.Body, p.Exec, p.Skill, strings.Join(p.Triggers, "\n"))
		for _, id := range found.CredentialIDs {
			d.CredentialIDs = appendUnique(d.CredentialIDs, id)
		}
		for _, id := range found.ServiceIDs {
			d.ServiceIDs = appendUnique(d.ServiceIDs, id)
		}
	}
	p.DependsOnCredentialIDs = orEmpty(d.CredentialIDs)
	p.DependsOnServiceIDs = orEmpty(d.ServiceIDs)
}

// unknownOf lists a playbook's dependency ids that name no card.
func (cat DependencyCatalog) unknownOf(p Playbook) []string {
	return cat.unknown(Dependencies{CredentialIDs: p.DependsOnCredentialIDs, ServiceIDs: p.DependsOnServiceIDs})
}

// samePlaybook reports whether a change would alter nothing a version records.
func samePlaybook(a, b Playbook) bool {
	return a.Title == b.Title && a.Body == b.Body && a.Exec == b.Exec && a.Skill == b.Skill &&
		slices.Equal(a.Triggers, b.Triggers) &&
		slices.Equal(a.DependsOnCredentialIDs, b.DependsOnCredentialIDs) &&
		slices.Equal(a.DependsOnServiceIDs, b.DependsOnServiceIDs) &&
		slices.Equal(a.ExplicitCredentialIDs, b.ExplicitCredentialIDs) &&
		slices.Equal(a.ExplicitServiceIDs, b.ExplicitServiceIDs)
}

// writePlaybookChange records cur as a version, then writes next, inside the caller's
// transaction. A change that alters nothing writes nothing.
func (s *Service) writePlaybookChange(ctx context.Context, tx Store, a Actor, cur, next Playbook, cat DependencyCatalog) (PlaybookResult, error) {
	if !samePlaybook(cur, next) {
		kind := a.Kind
		if kind != ActorAgent {
			kind = ActorUser
		}
		now := s.clock()
		v := PlaybookVersion{PlaybookID: cur.ID, Snapshot: playbookView(cur), Actor: kind, CreatedAt: now}
		if err := tx.AddPlaybookVersion(ctx, &v); err != nil {
			return PlaybookResult{}, storeErr("recording a playbook version", err)
		}
		next.UpdatedAt = now
		if err := tx.UpdatePlaybook(ctx, &next); err != nil {
			return PlaybookResult{}, nameConflict(err, "playbook", "title", next.Title)
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
func versionOf(ctx context.Context, st Store, p Playbook, n int) (PlaybookVersion, error) {
	v, err := st.GetPlaybookVersion(ctx, p.ID, n)
	if !isNotFound(err) {
		return v, storeErr("reading a playbook version", err)
	}
	vs, lerr := st.ListPlaybookVersions(ctx, p.ID)
	if lerr != nil {
		return v, storeErr("listing playbook versions", lerr)
	}
	nums := make([]string, len(vs))
	for i, x := range vs {
		nums[i] = fmt.Sprint(x.Version)
	}
	return v, Errorf(CodeNotFound, "playbook %q has no version %d; its versions: %s", p.ID, n, knownList(nums)).
		WithDetail("field", "version")
}

// restoredFrom is cur with the content of a snapshot; id and creation time stay.
func restoredFrom(cur, snap Playbook) Playbook {
	next := cur
	next.Title, next.Body, next.Exec, next.Skill = snap.Title, snap.Body, snap.Exec, snap.Skill
	next.Triggers = orEmpty(slices.Clone(snap.Triggers))
	next.DependsOnCredentialIDs = orEmpty(slices.Clone(snap.DependsOnCredentialIDs))
	next.DependsOnServiceIDs = orEmpty(slices.Clone(snap.DependsOnServiceIDs))
	next.ExplicitCredentialIDs, next.ExplicitServiceIDs = explicitOf(snap)
	return next
}

// explicitOf returns a snapshot's explicit dependencies. Snapshots taken before they were
// recorded have none: like the rows migrated then, all their dependencies count as explicit.
func explicitOf(snap Playbook) (creds, svcs []string) {
	creds, svcs = snap.ExplicitCredentialIDs, snap.ExplicitServiceIDs
	if creds == nil && svcs == nil {
		creds, svcs = snap.DependsOnCredentialIDs, snap.DependsOnServiceIDs
	}
	return orEmpty(slices.Clone(creds)), orEmpty(slices.Clone(svcs))
}

// playbookWarnings reports trigger conflicts with the other playbooks on every deck holding p.
func playbookWarnings(ctx context.Context, st Store, p Playbook) ([]Warning, error) {
	out := []Warning{}
	decks, err := st.DecksLinking(ctx, CardPlaybook, p.ID)
	if err != nil || len(decks) == 0 {
		return out, storeErr("finding decks of a playbook", err)
	}
	all, err := st.ListPlaybooks(ctx)
	if err != nil {
		return nil, storeErr("listing playbooks", err)
	}
	byID := make(map[string]Playbook, len(all))
	for _, x := range all {
		byID[x.ID] = x
	}
	seen := map[string]bool{}
	for _, d := range decks {
		ids, err := linkedIDs(ctx, st, d.ID, CardPlaybook)
		if err != nil {
			return nil, err
		}
		var others []Playbook
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
