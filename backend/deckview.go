package backend

import (
	"context"
	"sort"
)

// snapshot assembles a deck's cards in link order. With a Store that loads linked cards in one
// round trip (LinkedCardsLoader) that is all it costs; otherwise it lists the links and each card
// type the deck holds. Links to cards that vanished concurrently are skipped.
func (s *Service) snapshot(ctx context.Context, d Deck) (DeckSnapshot, error) {
	v, err := s.deckViews(ctx, d)
	if err != nil {
		return DeckSnapshot{}, err
	}
	return DeckSnapshot{Deck: d, Services: v.services(s), Credentials: v.credentials, Playbooks: v.playbooks}, nil
}

// linkedCardsByLists is LinkedCards for a Store without the one-round-trip loader.
func linkedCardsByLists(ctx context.Context, st Store, deckID string) (LinkedCards, error) {
	links, err := st.ListLinks(ctx, deckID)
	if err != nil {
		return LinkedCards{}, storeErr("listing deck cards", err)
	}
	sort.SliceStable(links, func(i, j int) bool { return links[i].Position < links[j].Position })
	ids := map[CardType][]string{}
	for _, l := range links {
		ids[l.CardType] = append(ids[l.CardType], l.CardID)
	}
	var out LinkedCards
	if len(ids[CardService]) > 0 {
		all, err := st.ListServices(ctx)
		if err != nil {
			return LinkedCards{}, storeErr("listing services", err)
		}
		out.Services = inLinkOrder(all, ids[CardService], func(r ServiceRecord) string { return r.ID })
	}
	if len(ids[CardCredential]) > 0 {
		all, err := st.ListCredentials(ctx)
		if err != nil {
			return LinkedCards{}, storeErr("listing credentials", err)
		}
		out.Credentials = inLinkOrder(all, ids[CardCredential], func(r CredentialRecord) string { return r.ID })
	}
	if len(ids[CardPlaybook]) > 0 {
		all, err := st.ListPlaybooks(ctx)
		if err != nil {
			return LinkedCards{}, storeErr("listing playbooks", err)
		}
		out.Playbooks = inLinkOrder(all, ids[CardPlaybook], func(p Playbook) string { return p.ID })
	}
	return out, nil
}

// inLinkOrder picks the linked items out of all, in the order of ids.
func inLinkOrder[T any](all []T, ids []string, id func(T) string) []T {
	byID := make(map[string]int, len(all))
	for i, x := range all {
		byID[id(x)] = i
	}
	out := make([]T, 0, len(ids))
	for _, want := range ids {
		if i, ok := byID[want]; ok {
			out = append(out, all[i])
		}
	}
	return out
}

// deckService is a service as a deck shows it: live health when the proxy knows better than the
// store, and tool counts from the cached tool list (null when never fetched).
func (s *Service) deckService(r *ServiceRecord) DeckService {
	ds := DeckService{
		ID: r.ID, Name: r.Name, Type: r.Type, Description: r.Description, URL: maskedURL(*r),
		CredentialID: r.CredentialID, Health: r.Health,
	}
	if s.downstream != nil {
		if st, ok := s.downstream.Status(r.ID); ok {
			ds.Health = mergeHealth(r.Health, st.Health)
			if st.Tools != nil {
				on, off := toolCounts(st.Tools, r.DisabledTools)
				ds.EnabledToolCount, ds.DisabledToolCount = &on, &off
			}
		}
	}
	if ds.Health.Status == "" {
		ds.Health.Status = HealthUnknown
	}
	return ds
}

func toolCounts(tools []DownstreamTool, disabled []string) (enabled, off int) {
	isOff := make(map[string]bool, len(disabled))
	for _, d := range disabled {
		isOff[d] = true
	}
	for _, t := range tools {
		if isOff[t.Name] {
			off++
		} else {
			enabled++
		}
	}
	return enabled, off
}

// mergeHealth prefers the more recently checked of the stored and live health.
func mergeHealth(stored, live Health) Health {
	if live.Status == "" || (live.Status == HealthUnknown && live.LastCheckedAt == nil) {
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
func sortedLinks(links []CardLink) []CardLink {
	sort.SliceStable(links, func(i, j int) bool { return links[i].Position < links[j].Position })
	return links
}
