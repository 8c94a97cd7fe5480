package core

import (
	"context"
	"sort"

	"github.com/agent-deck/agent-deck/backend"
)

// snapshot assembles a deck's cards in link order, loaded in one round trip (Store.LinkedCards)
// or taken from this replica's cache.
func (s *Hub) snapshot(ctx context.Context, d backend.Deck) (DeckSnapshot, error) {
	v, err := s.deckViews(ctx, d)
	if err != nil {
		return DeckSnapshot{}, err
	}
	return DeckSnapshot{Deck: d, Services: v.services(s), Credentials: v.credentials, Playbooks: v.playbooks}, nil
}

// deckService is a service as a deck shows it: live health when the proxy knows better than the
// store, and tool counts from the cached tool list (null when never fetched), both after the
// deck's own rules (its tool subset and its credential choice).
func (s *Hub) deckService(r *backend.ServiceRecord) DeckService {
	ds := DeckService{
		ID: r.ID, Name: r.Name, Type: r.Type, Description: r.Description, URL: maskedURL(*r),
		CredentialID: r.CredentialID, Health: r.Health,
	}
	if r.DeckSettings != nil && r.DeckSettings.CredentialID != "" {
		ds.CredentialID = r.DeckSettings.CredentialID
	}
	if s.downstream != nil {
		if st, ok := s.downstream.Status(r.ID); ok {
			ds.Health = mergeHealth(r.Health, st.Health)
			if st.Tools != nil {
				on, off := toolCounts(st.Tools, r.DisabledTools, r.DeckSettings)
				ds.EnabledToolCount, ds.DisabledToolCount = &on, &off
			}
		}
	}
	ds.Auth = s.oauth.word(r.ID)
	if ds.Health.Status == "" {
		ds.Health.Status = backend.HealthUnknown
	}
	return ds
}

func toolCounts(tools []backend.DownstreamTool, disabled []string, deck *backend.DeckServiceSettings) (enabled, off int) {
	isOff := make(map[string]bool, len(disabled))
	for _, d := range disabled {
		isOff[d] = true
	}
	for _, t := range tools {
		if isOff[t.Name] || !deck.Allows(t.Name) {
			off++
		} else {
			enabled++
		}
	}
	return enabled, off
}

// mergeHealth prefers the more recently checked of the stored and live health.
func mergeHealth(stored, live backend.Health) backend.Health {
	if live.Status == "" || (live.Status == backend.HealthUnknown && live.LastCheckedAt == nil) {
		if live.Stderr != "" {
			stored.Stderr = live.Stderr
		}
		return stored
	}
	if stored.Status == "" || stored.LastCheckedAt == nil || live.LastCheckedAt == nil ||
		!live.LastCheckedAt.Before(*stored.LastCheckedAt) {
		if live.LastSuccessAt == nil {
			live.LastSuccessAt = stored.LastSuccessAt
		}
		return live
	}
	if live.Stderr != "" {
		stored.Stderr = live.Stderr
	}
	return stored
}

// sortedLinks orders links by position (stable), as a deck shows them.
func sortedLinks(links []backend.CardLink) []backend.CardLink {
	sort.SliceStable(links, func(i, j int) bool { return links[i].Position < links[j].Position })
	return links
}
