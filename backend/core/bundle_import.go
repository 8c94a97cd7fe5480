package core

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/agent-deck/agent-deck/backend"
	"github.com/agent-deck/agent-deck/backend/bundle"
)

// cardIndex finds existing cards of one type by id and by lower-cased name.
type cardIndex struct {
	byID   map[string]string // id → name
	byName map[string]string // lower(name) → id
}

func newCardIndex() *cardIndex {
	return &cardIndex{byID: map[string]string{}, byName: map[string]string{}}
}

func (x *cardIndex) add(id, name string) {
	x.byID[id] = name
	x.byName[strings.ToLower(strings.TrimSpace(name))] = id
}

// match returns the existing card a bundle entry stands for: same name first, then same id.
func (x *cardIndex) match(id, name string) (string, bool) {
	if got, ok := x.byName[strings.ToLower(strings.TrimSpace(name))]; ok {
		return got, true
	}
	if _, ok := x.byID[id]; ok && id != "" {
		return id, true
	}
	return "", false
}

// importer applies one bundle inside one transaction. svc is bound to that transaction.
type importer struct {
	svc     *Hub
	b       bundle.Bundle
	dryRun  bool
	idx     map[backend.CardType]*cardIndex
	decks   *cardIndex
	remap   map[backend.CardType]map[string]string // bundle id → id on this server
	noValue map[string]bool                        // credential ids without a secret
	rep     ImportReport
}

func newImporter(svc *Hub, b bundle.Bundle, dryRun bool) *importer {
	im := &importer{svc: svc, b: b, dryRun: dryRun, decks: newCardIndex(),
		idx: map[backend.CardType]*cardIndex{}, remap: map[backend.CardType]map[string]string{}, noValue: map[string]bool{},
		rep: ImportReport{DryRun: dryRun, Created: map[string][]string{}, Reused: map[string][]string{},
			Skipped: map[string][]string{}, CredentialsNeedSecret: []string{}, ValuesNeeded: []string{},
			IDMap: map[string]string{}}}
	for _, t := range backend.CardTypes {
		im.idx[t], im.remap[t] = newCardIndex(), map[string]string{}
	}
	return im
}

func (im *importer) run(ctx context.Context) error {
	if err := im.load(ctx); err != nil {
		return err
	}
	steps := []func(context.Context) error{im.credentials, im.services, im.playbooks, im.deckSteps}
	for _, step := range steps {
		if err := step(ctx); err != nil {
			return err
		}
	}
	return nil
}

// load indexes what the server already has, in four queries.
func (im *importer) load(ctx context.Context) error {
	st := im.svc.store
	creds, err := st.ListCredentials(ctx)
	if err != nil {
		return backend.StoreErr("listing credentials", err)
	}
	for _, c := range creds {
		im.idx[backend.CardCredential].add(c.ID, c.Label)
		if len(c.SealedSecret) == 0 {
			im.noValue[c.ID] = true
		}
	}
	svcs, err := st.ListServices(ctx)
	if err != nil {
		return backend.StoreErr("listing services", err)
	}
	for _, sv := range svcs {
		im.idx[backend.CardService].add(sv.ID, sv.Name)
	}
	pbs, err := st.ListPlaybooks(ctx)
	if err != nil {
		return backend.StoreErr("listing playbooks", err)
	}
	for _, p := range pbs {
		im.idx[backend.CardPlaybook].add(p.ID, p.Title)
	}
	decks, err := st.ListDecks(ctx)
	if err != nil {
		return backend.StoreErr("listing decks", err)
	}
	for _, d := range decks {
		im.decks.add(d.ID, d.Name)
	}
	return nil
}

// mapped records where a bundle id went.
func (im *importer) mapped(t backend.CardType, bundleID, id string) {
	if bundleID != "" {
		im.remap[t][bundleID] = id
		if bundleID != id {
			im.rep.IDMap[bundleID] = id
		}
	}
}

func (im *importer) credentials(ctx context.Context) error {
	var recs []*backend.CredentialRecord
	var from []int // the bundle index of each record
	for i, bc := range im.b.Credentials {
		path := bundle.Index("$.credentials", i)
		if id, ok := im.idx[backend.CardCredential].match(bc.ID, bc.Label); ok {
			im.mapped(backend.CardCredential, bc.ID, id)
			im.rep.Reused[bundle.SectionCredentials] = append(im.rep.Reused[bundle.SectionCredentials], im.idx[backend.CardCredential].byID[id])
			im.needSecret(id)
			continue
		}
		rec, err := newCredentialRecord(CredentialInput{Label: bc.Label, Scheme: bc.Scheme, HeaderName: bc.HeaderName,
			EnvName: bc.EnvName, ID: bc.ID, Tags: bc.Tags, DocsURL: bc.DocsURL})
		if err != nil {
			return bundle.AtPath(err, path)
		}
		if rec.ID, err = im.freeID(backend.CardCredential, bc.ID, backend.DeriveCredentialID(rec.Label)); err != nil {
			return bundle.AtPath(err, path)
		}
		rec.CreatedAt, rec.UpdatedAt = im.svc.clock(), im.svc.clock()
		im.idx[backend.CardCredential].add(rec.ID, rec.Label)
		recs, from = append(recs, &rec), append(from, i)
	}
	if err := im.svc.store.CreateCredentials(ctx, recs); err != nil {
		i := batchIndex(err)
		return bundle.AtPath(backend.NameConflict(err, "credential", "label", recs[i].Label), bundle.Index("$.credentials", from[i]))
	}
	for j, rec := range recs {
		im.created(backend.CardCredential, im.b.Credentials[from[j]].ID, rec.ID, rec.Label)
		im.noValue[rec.ID] = true
		im.needSecret(rec.ID)
	}
	return nil
}

func (im *importer) needSecret(id string) {
	if im.noValue[id] && !slices.Contains(im.rep.CredentialsNeedSecret, id) {
		im.rep.CredentialsNeedSecret = append(im.rep.CredentialsNeedSecret, id)
	}
}

func (im *importer) created(t backend.CardType, bundleID, id, name string) {
	im.idx[t].add(id, name)
	im.mapped(t, bundleID, id)
	im.rep.Created[bundle.CardSection(t)] = append(im.rep.Created[bundle.CardSection(t)], name)
}

// freeID keeps the bundle's id when it is free, else derives one (credentials, playbooks).
func (im *importer) freeID(t backend.CardType, want, derived string) (string, error) {
	taken := func(id string) (bool, error) { _, ok := im.idx[t].byID[id]; return ok, nil }
	if want != "" {
		if ok, _ := taken(want); !ok {
			return want, nil
		}
	}
	return pickID(context.Background(), "", derived, "id", taken)
}

// resolve maps a bundle card id to a card on this server: one the bundle brought, or one that
// already exists with that id.
func (im *importer) resolve(t backend.CardType, id string) (string, bool) {
	if got, ok := im.remap[t][id]; ok {
		return got, true
	}
	if _, ok := im.idx[t].byID[id]; ok {
		return id, true
	}
	return "", false
}

func (im *importer) skip(section, format string, args ...any) {
	im.rep.Skipped[section] = append(im.rep.Skipped[section], fmt.Sprintf(format, args...))
}
