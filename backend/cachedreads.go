package backend

import "context"

// deckEntry is a deck with its snapshot views, cached together.
type deckEntry struct {
	deck  Deck
	views *deckViews
}

func deckMap(c *caches) map[string]deckEntry { return c.decks }

// cachedDeck returns a cached deck when ref is its id.
func (s *Service) cachedDeck(ref string) (Deck, bool) {
	e, ok := cacheGet(s.cache, deckMap, ref)
	return e.deck, ok
}

// deckViews returns what a snapshot of the deck shows, from the cache when it holds it.
func (s *Service) deckViews(ctx context.Context, d Deck) (*deckViews, error) {
	if e, ok := cacheGet(s.cache, deckMap, d.ID); ok {
		return e.views, nil
	}
	gen, _ := s.cache.generation()
	var cards LinkedCards
	var err error
	if s.linked != nil {
		cards, err = s.linked.LinkedCards(ctx, d.ID)
		err = storeErr("loading deck cards", err)
	} else {
		cards, err = linkedCardsByLists(ctx, s.store, d.ID)
	}
	if err != nil {
		return nil, err
	}
	v := newDeckViews(cards)
	cachePut(s.cache, deckMap, gen, d.ID, deckEntry{deck: d, views: v})
	return v, nil
}

// deckLinks returns the deck's links from the cache when it holds them; callers only read them.
func (s *Service) deckLinks(ctx context.Context, deckID string) ([]CardLink, error) {
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
func (s *Service) cachedServiceTarget(ref string) (ServiceRecord, Target, bool) {
	e, ok := cacheGet(s.cache, serviceMap, ref)
	return e.rec, e.target, ok
}

// tokenByHash finds a token, from the cache when it holds it.
func (s *Service) tokenByHash(ctx context.Context, hash []byte) (TokenRecord, error) {
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

// liveSession finds a live session, from the cache when it holds it.
func (s *Service) liveSession(ctx context.Context, id string) (MCPSession, bool, error) {
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
