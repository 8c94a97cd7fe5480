package backend

import (
	"context"
	"slices"
)

// BundleDeckServiceSettings is a deck's rules for one service it links (deck_service_settings.go),
// as a bundle carries them: the service and credential by their bundle ids.
type BundleDeckServiceSettings struct {
	Service      string   `json:"service"`
	AllowTools   []string `json:"allow_tools,omitempty"`
	DenyTools    []string `json:"deny_tools,omitempty"`
	CredentialID string   `json:"credential_id,omitempty"`
}

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

func parseDeckSettings(path string, v any) (BundleDeckServiceSettings, error) {
	m, err := jobj(path, v, "service", "allow_tools", "deny_tools", "credential_id")
	if err != nil {
		return BundleDeckServiceSettings{}, err
	}
	var st BundleDeckServiceSettings
	if st.Service, err = jstr(path, m, "service", true); err != nil {
		return st, err
	}
	if st.AllowTools, err = jstrs(path, m, "allow_tools"); err != nil {
		return st, err
	}
	if st.DenyTools, err = jstrs(path, m, "deny_tools"); err != nil {
		return st, err
	}
	if st.CredentialID, err = jstr(path, m, "credential_id", false); err != nil {
		return st, err
	}
	if len(st.AllowTools) > 0 && len(st.DenyTools) > 0 {
		return st, bundleError(path, "allow_tools and deny_tools cannot both be set")
	}
	return st, nil
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
