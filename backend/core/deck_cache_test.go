package core_test

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/agent-deck/agent-deck/backend"
	"github.com/agent-deck/agent-deck/backend/core"
)

// TestBoundDeckCache holds issue 9 item 2: a repeated get_bound_deck on a steady deck
// returns pre-rendered bytes, the same bytes the struct encodes to, and a change to the deck or
// to a service's live health shows on the next call.
func TestBoundDeckCache(t *testing.T) {
	f := newCoreFixture(t)
	d := f.deck(t, "Hundred")
	var firstService string
	for i := range 40 {
		s := f.service(t, fmt.Sprintf("svc-%02d", i))
		if i == 0 {
			firstService = s.ID
		}
		f.link(t, d.ID, backend.CardService, s.ID)
	}
	for i := range 30 {
		f.link(t, d.ID, backend.CardCredential, f.credential(t, fmt.Sprintf("Key %02d", i), "v").ID)
	}
	for i := range 30 {
		p := f.playbook(t, backend.PlaybookInput{Title: fmt.Sprintf("Runbook %02d", i), Body: "Steps.",
			Triggers: []string{fmt.Sprintf("deploy area %d", i)}})
		f.link(t, d.ID, backend.CardPlaybook, p.Playbook.ID)
	}
	sess := coreMust[backend.MCPSession](t)(f.svc.OpenSession(f.agent, core.OpenSessionInput{Profile: "standard", Deck: d.ID}))
	bound := func(t *testing.T, in core.DeckPageInput) (core.BoundDeck, string) {
		t.Helper()
		b := coreMust[core.BoundDeck](t)(f.svc.BoundDeck(f.agent, sess.ID, in))
		raw, err := json.Marshal(b)
		if err != nil {
			t.Fatal(err)
		}
		return b, string(raw)
	}
	t.Run("cached bytes are the struct's bytes", func(t *testing.T) {
		for _, in := range []core.DeckPageInput{{}, {Query: "runbook"}, {CardType: backend.CardCredential}} {
			bound(t, in)
			b, raw := bound(t, in) // from the cache
			type plain core.BoundDeck
			want, err := json.Marshal(plain(core.BoundDeck{DeckPage: b.DeckPage, Badge: b.Badge, DisplaySummary: b.DisplaySummary}))
			if err != nil {
				t.Fatal(err)
			}
			if raw != string(want) {
				t.Errorf("%+v: cached rendering differs from the struct's\n got %.300s\nwant %.300s", in, raw, want)
			}
		}
	})
	t.Run("a repeated call renders nothing", func(t *testing.T) {
		bound(t, core.DeckPageInput{})
		allocs := testing.AllocsPerRun(20, func() {
			b, err := f.svc.BoundDeck(f.agent, sess.ID, core.DeckPageInput{})
			if err != nil {
				t.Fatal(err)
			}
			if _, err := b.MarshalJSON(); err != nil {
				t.Fatal(err)
			}
		})
		// Laying out and encoding the page of 100 cards costs about 75 allocations; a cached
		// page costs the session, badge and summary around it (about 14).
		if allocs > 30 {
			t.Errorf("a repeated get_bound_deck made %.0f allocations, want at most 30", allocs)
		}
	})
	t.Run("live health shows on the next call", func(t *testing.T) {
		_, before := bound(t, core.DeckPageInput{})
		now := time.Now()
		f.ds.mu.Lock()
		f.ds.status[firstService] = backend.DownstreamStatus{Health: backend.Health{Status: backend.HealthUnhealthy,
			LastError: "connection refused by the peer", LastCheckedAt: &now}}
		f.ds.mu.Unlock()
		_, after := bound(t, core.DeckPageInput{})
		if after == before || !strings.Contains(after, "connection refused by the peer") {
			t.Errorf("a service's new health is not in the next snapshot:\n%.600s", after)
		}
	})
	t.Run("a linked card shows on the next call", func(t *testing.T) {
		_, before := bound(t, core.DeckPageInput{})
		c := f.credential(t, "Fresh Key", "v")
		f.link(t, d.ID, backend.CardCredential, c.ID)
		b, after := bound(t, core.DeckPageInput{})
		if after == before || b.Counts.Credentials != 31 {
			t.Errorf("the linked credential is not counted: %+v", b.Counts)
		}
	})
}
