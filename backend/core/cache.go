package core

import (
	"sync"
	"time"

	"github.com/agent-deck/agent-deck/backend"
)

// maxCacheEntries bounds each cache map; a full map is emptied rather than tracked for LRU,
// which is cheap and, at team scale, rare.
const maxCacheEntries = 4096

// serviceEntry is a service with the target built from it (secrets decrypted, credential
// resolved), valid until the service or any credential changes.
type serviceEntry struct {
	rec    backend.ServiceRecord
	target backend.Target
}

// caches holds this replica's copies of the rows every request reads. They are used only while
// the change feed is listening: then every change is announced and dropped here, by this
// replica synchronously after its own writes and by the feed for the others'. A fill carries
// the generation read before its database read and is refused if anything was invalidated
// since, so a read that raced a write never caches the old row.
type caches struct {
	// watchers are told of every change (Hub.Watch); watchMu guards them.
	watchMu  sync.Mutex
	watchers []func(backend.Change)

	mu       sync.Mutex
	live     bool
	gen      uint64
	tokens   map[string]backend.TokenRecord // by string(hash)
	sessions map[string]backend.MCPSession  // live sessions by id
	services map[string]serviceEntry        // by service id
	links    map[string][]backend.CardLink  // deck id → its links
	decks    map[string]deckEntry           // deck id → the deck and its snapshot cards
	deckRefs map[string]string              // lower-cased deck name (or id) asked for → deck id

	// pins maps a service id to its tool pins by tool name (service_toolpins.go).
	pins map[string]map[string]backend.ToolPin
	// plans are proxied calls' plans by deck and service (service_call.go); any change may
	// touch what one was built from, so every invalidation drops them all.
	plans map[string]*callPlan
	// personCards are the cards each member reaches through the decks they may use
	// (person_view.go); any change may touch them, so every invalidation drops them all.
	personCards map[string]backend.PersonCards

	// projections are decks' projected-tools settings by deck id (deck_projection.go).
	projections map[string]projectionEntry

	// oauth is the services' sign-in states the snapshot shows (oauth_state.go): a sign-in
	// made on another replica arrives as a change of its service and drops the state here.
	oauth *oauthStates

	// changed, when set, hears every change after the caches dropped what it made stale, from
	// this replica's writes and from the feed ("" when the feed starts listening): the held
	// secrets follow it (secrets_held.go). It may read the Store.
	changed func(table, id string)
}

func newCaches() *caches {
	c := &caches{oauth: &oauthStates{}}
	c.resetLocked()
	return c
}

func (c *caches) resetLocked() {
	c.gen++
	c.tokens = map[string]backend.TokenRecord{}
	c.sessions = map[string]backend.MCPSession{}
	c.services = map[string]serviceEntry{}
	c.links = map[string][]backend.CardLink{}
	c.decks = map[string]deckEntry{}
	c.deckRefs = map[string]string{}
	c.pins = map[string]map[string]backend.ToolPin{}
	c.plans = map[string]*callPlan{}
	c.projections = map[string]projectionEntry{}
	c.personCards = map[string]backend.PersonCards{}
	c.oauth.forget("")
}

// generation returns the stamp a fill must carry; ok is false while caches are bypassed.
func (c *caches) generation() (uint64, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.gen, c.live
}

func cacheGet[V any](c *caches, m func(*caches) map[string]V, key string) (V, bool) {
	var zero V
	c.mu.Lock()
	defer c.mu.Unlock()
	if !c.live {
		return zero, false
	}
	v, ok := m(c)[key]
	return v, ok
}

func cachePut[V any](c *caches, m func(*caches) map[string]V, gen uint64, key string, v V) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if !c.live || gen != c.gen {
		return
	}
	mm := m(c)
	if len(mm) >= maxCacheEntries {
		clear(mm)
	}
	mm[key] = v
}

func tokenMap(c *caches) map[string]backend.TokenRecord  { return c.tokens }
func sessionMap(c *caches) map[string]backend.MCPSession { return c.sessions }
func serviceMap(c *caches) map[string]serviceEntry       { return c.services }
func linkMap(c *caches) map[string][]backend.CardLink    { return c.links }

func pinMap(c *caches) map[string]map[string]backend.ToolPin { return c.pins }

// projectionEntry is a deck's projection setting as read: on, and its caps.
type projectionEntry struct {
	p  backend.DeckProjection
	on bool
}

func projectionMap(c *caches) map[string]projectionEntry { return c.projections }

// setLive switches caching on or off; either way everything cached is dropped, since changes
// may have been missed while the feed was down.
func (c *caches) setLive(live bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.live = live
	c.resetLocked()
}

// apply handles one feed event.
func (c *caches) apply(ch backend.Change) {
	if ch.Table == "" {
		c.setLive(ch.Listening)
		if ch.Listening && c.changed != nil {
			c.changed("", "")
		}
		c.announce(ch) // changes may have been missed: watchers look at everything again
		return
	}
	c.invalidate(ch.Table, ch.ID)
}

// watch adds fn to the functions told of every change, after what it made stale is dropped.
func (c *caches) watch(fn func(backend.Change)) {
	c.watchMu.Lock()
	defer c.watchMu.Unlock()
	c.watchers = append(c.watchers, fn)
}

// announce tells the watchers of a change.
func (c *caches) announce(ch backend.Change) {
	c.watchMu.Lock()
	fns := c.watchers
	c.watchMu.Unlock()
	for _, fn := range fns {
		fn(ch)
	}
}

// invalidate drops what a change to the row may have made stale, then tells whoever follows
// changes.
func (c *caches) invalidate(table, id string) {
	c.drop(table, id)
	if c.changed != nil {
		c.changed(table, id)
	}
	c.announce(backend.Change{Table: table, ID: id})
}

// drop drops what a change to the row may have made stale. Writes are rare next to reads, so it
// errs broad: any card change drops every service target and deck.
func (c *caches) drop(table, id string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.gen++
	clear(c.plans)
	clear(c.personCards)
	switch table {
	case "tokens":
		clear(c.tokens)
	case "mcp_sessions":
		if id == "" {
			clear(c.sessions)
		}
		delete(c.sessions, id)
	case "deck_cards":
		delete(c.links, id)
		delete(c.decks, id)
		delete(c.projections, id)
	case "decks":
		// A session shows its deck's name, and a deleted deck unbinds its sessions; any deck
		// change may change what a name resolves to.
		clear(c.sessions)
		clear(c.deckRefs)
		delete(c.links, id)
		delete(c.decks, id)
		delete(c.projections, id)
	case "service_tool_pins":
		delete(c.pins, id)
	case "rate_limit_settings":
		// Only plans carry limits, and they are all dropped above.
	case "services", "credentials", "playbooks":
		if table == "services" {
			c.oauth.forget(id)
		}
		clear(c.services)
		clear(c.links)
		clear(c.decks)
	default:
		c.resetLocked()
	}
}

// touchSession records a last-seen time this replica wrote, so the cached row stays current.
func (c *caches) touchSession(id string, at time.Time) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if m, ok := c.sessions[id]; ok && at.After(m.LastSeenAt) {
		m.LastSeenAt = at
		c.sessions[id] = m
	}
}

// touchToken records a last-used time this replica wrote, so the next use is throttled.
func (c *caches) touchToken(key string, at time.Time) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if t, ok := c.tokens[key]; ok {
		t.LastUsedAt = &at
		c.tokens[key] = t
	}
}
