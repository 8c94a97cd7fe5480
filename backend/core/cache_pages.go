package core

import (
	"context"
	"encoding/json"
	"sync"

	"github.com/agent-deck/agent-deck/backend"
)

// maxCachedPages bounds the pages kept per deck version: queries are free text, so a caller
// could otherwise grow the cache without limit. Past it, pages are rendered per call.
const maxCachedPages = 64

// pageKey is everything a page of one deck version depends on besides the live service state:
// the tokens it may use and where and how it starts.
type pageKey struct {
	budget int // what the page itself may cost, after the caller's reserve
	cur    deckCursor
}

// renderedPage is a page and its JSON, rendered once and shared read-only. quoted is the JSON
// without its closing "}", escaped as the body of a JSON string: get_bound_deck's answer is a JSON
// text inside a JSON-RPC message, and escaping 20 KB on every call cost more than the rest.
type renderedPage struct {
	page   DeckPage
	json   []byte
	quoted []byte
}

// pageCache keeps a deck version's rendered pages while the services they show render the same
// (live health and tool counts): a repeated get_bound_deck returns the same bytes without laying
// out or encoding anything. It lives in deckViews, so a change to the deck drops it.
type pageCache struct {
	mu       sync.Mutex
	deck     backend.Deck
	services *[]DeckService // the live rendering the pages were made with
	pages    map[pageKey]*renderedPage
}

// get returns the page rendered for key while deck d and the services are unchanged.
func (c *pageCache) get(d backend.Deck, services *[]DeckService, key pageKey) (*renderedPage, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.services != services || !sameDeck(c.deck, d) {
		return nil, false
	}
	p, ok := c.pages[key]
	return p, ok
}

// put renders page and keeps it for key; pages made with older service renderings are dropped.
func (c *pageCache) put(d backend.Deck, services *[]DeckService, key pageKey, page DeckPage) (*renderedPage, error) {
	raw, err := json.Marshal(page)
	if err != nil {
		return nil, err
	}
	p := &renderedPage{page: page, json: raw, quoted: appendQuoted(nil, raw[:len(raw)-1])}
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.services != services || !sameDeck(c.deck, d) {
		c.deck, c.services, c.pages = d, services, map[pageKey]*renderedPage{}
	}
	if len(c.pages) < maxCachedPages {
		c.pages[key] = p
	}
	return p, nil
}

// cachedDeckPage is deckPage for a deck version's views v, rendered once per page while the
// deck and its services' live state stay the same.
func (s *Hub) cachedDeckPage(ctx context.Context, d backend.Deck, v *deckViews, in DeckPageInput, reserved int) (*renderedPage, error) {
	cur, err := checkDeckPage(in)
	if err != nil {
		return nil, err
	}
	key := pageKey{budget: in.Budget - reserved, cur: cur}
	services := v.rendered(s)
	if p, ok := v.pages.get(d, services, key); ok {
		return p, nil
	}
	page, err := s.deckPage(ctx, d, in, reserved)
	if err != nil {
		return nil, err
	}
	p, err := v.pages.put(d, services, key, page)
	if err != nil {
		return nil, backend.Internal("rendering the deck snapshot", err)
	}
	return p, nil
}

func sameDeck(a, b backend.Deck) bool {
	return a.ID == b.ID && a.Name == b.Name && a.CreatedAt.Equal(b.CreatedAt) && a.UpdatedAt.Equal(b.UpdatedAt)
}

// MarshalJSON writes a bound deck with its page's pre-rendered bytes when it has them: the
// same bytes encoding/json writes for the struct, without encoding the page again.
func (b BoundDeck) MarshalJSON() ([]byte, error) {
	if len(b.pageJSON) < 2 {
		type plain BoundDeck
		return json.Marshal(plain(b))
	}
	badge, err := json.Marshal(b.Badge)
	if err != nil {
		return nil, err
	}
	summary, err := json.Marshal(b.DisplaySummary)
	if err != nil {
		return nil, err
	}
	out := make([]byte, 0, len(b.pageJSON)+len(badge)+len(summary)+32)
	out = append(out, b.pageJSON[:len(b.pageJSON)-1]...) // the page's object without its "}"
	out = append(out, `,"badge":`...)
	out = append(out, badge...)
	out = append(out, `,"display_summary":`...)
	out = append(out, summary...)
	return append(out, '}'), nil
}

// Prerendered reports whether the bound deck carries its page pre-rendered and pre-escaped, so
// AppendQuotedJSON copies rather than encodes.
func (b BoundDeck) Prerendered() bool { return len(b.pageJSON) >= 2 && b.pageQuoted != nil }

// AppendQuotedJSON appends the answer's JSON text (what MarshalJSON returns) as a JSON string,
// quotes included, byte for byte what encoding/json writes for that string; the page's part is
// escaped once per rendered page. ok is false for a bound deck without a pre-rendered page.
func (b BoundDeck) AppendQuotedJSON(dst []byte) (out []byte, ok bool) {
	if !b.Prerendered() {
		return dst, false
	}
	tail, err := json.Marshal(struct {
		Badge          string `json:"badge"`
		DisplaySummary string `json:"display_summary"`
	}{b.Badge, b.DisplaySummary})
	if err != nil {
		return dst, false
	}
	tail[0] = ',' // the page's object continues: `,"badge":...,"display_summary":...}`
	dst = append(dst, '"')
	dst = append(dst, b.pageQuoted...)
	dst = appendQuoted(dst, tail)
	return append(dst, '"'), true
}

// appendQuoted appends s escaped as the body of a JSON string (no quotes), as encoding/json
// escapes it (HTML characters included). Escaping works character by character, so pieces cut
// at ASCII bytes escape to pieces of the whole.
func appendQuoted(dst, s []byte) []byte {
	q, _ := json.Marshal(string(s)) // a string always encodes
	return append(dst, q[1:len(q)-1]...)
}
