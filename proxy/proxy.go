// Package proxy reaches the downstream MCP servers behind Agent Deck's service cards: remote
// ones over Streamable HTTP (or SSE), local ones as supervised child processes over stdio. It
// keeps one connection per service (and per credential a deck chooses for it), shared by every
// agent session whatever it declared, carries what a downstream sends back to the session whose
// call caused it (relay.go, floor.go), caches tool lists raw, validates arguments before
// forwarding, and classifies every failure. It implements backend.Downstream.
package proxy

import (
	"context"
	"log/slog"
	"os"
	"path/filepath"
	"sync"
	"time"

	"github.com/agent-deck/agent-deck/backend"
)

// Options configures the proxy. Zero values take the defaults noted on each field.
type Options struct {
	// Home is the data home; results over MaxResultBytes are written to Home/tool-results
	// (default: a directory under the system temp dir).
	Home string
	// Logger receives connection and failure events, never secrets or argument values.
	Logger *slog.Logger
	// ConnectTimeout bounds opening one connection, handshake included (default 10 s).
	ConnectTimeout time.Duration
	// ToolsTTL is how long a fetched tool list is trusted without a list_changed (default 5 min).
	ToolsTTL time.Duration
	// IdleTimeout stops a local server that served no call for this long (default 10 min).
	IdleTimeout time.Duration
	// SessionLinger stops a local server this long after the last agent session that called it
	// ended, when nothing called it since (default 5 s).
	SessionLinger time.Duration
	// MaxResultBytes is the largest result returned inline (default 48 KB).
	MaxResultBytes int
	// ResultHardCap is the largest downstream message read at all (default 32 MiB): a result
	// over it is cut off as it arrives and the call fails with DOWNSTREAM_RESULT_TOO_LARGE.
	ResultHardCap int
	// ResultMemory bounds the memory of downstream answers held at once, across all calls and
	// services (default and least: 4 × ResultHardCap, 128 MiB); a read with no room waits for
	// one (budget.go).
	ResultMemory int64
	// ResultDirCap bounds the total size of spilled result files (default 1 GiB); the oldest
	// are deleted first.
	ResultDirCap int64
	// ResultRetention is how long a spilled result file is kept before it is deleted
	// (default 24 h), so tool-results does not grow without bound.
	ResultRetention time.Duration
	// RestartBackoff spaces reconnects after consecutive failures (default 500 ms .. 30 s).
	// The first reconnect after a failure is immediate.
	RestartBackoff Backoff
	// StderrBytes is how much of a local server's stderr is kept for health (default 8 KB).
	StderrBytes int
	// DefaultTimeout is a call's deadline when the target sets none (default 60 s).
	DefaultTimeout time.Duration
	// Launcher, when set, is the argv prefix of the launcher every local server is started
	// through (see launcher.go): the agent-deck binary and its hidden launch command. Empty starts
	// local servers directly, in their own group with Pdeathsig, which leaves what they start
	// behind if the deck is killed outright.
	Launcher []string
	// Version is announced to downstream servers as the client version (default "dev").
	Version string
	// Events receives local server starts and crashes and result spills (events.go).
	Events Events
	// Tracing makes a span of each downstream call and propagates its context (tracing.go).
	Tracing Tracing
	// ToolsChanged, when set, is told the id of a service whose server announced that its tool
	// list changed (the list is fetched again on next use). It must not block.
	ToolsChanged func(serviceID string)
	// ToolsListed, when set, is told of every full tool list read afresh from a service, with the
	// target's connection key (Target.ConnKey, else the service id), before any caller uses it.
	// Callers of that service wait for it: it should be quick.
	ToolsListed func(serviceID, connKey string, tools []backend.DownstreamTool)
	// Network resolves and dials remote services (default: the system's; network.go).
	Network Network
	// noDirectPost sends every request through mcp-go's transport (post.go's parity test).
	noDirectPost bool
}

// MinResultMemory is the least (and default) ResultMemory for a hard cap: room for two whole
// answers, so one can always be read while others wait (budget.go).
func MinResultMemory(hardCap int) int64 { return 2 * heldCopies * int64(hardCap) }

// Backoff is the range of delays between reconnect attempts.
type Backoff struct {
	Min, Max time.Duration
}

// protocolVersion is the MCP revision downstream clients ask for: the newest one with sessions.
const protocolVersion = "2025-11-25"

// Proxy is the live set of downstream connections. It is safe for concurrent use; no lock is
// held while talking to a downstream, so one slow or broken service never delays another.
type Proxy struct {
	opts   Options
	log    *slog.Logger
	ctx    context.Context
	cancel context.CancelFunc
	wg     sync.WaitGroup
	// spillMu serialises keeping the spill folder under its cap.
	spillMu sync.Mutex
	// budget bounds the answers held in memory at once.
	budget *budget

	// progress maps a downstream progress token to its call (relay.go).
	progress   sync.Map
	progressMu sync.Mutex

	mu       sync.Mutex
	closed   bool
	services map[string]*service
}

var _ backend.Downstream = (*Proxy)(nil)

// New returns a proxy with no connection open yet; connections open on first use. Close stops
// every connection and local server.
func New(opts Options) *Proxy {
	opts = withDefaults(opts)
	ctx, cancel := context.WithCancel(context.Background())
	p := &Proxy{opts: opts, log: opts.Logger, ctx: ctx, cancel: cancel, services: map[string]*service{},
		budget: newBudget(opts.ResultMemory, int64(opts.ResultHardCap))}
	p.pruneResults(time.Now())
	idleEvery := max(min(opts.IdleTimeout/4, time.Minute), 10*time.Millisecond)
	p.every(idleEvery, p.reapIdle)
	p.every(max(min(opts.ResultRetention/4, time.Hour), time.Second), p.pruneResults)
	return p
}

func withDefaults(o Options) Options {
	if o.Logger == nil {
		o.Logger = slog.New(slog.DiscardHandler)
	}
	if o.Home == "" {
		o.Home = filepath.Join(os.TempDir(), "agent-deck")
	}
	setDur := func(d *time.Duration, def time.Duration) {
		if *d <= 0 {
			*d = def
		}
	}
	setDur(&o.ConnectTimeout, 10*time.Second)
	setDur(&o.ToolsTTL, 5*time.Minute)
	setDur(&o.IdleTimeout, 10*time.Minute)
	setDur(&o.SessionLinger, 5*time.Second)
	setDur(&o.ResultRetention, 24*time.Hour)
	setDur(&o.DefaultTimeout, 60*time.Second)
	setDur(&o.RestartBackoff.Min, 500*time.Millisecond)
	setDur(&o.RestartBackoff.Max, 30*time.Second)
	if o.RestartBackoff.Max < o.RestartBackoff.Min {
		o.RestartBackoff.Max = o.RestartBackoff.Min
	}
	if o.MaxResultBytes <= 0 {
		o.MaxResultBytes = 48 * 1024
	}
	if o.ResultHardCap <= 0 {
		o.ResultHardCap = 32 << 20
	}
	o.ResultMemory = max(o.ResultMemory, MinResultMemory(o.ResultHardCap))
	if o.ResultDirCap <= 0 {
		o.ResultDirCap = 1 << 30
	}
	if o.StderrBytes <= 0 {
		o.StderrBytes = 8 * 1024
	}
	if o.Version == "" {
		o.Version = "dev"
	}
	o.Network = o.Network.withDefaults(o.ConnectTimeout)
	return o
}

// goOwned runs fn in a goroutine that Close waits for, and reports false (not running fn) once
// the proxy is closed.
func (p *Proxy) goOwned(fn func()) bool {
	p.mu.Lock()
	if p.closed {
		p.mu.Unlock()
		return false
	}
	p.wg.Add(1)
	p.mu.Unlock()
	go func() {
		defer p.wg.Done()
		fn()
	}()
	return true
}

// service returns the state of t's connection, creating it on first use. Connections are keyed
// by t.ConnKey when set (a deck presenting its own credential), else by the service id.
func (p *Proxy) service(t backend.Target) (*service, error) {
	key := connKey(t)
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.closed {
		return nil, errClosed
	}
	s := p.services[key]
	if s == nil {
		s = newService(p, t.ServiceID, t.ServiceName)
		p.services[key] = s
	}
	return s, nil
}

func connKey(t backend.Target) string {
	if t.ConnKey != "" {
		return t.ConnKey
	}
	return t.ServiceID
}

func (p *Proxy) lookup(id string) *service {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.services[id]
}

// Status returns what is known of a service without any I/O.
func (p *Proxy) Status(serviceID string) (backend.DownstreamStatus, bool) {
	s := p.lookup(serviceID)
	if s == nil {
		return backend.DownstreamStatus{}, false
	}
	return s.status(), true
}

// Forget closes the service's connections, its own and those of decks presenting their own
// credential (stopping its local servers), and drops their caches.
func (p *Proxy) Forget(serviceID string) {
	p.mu.Lock()
	var gone []*service
	for key, s := range p.services {
		if s.id == serviceID {
			gone = append(gone, s)
			delete(p.services, key)
		}
	}
	p.mu.Unlock()
	for _, s := range gone {
		s.detach()
	}
}

// closeAsync shuts a connection down in the background (owned by the proxy).
// Once the proxy is closed it shuts c down in the caller's goroutine; callers never hold a lock.
func (p *Proxy) closeAsync(c *conn) {
	stop := func() {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		c.shutdown(ctx)
	}
	if !p.goOwned(stop) {
		stop()
	}
}

// Close stops every connection and every local server with its process group. When ctx ends
// first, remaining servers are killed at once.
func (p *Proxy) Close(ctx context.Context) error {
	p.mu.Lock()
	if p.closed {
		p.mu.Unlock()
		return nil
	}
	p.closed = true
	all := p.services
	p.services = map[string]*service{}
	p.mu.Unlock()
	p.cancel()

	var wg sync.WaitGroup
	for _, s := range all {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if c := s.takeConn(); c != nil {
				c.shutdown(ctx)
			}
		}()
	}
	wg.Wait()
	done := make(chan struct{})
	go func() { p.wg.Wait(); close(done) }()
	select {
	case <-done:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// reapIdle stops local servers that have been idle longer than IdleTimeout.
func (p *Proxy) reapIdle(now time.Time) {
	p.mu.Lock()
	all := make([]*service, 0, len(p.services))
	for _, s := range p.services {
		all = append(all, s)
	}
	p.mu.Unlock()
	for _, s := range all {
		s.reapIfIdle(now, p.opts.IdleTimeout)
	}
}

// SessionEnded lets go of an ended agent session on every service: a local server only ended
// sessions were using is stopped after SessionLinger.
func (p *Proxy) SessionEnded(sessionID string) {
	p.mu.Lock()
	all := make([]*service, 0, len(p.services))
	for _, s := range p.services {
		all = append(all, s)
	}
	p.mu.Unlock()
	for _, s := range all {
		s.sessionEnded(sessionID)
	}
}

// every runs fn on a ticker in a goroutine owned by the proxy, until Close.
func (p *Proxy) every(d time.Duration, fn func(now time.Time)) {
	p.wg.Add(1)
	go func() {
		defer p.wg.Done()
		tick := time.NewTicker(d)
		defer tick.Stop()
		for {
			select {
			case <-p.ctx.Done():
				return
			case now := <-tick.C:
				fn(now)
			}
		}
	}()
}
