package core_test

import (
	"fmt"
	"runtime"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/agent-deck/agent-deck/backend"
	"github.com/agent-deck/agent-deck/backend/core"
)

// BenchmarkComponentDeckSnapshot times the snapshot of a 100-card deck in the core under 16
// concurrent callers and reports p50/p99. Once warm this is a cache lookup: a component figure
// with no end-to-end target (the agent's path is tests.BenchmarkMCPBoundDeck).
func BenchmarkComponentDeckSnapshot(b *testing.B) {
	f := newCoreFixtureTB(b)
	d := coreMust[backend.Deck](b)(f.svc.CreateDeck(f.admin, core.DeckInput{Name: "Big"}))
	for i := range 40 {
		s := coreMust[backend.ServiceCard](b)(f.svc.CreateService(f.admin, core.ServiceInput{
			Name: fmt.Sprintf("Service %d", i), Type: backend.ServiceRemote, URL: "https://s.test/mcp",
			Headers: map[string]string{"Authorization": "Bearer x", "X-Tenant": "t"}}))
		benchLink(b, f, d.ID, backend.CardService, s.ID)
	}
	for i := range 30 {
		c := coreMust[backend.Credential](b)(f.svc.CreateCredential(f.admin, core.CredentialInput{
			Label: fmt.Sprintf("Key %d", i), Value: "v"}))
		benchLink(b, f, d.ID, backend.CardCredential, c.ID)
	}
	for i := range 30 {
		p := coreMust[core.PlaybookResult](b)(f.svc.CreatePlaybook(f.admin, backend.PlaybookInput{
			Title: fmt.Sprintf("Playbook %d", i), Body: "step one\nstep two", Triggers: []string{fmt.Sprintf("do thing %d", i)}}))
		benchLink(b, f, d.ID, backend.CardPlaybook, p.ID)
	}
	const callers = 16
	b.SetParallelism(max(1, callers/runtime.GOMAXPROCS(0)))
	var mu sync.Mutex
	var lat []time.Duration
	b.ResetTimer()
	b.RunParallel(func(pb *testing.PB) {
		var mine []time.Duration
		for pb.Next() {
			start := time.Now()
			snap, err := f.svc.DeckSnapshot(f.reader, d.ID)
			mine = append(mine, time.Since(start))
			if err != nil || len(snap.Services)+len(snap.Credentials)+len(snap.Playbooks) != 100 {
				b.Errorf("snapshot: %v (%d services)", err, len(snap.Services))
				return
			}
		}
		mu.Lock()
		lat = append(lat, mine...)
		mu.Unlock()
	})
	b.StopTimer()
	slices.Sort(lat)
	if len(lat) > 0 {
		b.ReportMetric(float64(lat[len(lat)/2].Microseconds())/1000, "p50-ms")
		b.ReportMetric(float64(lat[len(lat)*99/100].Microseconds())/1000, "p99-ms")
	}
}

func benchLink(b *testing.B, f *coreFixture, deck string, t backend.CardType, id string) {
	b.Helper()
	if _, err := f.svc.LinkCard(f.admin, core.LinkCardInput{CardRef: core.CardRef{Deck: deck, CardType: t, CardID: id}}); err != nil {
		b.Fatal(err)
	}
}
