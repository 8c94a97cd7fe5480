package core

import (
	"context"
	"strings"

	"github.com/agent-deck/agent-deck/backend"
)

// deckEntry is a deck with its snapshot views, cached together; views is nil until a snapshot
// of the deck is asked for (a proxied call needs only the deck).
type deckEntry struct {
	deck  backend.Deck
	views *deckViews
}

func deckMap(c *caches) map[string]deckEntry { return c.decks }

func deckRefMap(c *caches) map[string]string { return c.deckRefs }

// cachedDeck returns a cached deck when ref is its id or a name it was last found by.
func (s *Hub) cachedDeck(ref string) (backend.Deck, bool) {
	if e, ok := cacheGet(s.cache, deckMap, ref); ok {
		return e.deck, true
	}
	id, ok := cacheGet(s.cache, deckRefMap, strings.ToLower(strings.TrimSpace(ref)))
	if !ok {
		return backend.Deck{}, false
	}
	e, ok := cacheGet(s.cache, deckMap, id)
	return e.deck, ok
}

// deckByRefCached is deckByRef remembering what a name resolved to, until any deck changes.
// The cache is the replica's, not the caller's: a cached deck a member may not use is looked
// up again through the person's view, which answers NOT_FOUND naming the member's decks.
func (s *Hub) deckByRefCached(ctx context.Context, ref string) (backend.Deck, error) {
	if d, ok := s.cachedDeck(ref); ok && mayUseDeck(ctx, d) {
		return d, nil
	}
	gen, _ := s.cache.generation()
	d, err := s.deckByRef(ctx, s.store, ref)
	if err == nil {
		cachePut(s.cache, deckRefMap, gen, strings.ToLower(strings.TrimSpace(ref)), d.ID)
		cachePut(s.cache, deckMap, gen, d.ID, deckEntry{deck: d})
	}
	return d, err
}

// deckViews returns what a snapshot of the deck shows, from the cache when it holds it.
func (s *Hub) deckViews(ctx context.Context, d backend.Deck) (*deckViews, error) {
	if e, ok := cacheGet(s.cache, deckMap, d.ID); ok && e.views != nil {
		return e.views, nil
	}
	gen, _ := s.cache.generation()
	cards, err := s.store.LinkedCards(ctx, d.ID)
	if err != nil {
		return nil, backend.StoreErr("loading deck cards", err)
	}
	s.signIn().loadOAuthStates(ctx, cards.Services)
	v := newDeckViews(cards)
	cachePut(s.cache, deckMap, gen, d.ID, deckEntry{deck: d, views: v})
	return v, nil
}

// deckLinks returns the deck's links from the cache when it holds them; callers only read them.
func (s *Hub) deckLinks(ctx context.Context, deckID string) ([]backend.CardLink, error) {
	if links, ok := cacheGet(s.cache, linkMap, deckID); ok {
		return links, nil
	}
	gen, _ := s.cache.generation()
	links, err := s.store.ListLinks(ctx, deckID)
	if err != nil {
		return nil, err
	}
	cachePut(s.cache, linkMap, gen, deckID, links)
	return links, nil
}

// cachedServiceTarget returns the service and its target when ref is a cached service's id.
func (s *Hub) cachedServiceTarget(ref string) (backend.ServiceRecord, backend.Target, bool) {
	e, ok := cacheGet(s.cache, serviceMap, ref)
	return e.rec, e.target, ok
}

// tokenByHash finds a token, from the cache when it holds it.
func (s *Hub) tokenByHash(ctx context.Context, hash []byte) (backend.TokenRecord, error) {
	key := string(hash)
	if t, ok := cacheGet(s.cache, tokenMap, key); ok {
		return t, nil
	}
	gen, _ := s.cache.generation()
	t, err := s.store.TokenByHash(ctx, hash)
	if err == nil {
		cachePut(s.cache, tokenMap, gen, key, t)
	}
	return t, err
}

// SessionCached reports whether this replica's cache holds session id, so that reading it is a
// map lookup: the MCP endpoint then reads it inline instead of handing it to a goroutine.
func (s *Hub) SessionCached(id string) bool {
	_, ok := cacheGet(s.cache, sessionMap, id)
	return ok
}

// liveSession finds a live session, from the cache when it holds it.
func (s *Hub) liveSession(ctx context.Context, id string) (backend.MCPSession, bool, error) {
	if m, ok := cacheGet(s.cache, sessionMap, id); ok {
		return m, true, nil
	}
	gen, _ := s.cache.generation()
	m, err := s.store.GetSession(ctx, id)
	if err == nil {
		cachePut(s.cache, sessionMap, gen, id, m)
	}
	return m, false, err
}

// mayUseDeck reports whether the caller may use the deck (always, for admins).
func mayUseDeck(ctx context.Context, d backend.Deck) bool {
	m, ok := backend.Member(ctx)
	return !ok || m.MayUseDeck(d)
}
