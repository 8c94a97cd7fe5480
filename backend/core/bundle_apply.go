package core

import (
	"context"
	"encoding/json"
	"errors"
	"slices"

	"github.com/agent-deck/agent-deck/backend"
	"github.com/agent-deck/agent-deck/backend/bundle"
)

func (im *importer) services(ctx context.Context) error {
	var recs []*backend.ServiceRecord
	var from []int // the bundle index of each record
	var pinsOf [][]backend.ToolPin
	for i, bs := range im.b.Services {
		path := bundle.Index("$.services", i)
		if id, ok := im.idx[backend.CardService].match(bs.ID, bs.Name); ok {
			im.mapped(backend.CardService, bs.ID, id)
			im.rep.Reused[bundle.SectionServices] = append(im.rep.Reused[bundle.SectionServices], im.idx[backend.CardService].byID[id])
			continue
		}
		rec, err := im.serviceRecord(ctx, path, bs)
		if err != nil {
			return err
		}
		pins, err := bundlePins(rec.ID, bs.Pins, path)
		if err != nil {
			return err
		}
		// Reserved now, so a later card of the bundle with the same name or id is refused here.
		im.idx[backend.CardService].add(rec.ID, rec.Name)
		recs, from, pinsOf = append(recs, &rec), append(from, i), append(pinsOf, pins)
	}
	if err := im.svc.store.CreateServices(ctx, recs); err != nil {
		i := batchIndex(err)
		return bundle.AtPath(backend.NameConflict(err, "service", "name", recs[i].Name), bundle.Index("$.services", from[i]))
	}
	for j, rec := range recs {
		if pins := pinsOf[j]; len(pins) > 0 && rec.PinTools {
			for k := range pins {
				pins[k].ServiceID = rec.ID
			}
			if err := im.svc.store.ApproveToolPins(ctx, rec.ID, pins); err != nil {
				return bundle.AtPath(backend.StoreErr("importing tool pins", err), bundle.Index("$.services", from[j]))
			}
		}
		im.created(backend.CardService, im.b.Services[from[j]].ID, rec.ID, rec.Name)
	}
	return nil
}

// batchIndex is the index of the write a batch failed on (0 for any other error).
func batchIndex(err error) int {
	if be, ok := errors.AsType[*backend.BatchError](err); ok {
		return be.Index
	}
	return 0
}

// serviceRecord validates a bundle service with the core's own rules and builds its record.
// Secret headers and local env come back with empty values: the names are kept so the person
// knows what to fill in (ValuesNeeded).
func (im *importer) serviceRecord(ctx context.Context, path string, bs bundle.Service) (backend.ServiceRecord, error) {
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
		if id, ok := im.resolve(backend.CardCredential, bs.CredentialID); ok {
			credentialID = id
		} else {
			im.skip(bundle.SectionServices, "%s: credential %s is neither in the bundle nor on this server; not linked",
				bs.Name, bs.CredentialID)
		}
	}
	id := bs.ID
	if _, taken := im.idx[backend.CardService].byID[id]; taken || !backend.IsUUIDText(id) {
		var err error
		if id, err = backend.NewUUID(); err != nil {
			return backend.ServiceRecord{}, err
		}
	}
	rec := backend.ServiceRecord{ServiceCard: backend.ServiceCard{ID: id}}
	if err := im.svc.buildService(ctx, in, &rec, true, true); err != nil {
		return rec, bundle.AtPath(err, path)
	}
	rec.CredentialID = credentialID // resolved above, without a query per service
	rec.CreatedAt, rec.UpdatedAt = im.svc.clock(), im.svc.clock()
	rec.DisabledTools = append([]string{}, bs.DisabledTools...)
	rec.PinTools = bs.PinTools == nil || *bs.PinTools
	for tool, o := range bs.ToolOverrides {
		for field, v := range map[string]*string{"title": o.Title, "description": o.Description} {
			if v != nil && (len(*v) > maxOverrideChars || !validText(*v)) {
				return rec, bundle.AtPath(backend.Invalid(field, "tool %q: expected text of at most %d characters, without control characters",
					backend.Clip(tool, 60), maxOverrideChars), path)
			}
		}
		if !o.Empty() {
			if rec.ToolOverrides == nil {
				rec.ToolOverrides = map[string]backend.ToolOverride{}
			}
			rec.ToolOverrides[tool] = o
		}
	}
	rec.Health = backend.Health{Status: backend.HealthUnknown}
	return rec, nil
}

func (im *importer) playbooks(ctx context.Context) error {
	var pbs []*backend.Playbook
	var from []int // the bundle index of each playbook
	for i, bp := range im.b.Playbooks {
		path := bundle.Index("$.playbooks", i)
		if id, ok := im.idx[backend.CardPlaybook].match(bp.ID, bp.Title); ok {
			im.mapped(backend.CardPlaybook, bp.ID, id)
			im.rep.Reused[bundle.SectionPlaybooks] = append(im.rep.Reused[bundle.SectionPlaybooks], im.idx[backend.CardPlaybook].byID[id])
			continue
		}
		off := false
		p, err := newPlaybook(backend.PlaybookInput{Title: bp.Title, Body: bp.Body, Triggers: bp.Triggers, ID: bp.ID,
			Exec: bp.Exec, Skill: bp.Skill, DependsOnCredentialIDs: bp.DependsOnCredentialIDs,
			DependsOnServiceIDs: bp.DependsOnServiceIDs, AutoDetectDependencies: &off})
		if err != nil {
			return bundle.AtPath(err, path)
		}
		p.DependsOnCredentialIDs = im.remapDeps(backend.CardCredential, bp.DependsOnCredentialIDs)
		p.DependsOnServiceIDs = im.remapDeps(backend.CardService, bp.DependsOnServiceIDs)
		// A bundle does not say which dependencies were explicit: keep them all (see 0008).
		p.ExplicitCredentialIDs = slices.Clone(p.DependsOnCredentialIDs)
		p.ExplicitServiceIDs = slices.Clone(p.DependsOnServiceIDs)
		if p.ID, err = im.freeID(backend.CardPlaybook, bp.ID, backend.DerivePlaybookID(p.Title)); err != nil {
			return bundle.AtPath(err, path)
		}
		maskPlaybook(im.svc.heldMask(), &p)
		p.CreatedAt, p.UpdatedAt = im.svc.clock(), im.svc.clock()
		im.idx[backend.CardPlaybook].add(p.ID, p.Title)
		pbs, from = append(pbs, &p), append(from, i)
	}
	if err := im.svc.store.CreatePlaybooks(ctx, pbs); err != nil {
		i := batchIndex(err)
		return bundle.AtPath(backend.NameConflict(err, "playbook", "title", pbs[i].Title), bundle.Index("$.playbooks", from[i]))
	}
	for j, p := range pbs {
		im.created(backend.CardPlaybook, im.b.Playbooks[from[j]].ID, p.ID, p.Title)
	}
	return nil
}

// remapDeps turns bundle dependency ids into server ids; ids that name no card are kept (and
// reported by the playbook reads), as for any playbook.
func (im *importer) remapDeps(t backend.CardType, ids []string) []string {
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
		path := bundle.Index("$.decks", i)
		if id, ok := im.decks.match(bd.ID, bd.Name); ok {
			im.rep.Reused[bundle.SectionDecks] = append(im.rep.Reused[bundle.SectionDecks], im.decks.byID[id])
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

func (im *importer) createDeck(ctx context.Context, path string, bd bundle.Deck) error {
	name, err := backend.CleanName("name", bd.Name)
	if err != nil {
		return bundle.AtPath(err, path)
	}
	lists := map[backend.CardType][]string{}
	for _, t := range backend.CardTypes {
		for j, ref := range *bd.Cards.IDs(t) {
			id, ok := im.resolve(t, ref)
			if !ok {
				return bundle.PathError(bundle.Index(bundle.Key(bundle.Key(path, "cards"), bundle.CardSection(t)), j),
					"%s %q is neither in the bundle nor on this server", t, backend.Clip(ref, 60)).
					WithHint("add the card to the bundle's " + bundle.CardSection(t) + " or remove it from the deck")
			}
			lists[t] = append(lists[t], id)
		}
	}
	d := backend.Deck{ID: bd.ID, Name: name, CreatedAt: im.svc.clock(), UpdatedAt: im.svc.clock()}
	if !backend.IsUUIDText(d.ID) {
		if d.ID, err = backend.NewUUID(); err != nil {
			return err
		}
	}
	if err := im.svc.store.CreateDeck(ctx, &d); err != nil {
		return bundle.AtPath(backend.NameConflict(err, "deck", "name", name), path)
	}
	for _, t := range backend.CardTypes {
		if len(lists[t]) == 0 {
			continue
		}
		if err := im.svc.store.ReplaceLinks(ctx, d.ID, t, lists[t]); err != nil {
			return bundle.AtPath(backend.StoreErr("linking a deck's cards", err), path)
		}
	}
	if err := im.importDeckSettings(ctx, path, d, lists[backend.CardService], bd); err != nil {
		return err
	}
	im.decks.add(d.ID, d.Name)
	if bd.ID != "" && bd.ID != d.ID {
		im.rep.IDMap[bd.ID] = d.ID
	}
	im.rep.Created[bundle.SectionDecks] = append(im.rep.Created[bundle.SectionDecks], d.Name)
	return nil
}

func (im *importer) report() ImportReport {
	if len(im.rep.IDMap) == 0 {
		im.rep.IDMap = nil
	}
	return im.rep
}

// bundlePins checks a bundle service's pins: each hash must be the hash of its definition, so a
// bundle cannot pin one text while showing another.
func bundlePins(serviceID string, in []bundle.Pin, path string) ([]backend.ToolPin, error) {
	out := make([]backend.ToolPin, 0, len(in))
	for i, p := range in {
		canon, hash := canonicalTool(p.Definition)
		var named struct {
			Name string `json:"name"`
		}
		_ = json.Unmarshal(canon, &named)
		if p.Tool == "" || named.Name != p.Tool || hash != p.Hash {
			return nil, bundle.AtPath(backend.Invalid("pins", "pin %d (%q): its hash and name must be those of its definition", i,
				backend.Clip(p.Tool, 60)), path)
		}
		out = append(out, backend.ToolPin{ServiceID: serviceID, ToolName: p.Tool, Hash: hash, Definition: canon,
			ApprovedAt: p.ApprovedAt, ApprovedBy: p.ApprovedBy})
	}
	return out, nil
}
