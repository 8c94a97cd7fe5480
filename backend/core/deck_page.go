package core

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/agent-deck/agent-deck/backend"
)

// DeckPageInput narrows and pages a deck snapshot. CardType keeps one card type; Query keeps
// the cards whose id, name, title or label, description, triggers, env name or tags contain
// every word of it (case-insensitive); Cursor, from a page's More, continues where that page
// stopped; Budget is the most tokens the page may cost (0: the whole deck over REST, the
// default budget for agents).
type DeckPageInput struct {
	CardType backend.CardType `json:"card_type,omitempty"`
	Query    string           `json:"query,omitempty"`
	Cursor   string           `json:"cursor,omitempty"`
	Budget   int              `json:"budget,omitempty"`
}

// DeckPage is a deck snapshot that fits a budget: full entries for the first cards of each type
// in deck order, one compact line for each next card, and More saying how to reach the rest.
// Counts always cover the whole deck; Matched counts what card_type and query kept.
type DeckPage struct {
	DeckSnapshot
	Compact *CompactCards `json:"compact,omitempty"`
	Counts  DeckCounts    `json:"counts"`
	Matched *DeckCounts   `json:"matched,omitempty"`
	More    *DeckMore     `json:"more,omitempty"`
}

// CompactCards are one line per card: "id · name" for services, "id · label" for credentials,
// "id · title · triggers: a | b" for playbooks (triggers are how an agent picks a playbook).
type CompactCards struct {
	Services    []string `json:"services,omitempty"`
	Credentials []string `json:"credentials,omitempty"`
	Playbooks   []string `json:"playbooks,omitempty"`
}

// DeckMore says how many cards a page left out and how to get them.
type DeckMore struct {
	Remaining int        `json:"remaining"`
	ByType    DeckCounts `json:"by_type"`
	Cursor    string     `json:"cursor"`
	Hint      string     `json:"hint"`
}

// maxDeckQueryChars bounds a snapshot query.
const maxDeckQueryChars = 200

// DeckPage is GET /decks/{deck}/snapshot: the whole deck (narrowed by card type and query)
// unless a budget or a cursor asks for a page.
func (s *Hub) DeckPage(ctx context.Context, ref string, in DeckPageInput) (DeckPage, error) {
	if _, err := backend.RequireRead(ctx, "read decks"); err != nil {
		return DeckPage{}, err
	}
	if in.Budget != 0 && (in.Budget < MinDeckBudget || in.Budget > MaxDeckBudget) {
		return DeckPage{}, backend.Invalid("budget", "must be between %d and %d tokens, got %d", MinDeckBudget, MaxDeckBudget, in.Budget)
	}
	if in.Budget == 0 && in.Cursor != "" {
		in.Budget = DefaultDeckBudget
	}
	d, err := s.deckByRefCached(ctx, ref)
	if err != nil {
		return DeckPage{}, err
	}
	return s.deckPage(ctx, d, in, 0)
}

// deckPage selects and lays out one page; reserved is what the caller adds around it (tokens).
func (s *Hub) deckPage(ctx context.Context, d backend.Deck, in DeckPageInput, reserved int) (DeckPage, error) {
	cur, err := checkDeckPage(in)
	if err != nil {
		return DeckPage{}, err
	}
	v, err := s.deckViews(ctx, d)
	if err != nil {
		return DeckPage{}, err
	}
	ix := v.index()
	sel := ix.selectCards(cur)
	page := DeckPage{DeckSnapshot: DeckSnapshot{Deck: d, Services: []DeckService{}, Credentials: []backend.Credential{},
		Playbooks: []backend.PlaybookSummary{}},
		Counts: DeckCounts{Services: len(v.records), Credentials: len(v.credentials), Playbooks: len(v.playbooks)}}
	if cur.cardType != "" || cur.query != "" {
		page.Matched = &DeckCounts{Services: len(sel[0]), Credentials: len(sel[1]), Playbooks: len(sel[2])}
	}
	if in.Budget == 0 && cur == (deckCursor{}) {
		page.DeckSnapshot = DeckSnapshot{Deck: d, Services: v.services(s), Credentials: v.credentials, Playbooks: v.playbooks}
		return page, nil
	}
	var lay pageLayout
	if in.Budget == 0 {
		for t := range sel {
			lay.full[t] = len(sel[t]) - min(cur.offsets[t], len(sel[t]))
		}
	} else {
		lay = s.layout(v, ix, &page, sel, cur, in.Budget-reserved)
	}
	s.fillPage(v, ix, &page, sel, cur, lay)
	return page, nil
}

// layout decides what of the selection fits: the budget minus what the page costs without any
// card (with the longest More it could carry).
func (s *Hub) layout(v *deckViews, ix *deckIndex, page *DeckPage, sel [3][]int, cur deckCursor, budget int) pageLayout {
	shell := *page
	shell.Compact = &CompactCards{}
	shell.More = &DeckMore{Remaining: 99999, ByType: DeckCounts{99999, 99999, 99999},
		Cursor: cur.encode([3]int{99999, 99999, 99999}), Hint: moreHint(DeckCounts{1, 1, 1})}
	avail := budget - estimateJSON(shell) - 3*4 // three lists' brackets and keys at most
	var costs [3]pageCosts
	for t := range sel {
		ids := sel[t][min(cur.offsets[t], len(sel[t])):]
		t := t
		costs[t] = pageCosts{n: len(ids), line: func(i int) int { return ix.lineCost[t][ids[i]] }}
		if t == 0 {
			costs[t].full = func(i int) int { return ix.serviceCost(s.deckService(&v.records[ids[i]]), ids[i]) }
		} else {
			costs[t].full = func(i int) int { return ix.fullCost[t][ids[i]] }
		}
	}
	return layoutPage(avail, costs)
}

// fillPage puts the chosen cards on the page and says what is left.
func (s *Hub) fillPage(v *deckViews, ix *deckIndex, page *DeckPage, sel [3][]int, cur deckCursor, lay pageLayout) {
	var compact CompactCards
	lines := [3]*[]string{&compact.Services, &compact.Credentials, &compact.Playbooks}
	var left DeckCounts
	leftOf := [3]*int{&left.Services, &left.Credentials, &left.Playbooks}
	var next [3]int
	for t := range sel {
		start := min(cur.offsets[t], len(sel[t]))
		ids := sel[t][start:]
		for _, i := range ids[:lay.full[t]] {
			switch t {
			case 0:
				page.Services = append(page.Services, s.deckService(&v.records[i]))
			case 1:
				page.Credentials = append(page.Credentials, v.credentials[i])
			default:
				page.Playbooks = append(page.Playbooks, v.playbooks[i])
			}
		}
		for _, i := range ids[lay.full[t] : lay.full[t]+lay.lines[t]] {
			*lines[t] = append(*lines[t], ix.lines[t][i])
		}
		next[t] = start + lay.full[t] + lay.lines[t]
		*leftOf[t] = len(sel[t]) - next[t]
	}
	if len(compact.Services)+len(compact.Credentials)+len(compact.Playbooks) > 0 {
		page.Compact = &compact
	}
	if n := left.Services + left.Credentials + left.Playbooks; n > 0 {
		page.More = &DeckMore{Remaining: n, ByType: left, Cursor: cur.encode(next), Hint: moreHint(left)}
	}
}

// moreHint teaches how to reach the cards a page left out.
func moreHint(left DeckCounts) string {
	h := "ask again with this cursor for the next cards in deck order, or narrow with " +
		"card_type (service, credential, playbook) or query (words in names, titles, triggers, descriptions)"
	if left.Playbooks > 0 {
		h = fmt.Sprintf("%d playbook(s) and their triggers did not fit: use query with words of the task to find the right one; ", left.Playbooks) + h
	}
	return h
}

func estimateJSON(v any) int {
	b, err := json.Marshal(v)
	if err != nil {
		return 0
	}
	return estimateTokens(string(b))
}

// deckCursor is where a page starts: the filters it was asked with and, per card type, how many
// selected cards earlier pages showed. It travels as opaque base64 and holds no deck version: a
// card linked or unlinked between two pages shifts the rest by one, as in any offset paging.
type deckCursor struct {
	cardType backend.CardType
	query    string
	offsets  [3]int
}

const cursorVersion = "c1"

func (c deckCursor) encode(next [3]int) string {
	raw := fmt.Sprintf("%s\n%s\n%d,%d,%d\n%s", cursorVersion, c.cardType, next[0], next[1], next[2], c.query)
	return base64.RawURLEncoding.EncodeToString([]byte(raw))
}

func decodeCursor(s string) (deckCursor, bool) {
	raw, err := base64.RawURLEncoding.DecodeString(strings.TrimSpace(s))
	if err != nil {
		return deckCursor{}, false
	}
	parts := strings.SplitN(string(raw), "\n", 4)
	if len(parts) != 4 || parts[0] != cursorVersion {
		return deckCursor{}, false
	}
	var c deckCursor
	c.cardType, c.query = backend.CardType(parts[1]), parts[3]
	if _, err := fmt.Sscanf(parts[2], "%d,%d,%d", &c.offsets[0], &c.offsets[1], &c.offsets[2]); err != nil {
		return deckCursor{}, false
	}
	for _, o := range c.offsets {
		if o < 0 {
			return deckCursor{}, false
		}
	}
	return c, c.cardType == "" || backend.CheckCardType("card_type", c.cardType) == nil
}

// checkDeckPage validates the filters and merges them with the cursor's: a cursor carries the
// card_type and query it was made for, and repeating them is fine, changing them is not.
func checkDeckPage(in DeckPageInput) (deckCursor, error) {
	q := strings.Join(strings.Fields(in.Query), " ")
	if len([]rune(q)) > maxDeckQueryChars {
		return deckCursor{}, backend.Invalid("query", "must be at most %d characters", maxDeckQueryChars)
	}
	if in.CardType != "" {
		if err := backend.CheckCardType("card_type", in.CardType); err != nil {
			return deckCursor{}, err
		}
	}
	cur := deckCursor{cardType: in.CardType, query: q}
	if strings.TrimSpace(in.Cursor) == "" {
		return cur, nil
	}
	c, ok := decodeCursor(in.Cursor)
	if !ok {
		return deckCursor{}, backend.Invalid("cursor", "is not the cursor of a deck page's more section; omit it to start from the first card")
	}
	if (in.CardType != "" && in.CardType != c.cardType) || (q != "" && q != c.query) {
		return deckCursor{}, backend.Invalid("cursor", "was made for card_type %q and query %q; pass the same ones, or none, with it",
			c.cardType, c.query)
	}
	return c, nil
}

// deckIndex is what paging needs of a deck's cards, built once per cached deck: each card's
// compact line and its cost, the cost of full credential and playbook entries (services carry
// live health, so theirs is measured per page), and the lower-cased text a query searches.
type deckIndex struct {
	lines    [3][]string
	lineCost [3][]int
	fullCost [3][]int
	search   [3][]string
	all      [3][]int // 0…n-1 per type: the selection when nothing narrows it
	// svcCost remembers the cost of each service's last full entry: it changes only with live
	// health or tool counts, so a steady deck pays for encoding a service once.
	svcCost []atomic.Pointer[serviceCost]
}

type serviceCost struct {
	entry DeckService
	cost  int
}

// serviceCost is the token cost of service i's full entry ds.
func (ix *deckIndex) serviceCost(ds DeckService, i int) int {
	if c := ix.svcCost[i].Load(); c != nil && sameDeckService(c.entry, ds) {
		return c.cost
	}
	c := &serviceCost{entry: ds, cost: estimateJSON(ds) + 1}
	ix.svcCost[i].Store(c)
	return c.cost
}

// deckIndexOnce builds a deckViews' index on first use.
type deckIndexOnce struct {
	once sync.Once
	ix   *deckIndex
}

func (v *deckViews) index() *deckIndex {
	v.idx.once.Do(func() { v.idx.ix = buildDeckIndex(v) })
	return v.idx.ix
}

func buildDeckIndex(v *deckViews) *deckIndex {
	ix := &deckIndex{}
	add := func(t int, line string, full any, text ...string) {
		ix.lines[t] = append(ix.lines[t], line)
		ix.lineCost[t] = append(ix.lineCost[t], estimateJSON(line)+1)
		if full != nil {
			ix.fullCost[t] = append(ix.fullCost[t], estimateJSON(full)+1)
		}
		ix.search[t] = append(ix.search[t], strings.ToLower(strings.Join(text, "\n")))
	}
	for _, r := range v.records {
		add(0, r.ID+" · "+r.Name, nil, r.ID, r.Name, r.Description)
	}
	for _, c := range v.credentials {
		add(1, c.ID+" · "+c.Label, c, c.ID, c.Label, c.EnvName, strings.Join(c.Tags, "\n"))
	}
	for _, p := range v.playbooks {
		line := p.ID + " · " + p.Title
		if len(p.Triggers) > 0 {
			line += " · triggers: " + strings.Join(p.Triggers, " | ")
		}
		add(2, line, p, p.ID, p.Title, strings.Join(p.Triggers, "\n"))
	}
	ix.svcCost = make([]atomic.Pointer[serviceCost], len(v.records))
	for t := range ix.all {
		ix.all[t] = make([]int, len(ix.lines[t]))
		for i := range ix.all[t] {
			ix.all[t][i] = i
		}
	}
	return ix
}

// selectCards returns, per type, the indexes of the cards the cursor's card type and query keep,
// in deck order.
func (ix *deckIndex) selectCards(cur deckCursor) [3][]int {
	words := strings.Fields(strings.ToLower(cur.query))
	var sel [3][]int
	for t, ct := range backend.CardTypes {
		switch {
		case cur.cardType != "" && cur.cardType != ct:
			sel[t] = []int{}
			continue
		case len(words) == 0:
			sel[t] = ix.all[t] // shared and read-only
			continue
		}
		sel[t] = make([]int, 0, len(ix.search[t]))
		for i, text := range ix.search[t] {
			if matchesAll(text, words) {
				sel[t] = append(sel[t], i)
			}
		}
	}
	return sel
}

func matchesAll(text string, words []string) bool {
	for _, w := range words {
		if !strings.Contains(text, w) {
			return false
		}
	}
	return true
}
