package backend

import "context"

// Change is one row change announced by the database, or a change of the feed's own state.
// Table is the table name ("tokens", "mcp_sessions", "services", "credentials", "playbooks",
// "decks", "deck_cards") and ID the row's id (for deck_cards, the deck's). Table is empty for a
// feed state change: Listening then says whether changes are being delivered.
type Change struct {
	Table     string
	ID        string
	Listening bool
}

// ChangeFeed is an optional Store capability: announcing every committed change to the rows
// the core caches, from this replica and from every other one sharing the database. With it the
// core keeps per-replica caches of tokens, sessions, services and decks; without it (or while
// the feed is not listening) every request reads the Store.
type ChangeFeed interface {
	// Subscribe starts listening in the background and returns at once; it calls fn for each
	// change until ctx ends or the Store closes. It first reports Listening true once changes
	// flow, Listening false whenever they may have been missed (connection lost), and Listening
	// true again when they flow again.
	Subscribe(ctx context.Context, fn func(Change))
}
