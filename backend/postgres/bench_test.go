package postgres_test

import (
	"fmt"
	"os"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/agent-deck/agent-deck/backend"
	"github.com/agent-deck/agent-deck/backend/postgres"
	"github.com/agent-deck/agent-deck/backend/postgres/pgtest"
)

// seedDeck makes a deck with 40 services, 30 credentials and 30 playbooks linked.
func seedDeck(b testing.TB, st *postgres.Store) backend.Deck {
	deck := backend.Deck{Name: "big"}
	if err := st.CreateDeck(ctx, &deck); err != nil {
		b.Fatal(err)
	}
	var svcs, creds, pbs []string
	for i := range 40 {
		s := backend.ServiceRecord{ServiceCard: backend.ServiceCard{Name: fmt.Sprintf("svc %d", i),
			Type: backend.ServiceRemote, URL: "http://127.0.0.1/mcp", DisabledTools: []string{"a", "b"}},
			PlainHeaders: map[string]string{"X-A": "b"}, SealedHeaders: make([]byte, 64)}
		if err := st.CreateService(ctx, &s); err != nil {
			b.Fatal(err)
		}
		svcs = append(svcs, s.ID)
	}
	for i := range 30 {
		c := backend.CredentialRecord{Credential: backend.Credential{ID: fmt.Sprintf("cred_%d", i),
			Label: fmt.Sprintf("Cred %d", i), EnvName: "K", Tags: []string{"t"}}, SealedSecret: make([]byte, 60)}
		if err := st.CreateCredential(ctx, &c); err != nil {
			b.Fatal(err)
		}
		creds = append(creds, c.ID)
		p := backend.Playbook{ID: fmt.Sprintf("pb_%d", i), Title: fmt.Sprintf("Playbook %d", i),
			Body: strings.Repeat("step ", 400), Triggers: []string{"deploy the app", "ship"}}
		if err := st.CreatePlaybook(ctx, &p); err != nil {
			b.Fatal(err)
		}
		pbs = append(pbs, p.ID)
	}
	for t, ids := range map[backend.CardType][]string{backend.CardService: svcs, backend.CardCredential: creds,
		backend.CardPlaybook: pbs} {
		if err := st.ReplaceLinks(ctx, deck.ID, t, ids); err != nil {
			b.Fatal(err)
		}
	}
	return deck
}

// BenchmarkComponentDeckSnapshot measures what a deck snapshot costs the store (GetDeck +
// LinkedCards for a 100-card deck) under 16 concurrent callers, and reports p50/p99: a component
// figure with no end-to-end target.
func BenchmarkComponentDeckSnapshot(b *testing.B) {
	st := pgtest.NewStore(b)
	deck := seedDeck(b, st)
	callers := benchCallers()
	var mu sync.Mutex
	var lat []time.Duration
	b.ResetTimer()
	var wg sync.WaitGroup
	work := make(chan struct{}, b.N)
	for range b.N {
		work <- struct{}{}
	}
	close(work)
	for range callers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			var mine []time.Duration
			for range work {
				start := time.Now()
				d, err := st.GetDeck(ctx, deck.ID)
				if err != nil {
					b.Error(err)
					return
				}
				cards, err := st.LinkedCards(ctx, d.ID)
				if err != nil || len(cards.Services)+len(cards.Credentials)+len(cards.Playbooks) != 100 {
					b.Errorf("LinkedCards: %d cards, %v", len(cards.Services)+len(cards.Credentials)+len(cards.Playbooks), err)
					return
				}
				mine = append(mine, time.Since(start))
			}
			mu.Lock()
			lat = append(lat, mine...)
			mu.Unlock()
		}()
	}
	wg.Wait()
	b.StopTimer()
	slices.Sort(lat)
	if len(lat) > 0 {
		b.ReportMetric(float64(lat[len(lat)/2].Microseconds()), "p50-µs")
		b.ReportMetric(float64(lat[len(lat)*99/100].Microseconds()), "p99-µs")
	}
}

// benchCallers is 16 (the SPEC's concurrency) unless AGENT_DECK_BENCH_CALLERS says otherwise.
func benchCallers() int {
	if n, err := strconv.Atoi(os.Getenv("AGENT_DECK_BENCH_CALLERS")); err == nil && n > 0 {
		return n
	}
	return 16
}
