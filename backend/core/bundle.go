package core

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"log/slog"
	"slices"
	"strings"
	"time"

	"github.com/agent-deck/agent-deck/backend"
	"github.com/agent-deck/agent-deck/backend/bundle"
)

// ExportInput selects what to export: one deck (id or name) with exactly what it links, or the
// whole collection when Deck is empty.
type ExportInput struct {
	Deck string `json:"deck,omitempty"`
}

// ImportReport says what an import did (or would do, on a dry run). Created and Reused list
// names per section (services, credentials, playbooks, decks); Skipped lists references that
// could not be kept, with the reason; ValuesNeeded names secret header and local env values the
// bundle could not carry.
type ImportReport struct {
	DryRun                bool                `json:"dry_run"`
	Created               map[string][]string `json:"created"`
	Reused                map[string][]string `json:"reused"`
	Skipped               map[string][]string `json:"skipped"`
	CredentialsNeedSecret []string            `json:"credentials_needing_secret"`
	ValuesNeeded          []string            `json:"values_needed"`
	IDMap                 map[string]string   `json:"id_map,omitempty"`
}

// Export returns the bundle (SPEC §8) as JSON. Admin only.
func (s *Hub) Export(ctx context.Context, in ExportInput) (json.RawMessage, error) {
	if _, err := backend.RequireAdmin(ctx, "export bundles"); err != nil {
		return nil, err
	}
	now := s.clock().UTC().Truncate(time.Second)
	b := bundle.Bundle{Format: bundle.Format, Version: bundle.Version, ExportedAt: &now}
	err := s.store.Transact(ctx, func(tx backend.Store) error {
		ex := &exporter{store: tx, secrets: &s.secrets, log: s.log, hub: s}
		return ex.collectBundle(ctx, strings.TrimSpace(in.Deck), &b)
	})
	if err != nil {
		return nil, err
	}
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	if err := enc.Encode(b); err != nil {
		return nil, backend.Internal("encoding the bundle", err)
	}
	return json.RawMessage(bytes.TrimRight(buf.Bytes(), "\n")), nil
}

// exporter reads a bundle out of one transaction's store.
type exporter struct {
	store   backend.Store
	secrets *sealing
	log     *slog.Logger
	hub     *Hub
}

// collectBundle fills b from the store: everything, or one deck and the cards it links.
func (s *exporter) collectBundle(ctx context.Context, deckRef string, b *bundle.Bundle) error {
	decks, err := s.exportDecks(ctx, deckRef)
	if err != nil {
		return err
	}
	var keep map[string]bool // nil = everything
	if deckRef != "" {
		keep = map[string]bool{}
	}
	for _, d := range decks {
		bd := bundle.Deck{ID: d.ID, Name: d.Name, Cards: bundle.DeckCards{Services: []string{},
			Credentials: []string{}, Playbooks: []string{}}}
		links, err := s.store.ListLinks(ctx, d.ID)
		if err != nil {
			return backend.StoreErr("reading a deck's cards", err)
		}
		for _, l := range sortedLinks(links) {
			ids := bd.Cards.IDs(l.CardType)
			*ids = append(*ids, l.CardID)
			if keep != nil {
				keep[string(l.CardType)+"\x00"+l.CardID] = true
			}
		}
		sampling, err := s.store.ListSamplingServices(ctx, d.ID)
		if err != nil {
			return backend.StoreErr("reading a deck's sampling grants", err)
		}
		bd.ServiceSettings = exportDeckSettings(links, sampling, keep)
		b.Decks = append(b.Decks, bd)
	}
	kept := func(t backend.CardType, id string) bool { return keep == nil || keep[string(t)+"\x00"+id] }
	if err := s.exportCredentials(ctx, b, kept); err != nil {
		return err
	}
	if err := s.exportServices(ctx, b, kept); err != nil {
		return err
	}
	return s.exportPlaybooks(ctx, b, kept)
}

func (s *exporter) exportDecks(ctx context.Context, ref string) ([]backend.Deck, error) {
	if ref != "" {
		d, err := s.hub.deckByRef(ctx, s.store, ref)
		return []backend.Deck{d}, err
	}
	decks, err := s.store.ListDecks(ctx)
	if err != nil {
		return nil, backend.StoreErr("listing decks", err)
	}
	slices.SortFunc(decks, func(a, b backend.Deck) int { return byName(a.Name, a.ID, b.Name, b.ID) })
	return decks, nil
}

// byName orders by case-insensitive name, then id, so exports are stable.
func byName(an, aid, bn, bid string) int {
	if c := strings.Compare(strings.ToLower(an), strings.ToLower(bn)); c != 0 {
		return c
	}
	return strings.Compare(aid, bid)
}

func (s *exporter) exportCredentials(ctx context.Context, b *bundle.Bundle, kept func(backend.CardType, string) bool) error {
	recs, err := s.store.ListCredentials(ctx)
	if err != nil {
		return backend.StoreErr("listing credentials", err)
	}
	b.Credentials = []bundle.Credential{}
	for _, r := range recs {
		if kept(backend.CardCredential, r.ID) {
			b.Credentials = append(b.Credentials, bundle.Credential{ID: r.ID, Label: r.Label, Scheme: r.Scheme,
				HeaderName: r.HeaderName, EnvName: r.EnvName, Tags: r.Tags, DocsURL: r.DocsURL})
		}
	}
	slices.SortFunc(b.Credentials, func(x, y bundle.Credential) int { return byName(x.Label, x.ID, y.Label, y.ID) })
	return nil
}

func (s *exporter) exportServices(ctx context.Context, b *bundle.Bundle, kept func(backend.CardType, string) bool) error {
	recs, err := s.store.ListServices(ctx)
	if err != nil {
		return backend.StoreErr("listing services", err)
	}
	b.Services = []bundle.Service{}
	for _, r := range recs {
		if !kept(backend.CardService, r.ID) {
			continue
		}
		bs := bundle.Service{ID: r.ID, Name: r.Name, Type: r.Type, URL: r.URL, Description: r.Description,
			CredentialID: r.CredentialID, LocalCommand: r.LocalCommand, LocalArgs: r.LocalArgs,
			LocalWorkingDir: r.LocalWorkingDir, DisabledTools: r.DisabledTools, TimeoutSeconds: r.TimeoutSeconds}
		if r.Type == backend.ServiceRemote {
			bs.Transport = r.Transport
		}
		if len(r.PlainHeaders) > 0 {
			bs.Headers = r.PlainHeaders
		}
		if !r.PinTools {
			off := false
			bs.PinTools = &off
		}
		bs.ToolOverrides = r.ToolOverrides
		if r.PinTools && r.ToolsPinnedAt != nil {
			pins, err := s.store.ToolPins(ctx, r.ID)
			if err != nil {
				return backend.StoreErr("reading tool pins", err)
			}
			for _, p := range pins {
				bs.Pins = append(bs.Pins, bundle.Pin{Tool: p.ToolName, Hash: p.Hash, Definition: p.Definition,
					ApprovedAt: p.ApprovedAt.UTC(), ApprovedBy: p.ApprovedBy})
			}
		}
		bs.SecretHeaders = s.sealedNames(backend.FieldServiceHeaders, r.ID, r.SealedHeaders)
		bs.LocalEnv = s.sealedNames(backend.FieldServiceEnv, r.ID, r.SealedEnv)
		b.Services = append(b.Services, bs)
	}
	slices.SortFunc(b.Services, func(x, y bundle.Service) int { return byName(x.Name, x.ID, y.Name, y.ID) })
	return nil
}

// sealedNames returns the sorted names of a sealed map, never its values.
func (s *exporter) sealedNames(f backend.SealedField, serviceID string, sealed []byte) []string {
	m, err := s.secrets.openMap(f, serviceID, sealed)
	if err != nil {
		s.log.Warn("export: sealed names unreadable", "service_id", serviceID, "error", backend.ErrorCode(err))
		return nil
	}
	if len(m) == 0 {
		return nil
	}
	return sortedKeys(m)
}

func (s *exporter) exportPlaybooks(ctx context.Context, b *bundle.Bundle, kept func(backend.CardType, string) bool) error {
	list, err := s.store.ListPlaybooks(ctx)
	if err != nil {
		return backend.StoreErr("listing playbooks", err)
	}
	b.Playbooks = []bundle.Playbook{}
	for _, p := range list {
		if kept(backend.CardPlaybook, p.ID) {
			b.Playbooks = append(b.Playbooks, bundle.Playbook{ID: p.ID, Title: p.Title, Body: p.Body,
				Triggers: p.Triggers, Exec: p.Exec, Skill: p.Skill,
				DependsOnCredentialIDs: p.DependsOnCredentialIDs, DependsOnServiceIDs: p.DependsOnServiceIDs})
		}
	}
	slices.SortFunc(b.Playbooks, func(x, y bundle.Playbook) int { return byName(x.Title, x.ID, y.Title, y.ID) })
	return nil
}

// errDryRun rolls back a dry-run import after all of its work was done.
var errDryRun = errors.New("dry run")

// Import applies a bundle in one transaction, all or nothing. Admin only. A dry run does the
// same work in a transaction that is rolled back, so its report is the real run's report.
func (s *Hub) Import(ctx context.Context, raw json.RawMessage, dryRun bool) (ImportReport, error) {
	if _, err := backend.RequireAdmin(ctx, "import bundles"); err != nil {
		return ImportReport{}, err
	}
	b, err := bundle.Parse(raw)
	if err != nil {
		return ImportReport{}, err
	}
	if err := bundle.CheckUnique(b); err != nil {
		return ImportReport{}, err
	}
	rep, err := backend.Transact(ctx, s.store, func(tx backend.Store) (ImportReport, error) {
		im := newImporter(s.withStore(tx), b, dryRun)
		if err := im.run(ctx); err != nil {
			return ImportReport{}, err
		}
		if dryRun {
			return im.report(), errDryRun // rolls the import back
		}
		return im.report(), nil
	})
	if err != nil && !errors.Is(err, errDryRun) {
		return ImportReport{}, err
	}
	return rep, nil
}
