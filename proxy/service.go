package proxy

import (
	"context"
	"sync"
	"sync/atomic"
	"time"

	"github.com/agent-deck/agent-deck/backend"
)

// This file manages a service's connection: the target's notes (fingerprint, secrets, disabled
// tools), picking or opening the shared connection, dropping a dead one, restart backoff and
// stopping an idle local server. One request's path through it is in call.go.

// service is the proxy's state for one service card: its shared connection, tool list cache,
// health and restart bookkeeping. mu guards the fields below it and is never held during I/O.
type service struct {
	p      *Proxy
	id     string
	stderr *ring
	// lastSuccess is a UnixNano, kept outside mu so the hot path does not lock for it.
	lastSuccess atomic.Int64
	// clean is true while health is healthy with no failure pending, so a success need not lock.
	clean atomic.Bool
	// talksBack is set once the downstream sent a request the floor could not attribute at
	// once, or asked for roots: from then on its calls take turns by session (floor.go).
	talksBack atomic.Bool
	// epoch counts what may have changed the downstream's tool definitions: a connection
	// opened, or the downstream announced list_changed. A tool list remembers the epoch it was
	// read in and the connection it was read on; a call goes out only while both still hold
	// (toolSet.current), so no call runs against a definition the core has not compared.
	epoch atomic.Uint64
	// refusals counts tools/calls refused a new TCP connection (conn.dialer): such a call goes
	// out only after a list that started after its refusal.
	refusals atomic.Uint64
	// births counts the TCP connections dialed to a remote service: a connection's birth orders
	// it against the tool lists (births.go).
	births atomic.Uint64

	mu       sync.Mutex
	name     string
	fp       string
	scrub    *scrubber
	disabled map[string]bool
	conn     *conn
	failures int
	// timeouts counts consecutive call timeouts.
	timeouts int
	retryAt  time.Time
	lastErr  error
	health   backend.Health
	list     *toolSet
	stale    bool
	listing  chan struct{}
	listErr  error
	// toolsGen counts replacements of list and disabled (neither is changed in place).
	toolsGen uint64
	// statusTools is list rendered with the disabled set at generation statusGen, shared
	// read-only by Status callers until either is replaced: health is read on every call, the
	// tools rarely change.
	statusTools []backend.DownstreamTool
	statusGen   uint64
}

func newService(p *Proxy, id, name string) *service {
	return &service{
		p: p, id: id, name: name,
		stderr: newRing(p.opts.StderrBytes),
		health: backend.Health{Status: backend.HealthUnknown},
	}
}

// note records what this call's target says about the service: its name, its secrets (for
// scrubbing) and its disabled tools. It returns the connection fingerprint and scrubber.
func (s *service) note(t backend.Target) (string, *scrubber) {
	fp := fingerprint(t)
	if t.TalksBack && !s.talksBack.Load() {
		s.talksBack.Store(true)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if t.ServiceName != "" {
		s.name = t.ServiceName
	}
	if fp != s.fp || s.scrub == nil {
		if s.fp != "" {
			s.stale = true // another server, perhaps: its tools are not these
		}
		s.fp = fp
		s.scrub = newScrubber(t)
	}
	if len(t.DisabledTools) != len(s.disabled) || !allIn(t.DisabledTools, s.disabled) {
		s.disabled = make(map[string]bool, len(t.DisabledTools))
		for _, name := range t.DisabledTools {
			s.disabled[name] = true
		}
		s.toolsGen++
	}
	return fp, s.scrub
}

func allIn(names []string, set map[string]bool) bool {
	for _, n := range names {
		if !set[n] {
			return false
		}
	}
	return true
}

// toolsChanged marks the cached list stale (the downstream sent list_changed).
func (s *service) toolsChanged() {
	s.epoch.Add(1)
	s.mu.Lock()
	s.stale = true
	name := s.name
	s.mu.Unlock()
	s.p.log.Debug("downstream tool list changed", "service_id", s.id)
	if fn := s.p.opts.ToolsChanged; fn != nil {
		fn(s.id)
	}
	s.p.opts.Events.toolsChanged(name)
}

// newerConnLocked reports whether the connection opened after ts was fetched: a new session
// (restart, reconnect) may serve other tools, and list_changed sent meanwhile was missed.
func (s *service) newerConnLocked(ts *toolSet) bool {
	c := s.conn
	return c != nil && c.isReady() && ts.fetchedAt.Before(c.openedAt)
}

// connFor returns the service's connection, opening one if needed, with its in-flight count
// taken: the caller must call release. A local server found dead fails this one caller fast
// (it reports the death); the next caller starts a fresh one. force ignores restart backoff.
func (s *service) connFor(ctx context.Context, t backend.Target, fp string, force bool) (*conn, error) {
	c, drop, err := s.pick(t, fp, force)
	for _, old := range drop {
		s.p.closeAsync(old)
	}
	if err != nil {
		return nil, err
	}
	select {
	case <-c.ready:
	case <-ctx.Done():
		c.release()
		return nil, ctx.Err()
	}
	if c.err != nil {
		c.release()
		return nil, c.err
	}
	return c, nil
}

// pick chooses the connection to use, or starts opening one, under the lock. Connections it
// replaces are returned for the caller to close once the lock is released.
func (s *service) pick(t backend.Target, fp string, force bool) (*conn, []*conn, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	var drop []*conn
	c := s.conn
	if c != nil && c.fp != fp {
		drop, s.conn, c = append(drop, c), nil, nil
	}
	if c != nil && c.isReady() && c.isDead() {
		drop, s.conn = append(drop, c), nil
		if c.local && !force {
			err := c.deathErr()
			s.failedLocked(err)
			return nil, drop, err
		}
		c = nil
	}
	if c == nil {
		if now := time.Now(); !force && s.failures > 0 && now.Before(s.retryAt) {
			return nil, drop, &backoffError{wait: s.retryAt.Sub(now), last: s.lastErr}
		}
		c = newConn(s, t, fp)
		if !s.p.goOwned(func() { c.open(t) }) {
			return nil, drop, errClosed
		}
		s.conn = c
	}
	c.inflight.Add(1)
	return c, drop, nil
}

// openFailed records a failed connection attempt once, whoever is still waiting for it.
func (s *service) openFailed(c *conn, err error) {
	s.mu.Lock()
	if s.conn == c {
		s.conn = nil
		s.failedLocked(err)
	}
	s.mu.Unlock()
	s.failed(err, phaseConnect, 0)
}

// reportDead is called by a caller whose request failed because the connection is gone: the
// connection is dropped so the next caller opens a new one (after backoff, if failures repeat).
func (s *service) reportDead(c *conn, err error) {
	s.mu.Lock()
	mine := s.conn == c
	if mine {
		s.conn = nil
		s.failedLocked(err)
	}
	s.mu.Unlock()
	if mine {
		s.p.closeAsync(c)
	}
}

// failedLocked counts a failed connection and schedules the earliest next attempt.
func (s *service) failedLocked(err error) {
	s.failures++
	s.lastErr = err
	s.retryAt = time.Now().Add(s.p.backoff(s.failures))
	s.clean.Store(false)
}

// backoff is the wait before the k-th consecutive reconnect: none for the first, then Min
// doubling up to Max.
func (p *Proxy) backoff(k int) time.Duration {
	if k <= 1 {
		return 0
	}
	d := p.opts.RestartBackoff.Min
	for i := 2; i < k && d < p.opts.RestartBackoff.Max; i++ {
		d *= 2
	}
	return min(d, p.opts.RestartBackoff.Max)
}

// takeConn detaches the current connection for the caller to close.
func (s *service) takeConn() *conn {
	s.mu.Lock()
	defer s.mu.Unlock()
	c := s.conn
	s.conn = nil
	return c
}

// detach closes the connection in the background (service forgotten).
func (s *service) detach() {
	if c := s.takeConn(); c != nil {
		s.p.closeAsync(c)
	}
}

// reapIfIdle stops a local server that has served nothing for idle.
func (s *service) reapIfIdle(now time.Time, idle time.Duration) {
	s.mu.Lock()
	c := s.conn
	if c == nil || !c.local || !c.isReady() || c.inflight.Load() > 0 ||
		now.Sub(time.Unix(0, c.lastUsed.Load())) < idle {
		s.mu.Unlock()
		return
	}
	s.conn = nil
	s.mu.Unlock()
	s.p.log.Info("stopping idle local server", "service_id", s.id)
	s.p.closeAsync(c)
}

// sessionEnded lets go of an ended agent session. When it was the last session using the
// service's local server, the server is stopped after the linger unless someone calls meanwhile.
func (s *service) sessionEnded(session string) {
	s.mu.Lock()
	c := s.conn
	s.mu.Unlock()
	if c == nil || !c.floor.forget(session) || !c.local {
		return
	}
	linger := s.p.opts.SessionLinger
	s.p.goOwned(func() {
		t := time.NewTimer(linger)
		defer t.Stop()
		select {
		case <-t.C:
			s.reapIfAbandoned(c, linger)
		case <-s.p.ctx.Done():
		}
	})
}

// reapIfAbandoned stops c when every session that used it has ended at least linger ago, no call
// is in flight and none came since.
func (s *service) reapIfAbandoned(c *conn, linger time.Duration) {
	since := c.floor.abandonedSince()
	s.mu.Lock()
	if s.conn != c || since.IsZero() || time.Since(since) < linger || c.inflight.Load() > 0 ||
		time.Unix(0, c.lastUsed.Load()).After(since) {
		s.mu.Unlock()
		return
	}
	s.conn = nil
	s.mu.Unlock()
	s.p.log.Info("stopping a local server every session of which has ended", "service_id", s.id)
	s.p.closeAsync(c)
}
