package backend

import (
	"context"
	"log/slog"
	"time"
)

// Clock lets tests control time; the real one is time.Now.
type Clock func() time.Time

// Sealer encrypts and decrypts secrets at rest (AES-256-GCM, see NewSealer).
type Sealer interface {
	Seal(plaintext []byte) ([]byte, error)
	Open(sealed []byte) ([]byte, error)
}

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
}

// Service is the core: one method per use case. REST handlers, MCP tools and CLI commands that do
// the same thing call the same method with the same input; validation and permission checks live
// here, once.
type Service struct {
	store      Store
	downstream Downstream
	sealer     Sealer
	clock      Clock
	log        *slog.Logger
	cfg        Config
	// cache holds this replica's copies of hot rows; nil when the Store has no ChangeFeed.
	cache *caches
	// linked is the Store's one-round-trip snapshot loader, if it has one.
	linked LinkedCardsLoader
}

// NewService wires the core. downstream may be nil until the proxy exists; calls that need it
// then fail with DOWNSTREAM_UNREACHABLE.
func NewService(store Store, downstream Downstream, sealer Sealer, clock Clock, log *slog.Logger, cfg Config) *Service {
	if clock == nil {
		clock = time.Now
	}
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	if cfg.SessionIdleTimeout <= 0 {
		cfg.SessionIdleTimeout = 24 * time.Hour
	}
	if cfg.DefaultServiceTimeout <= 0 {
		cfg.DefaultServiceTimeout = 60 * time.Second
	}
	s := &Service{store: store, downstream: downstream, sealer: sealer, clock: clock, log: log, cfg: cfg}
	s.linked, _ = store.(LinkedCardsLoader)
	if feed, ok := store.(ChangeFeed); ok {
		// Caching is safe only with every change announced: the feed runs for the Store's
		// lifetime, and until it listens (or whenever it stops) every read goes to the Store.
		s.cache = newCaches()
		s.store = &invalidatingStore{Store: store, c: s.cache}
		feed.Subscribe(context.Background(), s.cache.apply)
	}
	return s
}

// Ready reports whether the service can serve requests (the database answers).
func (s *Service) Ready(ctx context.Context) error {
	if err := s.store.Ping(ctx); err != nil {
		if ErrorCode(err) == CodeCanceled {
			return err
		}
		return &Error{Code: CodeUnavailable, Message: "database unavailable", Err: err}
	}
	return nil
}
