package core

import (
	"sync/atomic"
	"time"

	"github.com/agent-deck/agent-deck/backend"
)

// deckViews is a deck's cards rendered for snapshots. Credentials and playbooks depend only on
// the rows, so they are rendered once; services carry live health and tool counts from the
// proxy, so they are rendered per snapshot, but the last rendering is reused while nothing in it
// changed: a snapshot of a steady deck allocates nothing. Every slice is shared and read-only.
type deckViews struct {
	records     []backend.ServiceRecord
	credentials []backend.Credential
	playbooks   []backend.PlaybookSummary
	last        atomic.Pointer[[]DeckService]
	idx         deckIndexOnce // what paging needs, built on first use (deck_page.go)
	pages       pageCache     // rendered pages of this deck version (cache_pages.go)
}

func newDeckViews(cards backend.LinkedCards) *deckViews {
	v := &deckViews{
		records:     cards.Services,
		credentials: make([]backend.Credential, 0, len(cards.Credentials)),
		playbooks:   make([]backend.PlaybookSummary, 0, len(cards.Playbooks)),
	}
	for _, c := range cards.Credentials {
		v.credentials = append(v.credentials, credentialView(c))
	}
	for _, p := range cards.Playbooks {
		v.playbooks = append(v.playbooks, backend.PlaybookSummary{ID: p.ID, Title: p.Title, Triggers: backend.OrEmpty(p.Triggers)})
	}
	return v
}

// services renders the services with live health merged in (no I/O).
func (v *deckViews) services(s *Hub) []DeckService { return *v.rendered(s) }

// rendered is services as the shared rendering it came from: the same pointer while nothing in
// it changed, so it also tells whether pages made from it are still current (cache_pages.go).
func (v *deckViews) rendered(s *Hub) *[]DeckService {
	if last := v.last.Load(); last != nil && len(*last) == len(v.records) {
		same := true
		for i := range v.records {
			if !sameDeckService(s.deckService(&v.records[i]), (*last)[i]) {
				same = false
				break
			}
		}
		if same {
			return last
		}
	}
	out := make([]DeckService, 0, len(v.records))
	for i := range v.records {
		out = append(out, s.deckService(&v.records[i]))
	}
	v.last.Store(&out)
	return &out
}

func sameDeckService(a, b DeckService) bool {
	ha, hb := a.Health, b.Health
	a.Health, b.Health = backend.Health{}, backend.Health{}
	if !sameCount(a.EnabledToolCount, b.EnabledToolCount) || !sameCount(a.DisabledToolCount, b.DisabledToolCount) {
		return false
	}
	a.EnabledToolCount, a.DisabledToolCount, b.EnabledToolCount, b.DisabledToolCount = nil, nil, nil, nil
	return a == b && ha.Status == hb.Status && ha.LastError == hb.LastError && ha.Stderr == hb.Stderr &&
		sameTime(ha.LastSuccessAt, hb.LastSuccessAt) && sameTime(ha.LastCheckedAt, hb.LastCheckedAt)
}

func sameCount(a, b *int) bool {
	if a == nil || b == nil {
		return a == b
	}
	return *a == *b
}

func sameTime(a, b *time.Time) bool {
	if a == nil || b == nil {
		return a == b
	}
	return a.Equal(*b)
}
