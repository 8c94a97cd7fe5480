package backend

import (
	"context"
	"slices"
)

func (im *importer) services(ctx context.Context) error {
	for i, bs := range im.b.Services {
		path := jidx("$.services", i)
		if id, ok := im.idx[CardService].match(bs.ID, bs.Name); ok {
			im.mapped(CardService, bs.ID, id)
			im.rep.Reused[reportServices] = append(im.rep.Reused[reportServices], im.idx[CardService].byID[id])
			continue
		}
		rec, err := im.serviceRecord(ctx, path, bs)
		if err != nil {
			return err
		}
		if err := im.svc.store.CreateService(ctx, &rec); err != nil {
			return atPath(nameConflict(err, "service", "name", rec.Name), path)
		}
		im.created(CardService, bs.ID, rec.ID, rec.Name)
	}
	return nil
}

// serviceRecord validates a bundle service with the core's own rules and builds its record.
// Secret headers and local env come back with empty values: the names are kept so the person
// knows what to fill in (ValuesNeeded).
func (im *importer) serviceRecord(ctx context.Context, path string, bs BundleService) (ServiceRecord, error) {
	in := ServiceInput{Name: bs.Name, Type: bs.Type, URL: bs.URL, Transport: bs.Transport,
		Description: bs.Description, LocalCommand: bs.LocalCommand, LocalArgs: bs.LocalArgs,
		LocalWorkingDir: bs.LocalWorkingDir, TimeoutSeconds: bs.TimeoutSeconds}
	if len(bs.Headers) > 0 || len(bs.SecretHeaders) > 0 {
		in.Headers = map[string]string{}
		for k, v := range bs.Headers {
			in.Headers[k] = v
		}
		for _, k := range bs.SecretHeaders {
			in.Headers[k] = ""
			im.rep.ValuesNeeded = append(im.rep.ValuesNeeded, "service "+bs.Name+": header "+k)
		}
	}
	if len(bs.LocalEnv) > 0 {
		in.LocalEnv = map[string]string{}
		for _, k := range bs.LocalEnv {
			in.LocalEnv[k] = ""
			im.rep.ValuesNeeded = append(im.rep.ValuesNeeded, "service "+bs.Name+": env "+k)
		}
	}
	credentialID := ""
	if bs.CredentialID != "" {
		if id, ok := im.resolve(CardCredential, bs.CredentialID); ok {
			credentialID = id
		} else {
			im.skip(reportServices, "%s: credential %s is neither in the bundle nor on this server; not linked",
				bs.Name, bs.CredentialID)
		}
	}
	id := bs.ID
	if _, taken := im.idx[CardService].byID[id]; taken || !isUUIDText(id) {
		var err error
		if id, err = newUUID(); err != nil {
			return ServiceRecord{}, err
		}
	}
	rec := ServiceRecord{ServiceCard: ServiceCard{ID: id}}
	if err := im.svc.buildService(ctx, in, &rec, true, true); err != nil {
		return rec, atPath(err, path)
	}
	rec.CredentialID = credentialID // resolved above, without a query per service
	rec.CreatedAt, rec.UpdatedAt = im.svc.clock(), im.svc.clock()
	rec.DisabledTools = append([]string{}, bs.DisabledTools...)
	rec.Health = Health{Status: HealthUnknown}
	return rec, nil
}

func (im *importer) playbooks(ctx context.Context) error {
	for i, bp := range im.b.Playbooks {
		path := jidx("$.playbooks", i)
		if id, ok := im.idx[CardPlaybook].match(bp.ID, bp.Title); ok {
			im.mapped(CardPlaybook, bp.ID, id)
			im.rep.Reused[reportPlaybooks] = append(im.rep.Reused[reportPlaybooks], im.idx[CardPlaybook].byID[id])
			continue
		}
		off := false
		p, err := newPlaybook(PlaybookInput{Title: bp.Title, Body: bp.Body, Triggers: bp.Triggers, ID: bp.ID,
			Exec: bp.Exec, Skill: bp.Skill, DependsOnCredentialIDs: bp.DependsOnCredentialIDs,
			DependsOnServiceIDs: bp.DependsOnServiceIDs, AutoDetectDependencies: &off})
		if err != nil {
			return atPath(err, path)
		}
		p.DependsOnCredentialIDs = im.remapDeps(CardCredential, bp.DependsOnCredentialIDs)
		p.DependsOnServiceIDs = im.remapDeps(CardService, bp.DependsOnServiceIDs)
		// A bundle does not say which dependencies were explicit: keep them all (see 0008).
		p.ExplicitCredentialIDs = slices.Clone(p.DependsOnCredentialIDs)
		p.ExplicitServiceIDs = slices.Clone(p.DependsOnServiceIDs)
		if p.ID, err = im.freeID(CardPlaybook, bp.ID, DerivePlaybookID(p.Title)); err != nil {
			return atPath(err, path)
		}
		p.CreatedAt, p.UpdatedAt = im.svc.clock(), im.svc.clock()
		if err := im.svc.store.CreatePlaybook(ctx, &p); err != nil {
			return atPath(nameConflict(err, "playbook", "title", p.Title), path)
		}
		im.created(CardPlaybook, bp.ID, p.ID, p.Title)
	}
	return nil
}

// remapDeps turns bundle dependency ids into server ids; ids that name no card are kept (and
// reported by the playbook reads), as for any playbook.
func (im *importer) remapDeps(t CardType, ids []string) []string {
	out := []string{}
	for _, id := range ids {
		if got, ok := im.resolve(t, id); ok {
			id = got
		}
		if !slices.Contains(out, id) {
			out = append(out, id)
		}
	}
	return out
}

// deckSteps creates the bundle's decks with their cards in order. A deck that exists by name (or
// id) is reused as it is: never relinked, so importing twice changes nothing.
func (im *importer) deckSteps(ctx context.Context) error {
	for i, bd := range im.b.Decks {
		path := jidx("$.decks", i)
		if id, ok := im.decks.match(bd.ID, bd.Name); ok {
			im.rep.Reused[reportDecks] = append(im.rep.Reused[reportDecks], im.decks.byID[id])
			if id != bd.ID && bd.ID != "" {
				im.rep.IDMap[bd.ID] = id
			}
			continue
		}
		if err := im.createDeck(ctx, path, bd); err != nil {
			return err
		}
	}
	return nil
}

func (im *importer) createDeck(ctx context.Context, path string, bd BundleDeck) error {
	name, err := cleanName("name", bd.Name)
	if err != nil {
		return atPath(err, path)
	}
	lists := map[CardType][]string{}
	for _, t := range CardTypes {
		for j, ref := range *bd.Cards.ids(t) {
			id, ok := im.resolve(t, ref)
			if !ok {
				return bundleError(jidx(jkey(jkey(path, "cards"), cardSection(t)), j),
					"%s %q is neither in the bundle nor on this server", t, clip(ref, 60)).
					WithHint("add the card to the bundle's " + cardSection(t) + " or remove it from the deck")
			}
			lists[t] = append(lists[t], id)
		}
	}
	d := Deck{ID: bd.ID, Name: name, CreatedAt: im.svc.clock(), UpdatedAt: im.svc.clock()}
	if !isUUIDText(d.ID) {
		if d.ID, err = newUUID(); err != nil {
			return err
		}
	}
	if err := im.svc.store.CreateDeck(ctx, &d); err != nil {
		return atPath(nameConflict(err, "deck", "name", name), path)
	}
	for _, t := range CardTypes {
		if len(lists[t]) == 0 {
			continue
		}
		if err := im.svc.store.ReplaceLinks(ctx, d.ID, t, lists[t]); err != nil {
			return atPath(storeErr("linking a deck's cards", err), path)
		}
	}
	if err := im.importDeckSettings(ctx, path, d, lists[CardService], bd); err != nil {
		return err
	}
	im.decks.add(d.ID, d.Name)
	if bd.ID != "" && bd.ID != d.ID {
		im.rep.IDMap[bd.ID] = d.ID
	}
	im.rep.Created[reportDecks] = append(im.rep.Created[reportDecks], d.Name)
	return nil
}

func (im *importer) report() ImportReport {
	if len(im.rep.IDMap) == 0 {
		im.rep.IDMap = nil
	}
	return im.rep
}
