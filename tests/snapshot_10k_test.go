package tests

import (
	"fmt"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/agent-deck/agent-deck/backend/core"
)

// TestSnapshot10kReach: on a 10,000-card deck an agent reaches every card by each way
// get_bound_deck offers, every page within the budget and with the whole deck's counts
// (TestSnapshotBudgetScale walks the cursor over the whole deck and the playbooks by type).
func TestSnapshot10kReach(t *testing.T) {
	const n = 10000
	enc := o200k(t)
	_, d, c := snapStack(t, n)
	whole := core.DeckCounts{Services: len(d.services), Credentials: len(d.creds), Playbooks: len(d.books)}
	for _, tc := range []struct {
		name string
		args map[string]any
		want []string
	}{
		{"every service by card_type", map[string]any{"card_type": "service"}, d.services},
		{"every credential by card_type", map[string]any{"card_type": "credential"}, d.creds},
		// KEY_01 is in the ids and env names of credentials 01000 to 01999 only.
		{"a thousand matches of a query, by its cursor", map[string]any{"query": "KEY_01"}, d.creds[1000:2000]},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, pages := walk(t, c, enc, tc.args)
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("walk of %v in %d pages (-want +seen):\n%s", tc.args, pages, diff)
			}
			if pages < 2 {
				t.Errorf("walk of %v took %d page, want it paged", tc.args, pages)
			}
		})
	}
	t.Run("any card by its id as the query", func(t *testing.T) {
		all := d.all()
		for i := 0; i < len(all); i += 97 {
			for _, id := range []string{all[i], all[len(all)-1-i]} {
				_, p := boundDeckPage(t, c, enc, map[string]any{"query": id})
				if got := p.ids(); len(got) != 1 || got[0] != id {
					t.Fatalf("query %q found %v", id, got)
				}
				if p.Counts != whole || p.Matched == nil || p.Matched.Services+p.Matched.Credentials+p.Matched.Playbooks != 1 {
					t.Fatalf("query %q: counts %+v, matched %+v; want the whole deck's and one match", id, p.Counts, p.Matched)
				}
			}
		}
	})
	t.Run("a query that matches nothing", func(t *testing.T) {
		_, p := boundDeckPage(t, c, enc, map[string]any{"query": fmt.Sprintf("no-such-card-%d", n)})
		if len(p.ids()) != 0 || p.More != nil || p.Counts != whole || p.Matched == nil || *p.Matched != (core.DeckCounts{}) {
			t.Errorf("empty query page: ids %v, more %+v, counts %+v, matched %+v", p.ids(), p.More, p.Counts, p.Matched)
		}
	})
}
