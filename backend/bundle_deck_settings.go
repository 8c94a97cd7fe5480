package backend

import (
	"context"
	"slices"
)

// exportDeckSettings lists the rules of a deck's service links, and keeps the credentials they
// choose in a one-deck export.
func exportDeckSettings(links []CardLink, keep map[string]bool) []BundleDeckServiceSettings {
	var out []BundleDeckServiceSettings
	for _, l := range sortedLinks(links) {
		if l.CardType != CardService || l.Settings == nil || l.Settings.Empty() {
			continue
		}
		st := l.Settings
		out = append(out, BundleDeckServiceSettings{Service: l.CardID, AllowTools: st.AllowTools,
			DenyTools: st.DenyTools, CredentialID: st.CredentialID})
		if keep != nil && st.CredentialID != "" {
			keep[string(CardCredential)+"\x00"+st.CredentialID] = true
		}
	}
	return out
}

// importDeckSettings stores a new deck's rules; the service must be on the deck. A credential
// neither in the bundle nor on this server is skipped, and reported, as a service's is.
func (im *importer) importDeckSettings(ctx context.Context, path string, d Deck, services []string, bd BundleDeck) error {
	for i, bst := range bd.ServiceSettings {
		p := jidx(jkey(path, "service_settings"), i)
		id, ok := im.resolve(CardService, bst.Service)
		if !ok || !slices.Contains(services, id) {
			return bundleError(jkey(p, "service"), "service %q is not on the deck", clip(bst.Service, 60)).
				WithHint("list the service in the deck's cards.services, or drop its settings")
		}
		allow, err := cleanToolNames(jkey(p, "allow_tools"), bst.AllowTools)
		if err != nil {
			return err
		}
		deny, err := cleanToolNames(jkey(p, "deny_tools"), bst.DenyTools)
		if err != nil {
			return err
		}
		st := DeckServiceSettings{AllowTools: allow, DenyTools: deny}
		if bst.CredentialID != "" {
			if cid, ok := im.resolve(CardCredential, bst.CredentialID); ok {
				st.CredentialID = cid
			} else {
				im.skip(reportDecks, "%s: credential %s for service %s is neither in the bundle nor on this server; the service's own applies",
					d.Name, bst.CredentialID, bst.Service)
			}
		}
		if err := im.svc.store.SetDeckServiceSettings(ctx, d.ID, id, st); err != nil {
			return atPath(storeErr("saving a deck's service settings", err), p)
		}
	}
	return nil
}
