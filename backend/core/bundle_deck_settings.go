package core

import (
	"context"
	"slices"

	"github.com/agent-deck/agent-deck/backend"
	"github.com/agent-deck/agent-deck/backend/bundle"
)

// exportDeckSettings lists the rules of a deck's service links and their sampling grants, and
// keeps the credentials they choose in a one-deck export.
func exportDeckSettings(links []backend.CardLink, sampling []string, keep map[string]bool) []bundle.DeckServiceSettings {
	var out []bundle.DeckServiceSettings
	for _, l := range sortedLinks(links) {
		samples := slices.Contains(sampling, l.CardID)
		if l.CardType != backend.CardService || (l.Settings == nil || l.Settings.Empty()) && !samples {
			continue
		}
		st := l.Settings
		if st == nil {
			st = &backend.DeckServiceSettings{}
		}
		out = append(out, bundle.DeckServiceSettings{Service: l.CardID, AllowTools: st.AllowTools,
			DenyTools: st.DenyTools, CredentialID: st.CredentialID, SamplingAllowed: samples})
		if keep != nil && st.CredentialID != "" {
			keep[string(backend.CardCredential)+"\x00"+st.CredentialID] = true
		}
	}
	return out
}

// importDeckSettings stores a new deck's rules; the service must be on the deck. A credential
// neither in the bundle nor on this server is skipped, and reported, as a service's is.
func (im *importer) importDeckSettings(ctx context.Context, path string, d backend.Deck, services []string, bd bundle.Deck) error {
	for i, bst := range bd.ServiceSettings {
		p := bundle.Index(bundle.Key(path, "service_settings"), i)
		id, ok := im.resolve(backend.CardService, bst.Service)
		if !ok || !slices.Contains(services, id) {
			return bundle.PathError(bundle.Key(p, "service"), "service %q is not on the deck", backend.Clip(bst.Service, 60)).
				WithHint("list the service in the deck's cards.services, or drop its settings")
		}
		allow, err := cleanToolNames(bundle.Key(p, "allow_tools"), bst.AllowTools)
		if err != nil {
			return err
		}
		deny, err := cleanToolNames(bundle.Key(p, "deny_tools"), bst.DenyTools)
		if err != nil {
			return err
		}
		st := backend.DeckServiceSettings{AllowTools: allow, DenyTools: deny}
		if bst.CredentialID != "" {
			if cid, ok := im.resolve(backend.CardCredential, bst.CredentialID); ok {
				st.CredentialID = cid
			} else {
				im.skip(bundle.SectionDecks, "%s: credential %s for service %s is neither in the bundle nor on this server; the service's own applies",
					d.Name, bst.CredentialID, bst.Service)
			}
		}
		if err := im.svc.store.SetDeckServiceSettings(ctx, d.ID, id, st); err != nil {
			return bundle.AtPath(backend.StoreErr("saving a deck's service settings", err), p)
		}
		if bst.SamplingAllowed {
			if err := im.svc.store.SetSamplingAllowed(ctx, d.ID, id, true); err != nil {
				return bundle.AtPath(backend.StoreErr("allowing sampling", err), p)
			}
		}
	}
	return nil
}
