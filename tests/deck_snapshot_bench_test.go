package tests

import (
	"context"
	"crypto/rand"
	"fmt"
	"testing"

	"github.com/agent-deck/agent-deck/backend"
	"github.com/agent-deck/agent-deck/backend/core"
	"github.com/agent-deck/agent-deck/backend/postgres/pgtest"
	"github.com/agent-deck/agent-deck/backend/secret"
)

// seedDeck100 creates a deck with 40 services, 30 credentials and 30 playbooks linked.
func seedDeck100(tb testing.TB, svc *core.Hub, ctx context.Context) backend.Deck {
	tb.Helper()
	deck, err := svc.CreateDeck(ctx, core.DeckInput{Name: "hundred"})
	if err != nil {
		tb.Fatal(err)
	}
	link := func(t backend.CardType, id string) {
		if _, err := svc.LinkCard(ctx, core.LinkCardInput{CardRef: core.CardRef{Deck: deck.ID, CardType: t, CardID: id}}); err != nil {
			tb.Fatal(err)
		}
	}
	for i := 0; i < 40; i++ {
		s, err := svc.CreateService(ctx, core.ServiceInput{Name: fmt.Sprintf("svc-%02d", i), Type: backend.ServiceRemote,
			URL: fmt.Sprintf("http://127.0.0.1:9/%d", i), Headers: map[string]string{"X-Team": "core"}})
		if err != nil {
			tb.Fatal(err)
		}
		link(backend.CardService, s.ID)
	}
	for i := 0; i < 30; i++ {
		c, err := svc.CreateCredential(ctx, core.CredentialInput{Label: fmt.Sprintf("Key %02d", i), Value: "v"})
		if err != nil {
			tb.Fatal(err)
		}
		link(backend.CardCredential, c.ID)
	}
	for i := 0; i < 30; i++ {
		p, err := svc.CreatePlaybook(ctx, backend.PlaybookInput{Title: fmt.Sprintf("Runbook %02d", i),
			Body: "Steps for runbook.", Triggers: []string{fmt.Sprintf("deploy area %d", i)}})
		if err != nil {
			tb.Fatal(err)
		}
		link(backend.CardPlaybook, p.ID)
	}
	return deck
}

// BenchmarkComponentDeckSnapshotService times the deck snapshot of a 100-card deck in the service
// layer alone under 16 concurrent callers. Once warm this is a cache lookup, so it is a component
// figure with no end-to-end target; the agent's path (HTTP to /mcp) is BenchmarkMCPBoundDeck.
func BenchmarkComponentDeckSnapshotService(b *testing.B) {
	svc, ctx := newCore(b)
	deck := seedDeck100(b, svc, ctx)
	snap, err := svc.DeckSnapshot(ctx, deck.ID)
	if err != nil {
		b.Fatal(err)
	}
	if n := len(snap.Services) + len(snap.Credentials) + len(snap.Playbooks); n != 100 {
		b.Fatalf("snapshot has %d cards, want 100", n)
	}
	b.ResetTimer()
	d := measureConcurrent(b, 16, max(b.N, 16), func() error {
		_, err := svc.DeckSnapshot(ctx, deck.ID)
		return err
	})
	b.ReportMetric(ms(percentile(d, 50)), "p50-ms")
	b.ReportMetric(ms(percentile(d, 99)), "p99-ms")
}

// newCore builds the real core on a fresh database, with no downstream proxy, and returns an
// admin context for it.
func newCore(tb testing.TB) (*core.Hub, context.Context) {
	tb.Helper()
	key := make([]byte, 32)
	if _, err := rand.Read(key); err != nil {
		tb.Fatal(err)
	}
	sealer, err := secret.NewSealer(key)
	if err != nil {
		tb.Fatal(err)
	}
	svc := core.NewHub(pgtest.NewStore(tb), nil, sealer, nil, nil, core.Config{})
	return svc, backend.WithActor(context.Background(), backend.SystemActor)
}
