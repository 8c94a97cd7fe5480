package tests

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/pkoukk/tiktoken-go"
	tiktoken_loader "github.com/pkoukk/tiktoken-go-loader"

	"github.com/agent-deck/agent-deck/backend"
	"github.com/agent-deck/agent-deck/backend/core"
	"github.com/agent-deck/agent-deck/tests/golden"
)

// snapDeck is a deck of n cards built deterministically (40% services, 30% credentials, 30%
// playbooks; fixed ids, names and triggers) and imported in one transaction, so goldens are
// stable and a 10,000-card deck takes seconds to build.
type snapDeck struct {
	bundle   json.RawMessage
	services []string
	creds    []string
	books    []string
}

func newSnapDeck(n int) snapDeck { return newSnapDeckText(n, func(i int) string { return "" }) }

// newSnapDeckText is newSnapDeck with extra text in every name, title, description and
// trigger, to measure the budget against text that tokenizes badly.
func newSnapDeckText(n int, extra func(i int) string) snapDeck {
	type card = map[string]any
	var d snapDeck
	var svcs, creds, pbs []card
	ns, nc := n*4/10, n*3/10
	np := n - ns - nc
	for i := 0; i < ns; i++ {
		id := fmt.Sprintf("6f1c8d2e-0000-4000-8000-%012d", i)
		svcs = append(svcs, card{"id": id, "name": fmt.Sprintf("svc-%05d", i) + extra(i), "type": "mcp",
			"url":         fmt.Sprintf("https://s%d.example.test/mcp", i),
			"description": fmt.Sprintf("Issue tracker of team %d: search, create and close tickets", i) + strings.Repeat(extra(i), 40)})
		d.services = append(d.services, id)
	}
	for i := 0; i < nc; i++ {
		id := fmt.Sprintf("cred_key_%05d", i)
		creds = append(creds, card{"id": id, "label": fmt.Sprintf("Key %05d", i) + extra(i), "scheme": "bearer",
			"env_name": fmt.Sprintf("KEY_%05d_API_KEY", i), "tags": []string{"team"}})
		d.creds = append(d.creds, id)
	}
	for i := 0; i < np; i++ {
		id := fmt.Sprintf("pb_runbook_%05d", i)
		pbs = append(pbs, card{"id": id, "title": fmt.Sprintf("Runbook %05d", i) + extra(i), "body": "Do it.\n",
			"triggers": []string{fmt.Sprintf("deploy area %d", i), fmt.Sprintf("rollback area %d", i) + extra(i)}})
		d.books = append(d.books, id)
	}
	raw, _ := json.Marshal(card{"format": "agent-deck-bundle", "version": 1, "services": svcs,
		"credentials": creds, "playbooks": pbs, "decks": []card{{"id": "0dec0000-0000-4000-8000-000000000000", "name": "big", "cards": card{
			"services": d.services, "credentials": d.creds, "playbooks": d.books}}}})
	d.bundle = raw
	return d
}

// all is every card id of the deck, sorted.
func (d snapDeck) all() []string {
	return slices.Sorted(slices.Values(slices.Concat(d.services, d.creds, d.books)))
}

// snapStack starts a deck server holding the n-card deck and an agent session bound to it.
func snapStack(t testing.TB, n int) (*mcpStack, snapDeck, *mcpConn) {
	t.Helper()
	s := startMCPStack(t, mcpStackOptions{})
	d := newSnapDeck(n)
	if _, err := s.svc.Import(s.adminCtx(), d.bundle, false); err != nil {
		t.Fatal(err)
	}
	c := s.connect(t, s.token(backend.ScopeAgent), nil, "")
	c.ok("bind_workspace", map[string]any{"workspaceRoot": "/work/big", "deckId": "big"}, nil)
	return s, d, c
}

// boundPage is get_bound_deck's answer as an agent reads it.
type boundPage struct {
	Services []struct {
		ID string `json:"id"`
	} `json:"services"`
	Credentials []struct {
		ID string `json:"id"`
	} `json:"credentials"`
	Playbooks []struct {
		ID       string   `json:"id"`
		Triggers []string `json:"triggers"`
	} `json:"playbooks"`
	Compact struct {
		Services    []string `json:"services"`
		Credentials []string `json:"credentials"`
		Playbooks   []string `json:"playbooks"`
	} `json:"compact"`
	Counts  core.DeckCounts  `json:"counts"`
	Matched *core.DeckCounts `json:"matched"`
	More    *struct {
		Remaining int    `json:"remaining"`
		Cursor    string `json:"cursor"`
	} `json:"more"`
	DisplaySummary string `json:"display_summary"`
}

// snapBudget is the o200k token budget get_bound_deck keeps (SPEC §4.2), written out here so
// the test does not take the server's word for it.
const snapBudget = 6000

// ids are the card ids the page shows, in full or as a compact line ("id · …").
func (p boundPage) ids() []string {
	var out []string
	for _, s := range p.Services {
		out = append(out, s.ID)
	}
	for _, c := range p.Credentials {
		out = append(out, c.ID)
	}
	for _, b := range p.Playbooks {
		out = append(out, b.ID)
	}
	for _, l := range slices.Concat(p.Compact.Services, p.Compact.Credentials, p.Compact.Playbooks) {
		id, _, _ := strings.Cut(l, " · ")
		out = append(out, id)
	}
	return out
}

func o200k(t testing.TB) *tiktoken.Tiktoken {
	t.Helper()
	tiktoken.SetBpeLoader(tiktoken_loader.NewOfflineLoader())
	enc, err := tiktoken.GetEncoding("o200k_base")
	if err != nil {
		t.Fatal(err)
	}
	return enc
}

// boundDeckPage calls get_bound_deck and returns its text and decoded page, failing when the
// text costs more than the budget in o200k tokens.
func boundDeckPage(t testing.TB, c *mcpConn, enc *tiktoken.Tiktoken, args map[string]any) (string, boundPage) {
	t.Helper()
	res := c.call("get_bound_deck", args)
	text := mcpText(res)
	if res.IsError {
		t.Fatalf("get_bound_deck(%v): %s", args, text)
	}
	if n := len(enc.Encode(text, nil, nil)); n > snapBudget {
		t.Fatalf("get_bound_deck(%v): %d o200k tokens (%d bytes), over the budget of %d", args, n, len(text), snapBudget)
	}
	var p boundPage
	if err := json.Unmarshal([]byte(text), &p); err != nil {
		t.Fatal(err)
	}
	return text, p
}

// walk follows the cursor from the first page to the last and returns every id it saw.
func walk(t *testing.T, c *mcpConn, enc *tiktoken.Tiktoken, args map[string]any) (ids []string, pages int) {
	t.Helper()
	for {
		_, p := boundDeckPage(t, c, enc, args)
		ids = append(ids, p.ids()...)
		pages++
		if p.More == nil {
			return ids, pages
		}
		if pages > 1000 {
			t.Fatal("the cursor never ends")
		}
		args = map[string]any{"cursor": p.More.Cursor}
	}
}

var volatile = regexp.MustCompile(`"(created_at|updated_at)":"[^"]*"|"badge":"[^"]*"|⌘[^"]*"`)

// TestSnapshotBudgetGolden pins the shape of get_bound_deck at 10, 100, 1,000 and 10,000 cards: a
// small deck whole, bigger ones as full entries, compact lines and more (go test -update rewrites).
func TestSnapshotBudgetGolden(t *testing.T) {
	enc := o200k(t)
	for _, n := range []int{10, 100, 1000, 10000} {
		t.Run(fmt.Sprint(n), func(t *testing.T) {
			_, _, c := snapStack(t, n)
			text, _ := boundDeckPage(t, c, enc, nil)
			text = volatile.ReplaceAllStringFunc(text, func(m string) string {
				if strings.HasPrefix(m, "⌘") {
					return `⌘BADGE"`
				}
				k, _, _ := strings.Cut(m, ":")
				return k + `:"…"`
			})
			var pretty strings.Builder
			var v any
			must(t, json.Unmarshal([]byte(text), &v))
			stableCut(v)
			b, _ := json.MarshalIndent(v, "", "  ")
			pretty.Write(b)
			pretty.WriteByte('\n')
			golden.Check(t, filepath.Join("testdata", "snapshot", fmt.Sprintf("bound_deck_%d.golden.json", n)), []byte(pretty.String()))
		})
	}
}

// stableCut keeps a golden page independent of where exactly the budget cut it. Timestamps and
// the session's badge vary in length from run to run, so the last compact lines that fit (and
// the "more" figures and cursor that follow from them) move by a line or two; the golden keeps
// the first compactKept lines of each type and the shape of "more". Exact budgets and every
// card's reachability are TestSnapshotBudgetScale's job.
func stableCut(v any) {
	const compactKept = 30
	page, ok := v.(map[string]any)
	if !ok {
		return
	}
	if compact, ok := page["compact"].(map[string]any); ok {
		for k, lines := range compact {
			if l, ok := lines.([]any); ok && len(l) > compactKept {
				compact[k] = append(l[:compactKept:compactKept], "…")
			}
		}
	}
	if more, ok := page["more"].(map[string]any); ok {
		for _, k := range []string{"cursor", "remaining"} {
			if _, ok := more[k]; ok {
				more[k] = "…"
			}
		}
		if byType, ok := more["by_type"].(map[string]any); ok {
			for k := range byType {
				byType[k] = "…"
			}
		}
	}
}

// TestSnapshotBudgetScale: a 1,000-card and a 10,000-card deck each answer within the budget
// with the whole deck's counts, and an agent reaches every card: by the cursor, by card type,
// and by query.
func TestSnapshotBudgetScale(t *testing.T) {
	enc := o200k(t)
	for _, n := range []int{1000, 10000} {
		t.Run(fmt.Sprint(n), func(t *testing.T) {
			_, d, c := snapStack(t, n)
			text, first := boundDeckPage(t, c, enc, nil)
			t.Logf("%d cards: first page %d bytes, %d o200k tokens", n, len(text), len(enc.Encode(text, nil, nil)))
			want := core.DeckCounts{Services: len(d.services), Credentials: len(d.creds), Playbooks: len(d.books)}
			if first.Counts != want {
				t.Errorf("counts %+v, want %+v", first.Counts, want)
			}
			if wantLine := core.DisplaySummary("big", want, ""); !strings.HasPrefix(first.DisplaySummary, wantLine) {
				t.Errorf("display_summary %q, want it to start %q", first.DisplaySummary, wantLine)
			}
			if first.More == nil || first.More.Remaining+len(first.ids()) != n {
				t.Fatalf("more %+v with %d cards shown, want the rest of %d", first.More, len(first.ids()), n)
			}
			if len(first.Services) == 0 || len(first.Credentials) == 0 || len(first.Playbooks) == 0 {
				t.Errorf("no full entries for some type: %d services, %d credentials, %d playbooks",
					len(first.Services), len(first.Credentials), len(first.Playbooks))
			}
			for _, l := range first.Compact.Playbooks {
				if !strings.Contains(l, " · triggers: deploy area ") {
					t.Errorf("compact playbook line without its triggers: %q", l)
				}
			}

			ids, pages := walk(t, c, enc, nil)
			t.Logf("the cursor walk took %d pages", pages)
			if diff := cmp.Diff(d.all(), slices.Sorted(slices.Values(ids))); diff != "" {
				t.Errorf("cursor walk ids (-deck +seen):\n%s", diff)
			}
			books, _ := walk(t, c, enc, map[string]any{"card_type": "playbook"})
			if diff := cmp.Diff(d.books, books); diff != "" {
				t.Errorf("card_type playbook walk (-deck +seen, in deck order):\n%s", diff)
			}

			last := len(d.books) - 1
			_, found := boundDeckPage(t, c, enc, map[string]any{"query": fmt.Sprintf("ROLLBACK Area %d", last)})
			if got := found.ids(); !slices.Contains(got, d.books[last]) {
				t.Errorf("query for the last playbook's trigger found %v", got)
			}
			if found.Counts != want || found.Matched == nil || found.Matched.Playbooks < 1 || found.Matched.Services != 0 {
				t.Errorf("query counts %+v matched %+v", found.Counts, found.Matched)
			}
			_, svc := boundDeckPage(t, c, enc, map[string]any{"card_type": "service", "query": "team " + fmt.Sprint(len(d.services)-1) + ":"})
			if got := svc.ids(); len(got) != 1 || got[0] != d.services[len(d.services)-1] {
				t.Errorf("query on a service description found %v", got)
			}
		})
	}
}

// TestSnapshotBudgetHostileText: names, triggers and descriptions in scripts and symbols that
// cost a token per character or more still fit: the server's estimate stays above the real count.
func TestSnapshotBudgetHostileText(t *testing.T) {
	enc := o200k(t)
	texts := map[string]func(i int) string{
		"cjk and emoji": func(i int) string { return fmt.Sprintf(" 日本語の説明🚀✨ %d 데이터", i) },
		"symbols":       func(i int) string { return fmt.Sprintf(" {#%%&@!}[~^]<|>$%x", i*7919) },
		"hex":           func(i int) string { return fmt.Sprintf(" %08x%08x%08x", i*2654435761, i*40503, i*97) },
	}
	for name, extra := range texts {
		t.Run(name, func(t *testing.T) {
			s := startMCPStack(t, mcpStackOptions{})
			d := newSnapDeckText(1000, extra)
			if _, err := s.svc.Import(s.adminCtx(), d.bundle, false); err != nil {
				t.Fatal(err)
			}
			c := s.connect(t, s.token(backend.ScopeAgent), nil, "")
			c.ok("bind_workspace", map[string]any{"workspaceRoot": "/work/big", "deckId": "big"}, nil)
			text, _ := boundDeckPage(t, c, enc, nil)
			t.Logf("first page %d bytes, %d o200k tokens", len(text), len(enc.Encode(text, nil, nil)))
			ids, _ := walk(t, c, enc, nil)
			if diff := cmp.Diff(d.all(), slices.Sorted(slices.Values(ids))); diff != "" {
				t.Errorf("cursor walk ids (-deck +seen):\n%s", diff)
			}
		})
	}
}

// TestSnapshotBudgetErrors: a cursor that is not one, or used with other filters, is refused
// with a teaching error.
func TestSnapshotBudgetErrors(t *testing.T) {
	_, _, c := snapStack(t, 1000)
	enc := o200k(t)
	_, p := boundDeckPage(t, c, enc, map[string]any{"card_type": "service"})
	for name, args := range map[string]map[string]any{
		"garbage cursor":         {"cursor": "not-a-cursor"},
		"cursor of another type": {"cursor": p.More.Cursor, "card_type": "playbook"},
		"unknown card type":      {"card_type": "deck"},
	} {
		t.Run(name, func(t *testing.T) {
			e := c.fails("get_bound_deck", args)
			if e.Code != string(backend.CodeInvalidArgument) {
				t.Errorf("code %s, want INVALID_ARGUMENT: %+v", e.Code, e)
			}
		})
	}
}

// TestRESTSnapshotPages: the dashboard's snapshot stays whole without paging parameters, and
// the same parameters as get_bound_deck give the same pages.
func TestRESTSnapshotPages(t *testing.T) {
	s, d, _ := snapStack(t, 1000)
	get := func(q url.Values) (int, boundPage, string) {
		a := s.api().Do(t, s.AdminToken, http.MethodGet, "/api/v1/decks/big/snapshot?"+q.Encode(), nil)
		var m json.RawMessage
		must(t, json.Unmarshal(a.Body, &m))
		var page boundPage
		_ = json.Unmarshal(m, &page)
		return a.Status, page, string(m)
	}
	code, whole, _ := get(url.Values{})
	if code != 200 || len(whole.Services)+len(whole.Credentials)+len(whole.Playbooks) != 1000 || whole.More != nil {
		t.Fatalf("whole snapshot: %d, %d+%d+%d cards, more %+v", code, len(whole.Services), len(whole.Credentials),
			len(whole.Playbooks), whole.More)
	}
	code, books, _ := get(url.Values{"card_type": {"playbook"}})
	if code != 200 || len(books.Playbooks) != len(d.books) || len(books.Services) != 0 || books.Matched.Playbooks != len(d.books) {
		t.Errorf("card_type playbook: %d, %d playbooks, %d services", code, len(books.Playbooks), len(books.Services))
	}
	enc := o200k(t)
	code, page, text := get(url.Values{"budget": {"6000"}})
	if n := len(enc.Encode(text, nil, nil)); code != 200 || n > 6000 || page.More == nil || page.Counts.Services != len(d.services) {
		t.Errorf("budget 6000: %d, %d tokens, more %+v", code, n, page.More)
	}
	code, next, _ := get(url.Values{"cursor": {page.More.Cursor}})
	if code != 200 || next.More == nil || next.More.Remaining >= page.More.Remaining {
		t.Errorf("cursor page: %d, more %+v after %+v", code, next.More, page.More)
	}
	for _, q := range []url.Values{{"budget": {"12"}}, {"budget": {"lots"}}, {"cursor": {"x"}}, {"card_type": {"deck"}}} {
		if code, _, body := get(q); code != http.StatusBadRequest || !strings.Contains(body, "INVALID_ARGUMENT") {
			t.Errorf("%v: %d %s", q, code, body)
		}
	}
}

// BenchmarkSnapshotSize reports what one get_bound_deck costs an agent as the deck grows: bytes
// and o200k tokens of the first page, and the pages a cursor walk of the whole deck takes. Each
// iteration is a real call to /mcp.
func BenchmarkSnapshotSize(b *testing.B) {
	enc := o200k(b)
	for _, n := range []int{10, 100, 1000, 10000} {
		b.Run(fmt.Sprintf("cards=%d", n), func(b *testing.B) {
			_, _, c := snapStack(b, n)
			var text string
			for b.Loop() {
				text = mcpText(c.call("get_bound_deck", nil))
			}
			boundDeckPage(b, c, enc, nil) // fails when over the budget
			b.ReportMetric(float64(len(text)), "bytes")
			b.ReportMetric(float64(len(enc.Encode(text, nil, nil))), "o200k-tokens")
			b.ReportMetric(snapBudget, "budget-tokens")
		})
	}
}
