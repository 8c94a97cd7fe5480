package core

import (
	"context"
	"log/slog"
	"time"

	"github.com/agent-deck/agent-deck/backend"
	"github.com/agent-deck/agent-deck/backend/secret"
)

// Config holds the knobs of the core, built once by the composition root.
type Config struct {
	// SessionIdleTimeout is how long an MCP session lives without traffic (default 24 h).
	SessionIdleTimeout time.Duration
	// DefaultDeck and DefaultWorkspace pre-bind new sessions (AGENT_DECK_DECK_ID,
	// AGENT_DECK_WORKSPACE).
	DefaultDeck      string
	DefaultWorkspace string
	// DefaultServiceTimeout applies to services without their own timeout (default 60 s).
	DefaultServiceTimeout time.Duration
	// AllowMetadataHosts lets services use link-local and cloud-metadata hosts, refused to
	// everyone by default (AGENT_DECK_ALLOW_METADATA_HOSTS).
	AllowMetadataHosts bool
	// Redactor learns every service secret as targets are built, so log lines can be masked
	// by value (see NewRedactHandler); nil learns nothing.
	Redactor *secret.Redactor
	// MaxSessionsPerToken caps one token's live MCP sessions (default 200); opening one more
	// expires the token's least recently seen session.
	MaxSessionsPerToken int
	// PlaybookFetchRetention is how long get_playbook fetch events are kept (default 90 days).
	PlaybookFetchRetention time.Duration
	// ToolCalls receives every proxied tool call (audit trail, metrics); nil records nothing.
	ToolCalls backend.ToolCallRecorder
	// ServiceOAuth signs in to remote services that require the MCP authorization flow; nil
	// turns service sign-in off.
	ServiceOAuth backend.OAuthFlow
	// ClientMetadataURL is the https URL of Agent Deck's own Client ID Metadata Document, used
	// as its client_id at authorization servers that support such documents
	// (AGENT_DECK_OAUTH_CLIENT_METADATA_URL); empty derives it from an https callback address.
	ClientMetadataURL string
}

// DefaultMaxSessionsPerToken is MaxSessionsPerToken when unset.
const DefaultMaxSessionsPerToken = 200

// Service is the core: one method per use case. REST handlers, MCP tools and CLI commands that do
// the same thing call the same method with the same input; validation and permission checks live
// here, once.
type Hub struct {
	store      backend.Store
	downstream backend.Downstream
	sealer     backend.Sealer
	secrets    sealing
	clock      backend.Clock
	log        *slog.Logger
	cfg        Config
	// cache holds this replica's copies of hot rows, kept current by the Store's change feed.
	cache *caches
	// hashes memoizes tool-definition hashes for pinning (service_toolpins.go).
	hashes *hashMemo
	holds  *holdMemo
	// oauth holds the services' sign-in states for snapshots (oauth_state.go).
	oauth *oauthStates
	// ends announces the end of sessions that made proxied calls here (session_ends.go).
	ends *sessionEnds
}

// NewService wires the core. downstream may be nil until the proxy exists; calls that need it
// then fail with DOWNSTREAM_UNREACHABLE.
func NewHub(store backend.Store, downstream backend.Downstream, sealer backend.Sealer, clock backend.Clock, log *slog.Logger, cfg Config) *Hub {
	if clock == nil {
		clock = time.Now
	}
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	if cfg.SessionIdleTimeout <= 0 {
		cfg.SessionIdleTimeout = 24 * time.Hour
	}
	if cfg.PlaybookFetchRetention <= 0 {
		cfg.PlaybookFetchRetention = DefaultPlaybookFetchRetention
	}
	if cfg.MaxSessionsPerToken <= 0 {
		cfg.MaxSessionsPerToken = DefaultMaxSessionsPerToken
	}
	if cfg.DefaultServiceTimeout <= 0 {
		cfg.DefaultServiceTimeout = 60 * time.Second
	}
	s := &Hub{store: store, downstream: downstream, sealer: sealer, secrets: sealing{sealer: sealer}, clock: clock, log: log, cfg: cfg,
		hashes: newHashMemo(), holds: &holdMemo{}}
	// Caching is safe only with every change announced: the feed runs for the Store's
	// lifetime, and until it listens (or whenever it stops) every read goes to the Store.
	s.cache = newCaches()
	s.oauth = s.cache.oauth
	s.store = &invalidatingStore{Store: store, c: s.cache}
	s.ends = &sessionEnds{hub: s}
	store.Subscribe(context.Background(), func(ch backend.Change) {
		s.cache.apply(ch)
		s.ends.apply(ch)
	})
	return s
}

// Store is the hub's store: its writes keep this replica's caches current, so a component that
// writes beside the hub (the OAuth authorization server) goes through it.
func (s *Hub) Store() backend.Store { return s.store }

// FindDeck finds a deck by id or exact name.
func (s *Hub) FindDeck(ctx context.Context, ref string) (backend.Deck, error) {
	return s.deckByRef(ctx, s.store, ref)
}

// withStore returns a copy of the service whose store is tx, so use cases compose inside one
// transaction.
func (s *Hub) withStore(tx backend.Store) *Hub {
	c := *s
	c.store = tx
	return &c
}

// Ready reports whether the service can serve requests (the database answers).
func (s *Hub) Ready(ctx context.Context) error {
	if err := s.store.Ping(ctx); err != nil {
		if backend.ErrorCode(err) == backend.CodeCanceled {
			return err
		}
		return &backend.Error{Code: backend.CodeUnavailable, Message: "database unavailable", Err: err}
	}
	return nil
}
