package proxy

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"sync"
	"sync/atomic"
	"time"

	"github.com/agent-deck/agent-deck/backend"
	"github.com/mark3labs/mcp-go/client/transport"
)

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

// succeeded records a request the downstream answered.
func (s *service) succeeded() {
	s.lastSuccess.Store(time.Now().UnixNano())
	if s.clean.Load() {
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.failures = 0
	s.timeouts = 0
	s.lastErr = nil
	s.health.Status = backend.HealthHealthy
	s.health.LastError = ""
	s.clean.Store(true)
}

// failed classifies err, records what it says about health, logs it and returns it. The
// error's message and cause are masked of the service's secrets before anyone sees them.
func (s *service) failed(err error, ph phase, timeout time.Duration) *backend.Error {
	s.mu.Lock()
	scrub := s.scrub
	e := classify(s.id, s.name, err, ph, timeout)
	e.Message = scrub.String(e.Message)
	e.Err = scrub.Error(e.Err)
	if callerGaveUp(err) {
		// The caller's own deadline or cancellation says nothing about the service.
	} else if status, keep := healthOf(e, ph); !keep {
		s.health.Status = status
		s.health.LastError = e.Message
		s.clean.Store(false)
	} else if e.Code == backend.CodeDownstreamTimeout || e.Code == backend.CodeDownstreamError {
		s.health.LastError = e.Message
		s.clean.Store(false)
	}
	s.countTimeoutLocked(e, ph, err)
	s.mu.Unlock()
	s.logFailure(e, scrub.Error(err), ph)
	return e
}

// unhealthyAfterTimeouts is how many calls in a row must time out before the service is
// marked unhealthy: one slow call says little, a server that answers none is not healthy.
const unhealthyAfterTimeouts = 3

// countTimeoutLocked counts consecutive call timeouts (any success resets the count, see
// succeeded) and marks the service unhealthy once they repeat.
func (s *service) countTimeoutLocked(e *backend.Error, ph phase, err error) {
	if ph != phaseCall || e.Code != backend.CodeDownstreamTimeout || callerGaveUp(err) {
		return
	}
	s.timeouts++
	if s.timeouts >= unhealthyAfterTimeouts {
		s.health.Status = backend.HealthUnhealthy
		s.health.LastError = fmt.Sprintf("%d calls in a row timed out; last: %s", s.timeouts, e.Message)
	}
}

// logFailure logs a failed request. A downstream's own error message is left out: it may
// quote the call's arguments, which are never logged.
func (s *service) logFailure(e *backend.Error, err error, ph phase) {
	level := slog.LevelWarn
	if callerGaveUp(err) {
		level = slog.LevelInfo
	}
	attrs := []any{"service_id", s.id, "service_name", e.Details["service_name"], "phase", string(ph), "code", string(e.Code)}
	var rpc *rpcError
	if errors.As(err, &rpc) {
		attrs = append(attrs, "downstream_code", rpc.code)
	} else if err != nil {
		attrs = append(attrs, "error", err.Error())
	}
	s.p.log.Log(context.Background(), level, "downstream request failed", attrs...)
}

// connDied updates health when a connection dies on its own (a local server exits).
func (s *service) connDied(c *conn, err error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.conn != c {
		return
	}
	e := describe(s.name, err, phaseCall, 0)
	s.health.Status = backend.HealthUnhealthy
	s.health.LastError = s.scrub.String(e.Message)
	s.clean.Store(false)
}

func (s *service) markChecked() {
	now := time.Now()
	s.mu.Lock()
	s.health.LastCheckedAt = &now
	s.mu.Unlock()
}

// status is the in-memory view: health (with the stderr tail, scrubbed) and cached tools.
func (s *service) status() backend.DownstreamStatus {
	s.mu.Lock()
	h := s.health
	list, scrub := s.list, s.scrub
	tools := s.statusToolsLocked()
	s.mu.Unlock()
	if ns := s.lastSuccess.Load(); ns != 0 {
		t := time.Unix(0, ns)
		h.LastSuccessAt = &t
	}
	if h.LastCheckedAt != nil {
		t := *h.LastCheckedAt
		h.LastCheckedAt = &t
	}
	h.Stderr = scrub.String(s.stderr.String())
	st := backend.DownstreamStatus{Health: h}
	if list != nil {
		st.Tools = tools
	}
	return st
}

// statusToolsLocked returns the tool list with Enabled set, rendering it only when the list or
// the disabled set was replaced since the last time.
func (s *service) statusToolsLocked() []backend.DownstreamTool {
	if s.list == nil {
		return nil
	}
	if s.statusGen != s.toolsGen {
		s.statusTools = s.list.withEnabled(s.disabled)
		s.statusGen = s.toolsGen
	}
	return s.statusTools
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

// do sends one request on the service's connection and returns its raw result, or the error
// and the phase it belongs to. When the downstream forgot the session (it restarted), the
// request was not processed, so it is sent once more on a new session.
func (s *service) do(ctx context.Context, t backend.Target, fp string, force bool, method string, params any, ph phase) (json.RawMessage, phase, error) {
	for attempt := 0; ; attempt++ {
		c, err := s.connFor(ctx, t, fp, force)
		if err != nil {
			return nil, phaseConnect, err
		}
		res, err := c.request(ctx, method, params)
		c.release()
		if err == nil {
			s.succeeded()
			return res, ph, nil
		}
		if isConnFailure(err) {
			s.reportDead(c, err)
		}
		if attempt == 0 && errors.Is(err, transport.ErrSessionTerminated) {
			continue
		}
		return nil, ph, err
	}
}

// isConnFailure reports whether err means the connection itself is gone, as opposed to a
// refused, failed or slow request on a live one.
func isConnFailure(err error) bool {
	if errors.Is(err, transport.ErrSessionTerminated) {
		return true
	}
	if errors.Is(err, errResultTooLarge) {
		return false // only the answer was cut; the session goes on
	}
	var (
		rpc *rpcError
		st  *httpStatusError
	)
	return !errors.As(err, &rpc) && !errors.As(err, &st) && !ctxCause(err)
}

// callerGaveUp reports whether err is the caller's context ending, not a connect timeout nor
// the service's own call timeout running out.
func callerGaveUp(err error) bool {
	return ctxCause(err) && !errors.Is(err, errConnectTimeout) && !errors.Is(err, errCallTimeout)
}

func ctxCause(err error) bool {
	return errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded)
}
