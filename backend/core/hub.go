package core

import (
	"context"
	"log/slog"
	"time"

	"github.com/agent-deck/agent-deck/backend"
	"github.com/agent-deck/agent-deck/backend/ratelimit"
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
	// Redactor learns every secret the server holds (secrets_held.go) and every target's as it
	// is built, so log lines and stored agent text can be masked by value (see
	// NewRedactHandler); nil learns nothing.
	Redactor *secret.Redactor
	// MaxSessionsPerToken caps one token's live MCP sessions (default 200); opening one more
	// expires the token's least recently seen session.
	MaxSessionsPerToken int
	// PlaybookReview is the server's default for decks without their own setting: whether an
	// agent token's playbook writes become proposals a person accepts (playbook_review.go).
	// Off by default, so one person's agents edit as they always did.
	PlaybookReview bool
	// PlaybookFetchRetention is how long get_playbook fetch events are kept (default 90 days).
	PlaybookFetchRetention time.Duration
	// ToolCalls receives every proxied tool call (audit trail, metrics); nil records nothing.
	ToolCalls backend.ToolCallRecorder
	// ServiceOAuth signs in to remote services that require the MCP authorization flow; nil
	// turns service sign-in off.
	ServiceOAuth backend.OAuthFlow
	// ToolRanker ranks tools for list_service_tools' query (toolsearch); nil turns search off.
	ToolRanker backend.ToolRanker
	// Limiter bounds proxied calls per token and per (deck, service) across replicas
	// (service_call_limits.go); nil limits nothing.
	Limiter *ratelimit.Limiter
	// TokenLimits bound every token's proxied calls; ServiceLimits are the default bounds of a
	// service's calls through a deck, which a deck, a service or the pair may override. Zero
	// limits nothing.
	TokenLimits, ServiceLimits ratelimit.Limits
	// ClientMetadataURL is the https URL of Agent Deck's own Client ID Metadata Document, used
	// as its client_id at authorization servers that support such documents
	// (AGENT_DECK_OAUTH_CLIENT_METADATA_URL); empty derives it from an https callback address.
	ClientMetadataURL string
	// Markdown renders previews for the dashboard; nil answers previews UNAVAILABLE.
	Markdown backend.MarkdownRenderer
}

// DefaultMaxSessionsPerToken is MaxSessionsPerToken when unset.
const DefaultMaxSessionsPerToken = 200

// Service is the core: one method per use case. REST handlers, MCP tools and CLI commands that do
// the same thing call the same method with the same input; validation and permission checks live
// here, once.
type Hub struct {
	store backend.Store
	// rawStore is the Store without the person's view, for the view's own lookups.
	rawStore   backend.Store
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
	// indexes are the tool search indexes in use (service_search.go).
	indexes *indexCache
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
		hashes: newHashMemo(), indexes: newIndexCache(), holds: &holdMemo{}}
	// Caching is safe only with every change announced: the feed runs for the Store's
	// lifetime, and until it listens (or whenever it stops) every read goes to the Store.
	s.cache = newCaches()
	s.cache.changed = s.relearnHeld
	s.oauth = s.cache.oauth
	s.rawStore = store
	s.store = &invalidatingStore{Store: &personView{Store: store, c: s.cache}, c: s.cache}
	s.ends = &sessionEnds{hub: s}
	store.Subscribe(context.Background(), func(ch backend.Change) {
		s.cache.apply(ch)
		s.ends.apply(ch)
	})
	return s
}

// ChangeDownstreamTools is the Change.Table of a downstream's announcement that its tool list
// changed (Hub.DownstreamToolsChanged); the ID is the service's.
const ChangeDownstreamTools = "downstream_tools"

// Watch calls fn after every change this replica learns of, its own writes and (through the
// change feed) the other replicas', once what the change made stale is dropped; and after a
// downstream announces a new tool list. A Change with no Table means changes may have been
// missed: look at everything again. fn runs on the writer's goroutine and must not block.
func (s *Hub) Watch(fn func(backend.Change)) {
	s.cache.watch(fn)
}

// DownstreamToolsChanged is told by the proxy that a service announced a new tool list
// (notifications/tools/list_changed); watchers hear of it.
func (s *Hub) DownstreamToolsChanged(serviceID string) {
	s.cache.announce(backend.Change{Table: ChangeDownstreamTools, ID: serviceID})
}

// Close releases what the hub holds in memory beyond its caches: the tool search indexes.
func (s *Hub) Close() {
	s.indexes.close()
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
