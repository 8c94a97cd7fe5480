package proxy

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"time"

	"github.com/agent-deck/agent-deck/backend"
)

// This file keeps a service's health: what each answered or failed request says about it, how
// repeated timeouts count, and the in-memory status (health and cached tools) read without I/O.

// succeeded records a request the downstream answered.
func (s *service) succeeded(ph phase) {
	s.lastSuccess.Store(time.Now().UnixNano())
	if s.clean.Load() {
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.failures = 0
	if ph == phaseCall {
		// Only a call ends a run of call timeouts: a list read between them (a call that
		// needed a new connection reads the list first) says nothing about slow calls.
		s.timeouts = 0
	}
	if s.timeouts > 0 {
		return
	}
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
	if callerGaveUp(err) || errors.Is(err, errResultMemoryFull) {
		// The caller's own deadline or cancellation, or a wait for the result budget, says
		// nothing about the service.
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
	st := backend.DownstreamStatus{Health: h, TalksBack: s.talksBack.Load()}
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

// healthOf says what a failure means for the service's health; keep reports that the failure
// says nothing about reachability (a slow or refused call on a live server).
func healthOf(e *backend.Error, ph phase) (status backend.HealthStatus, keep bool) {
	switch e.Code {
	case backend.CodeDownstreamAuth:
		return backend.HealthAuthRequired, false
	case backend.CodeDownstreamError:
		if ph == phaseConnect {
			return backend.HealthUnhealthy, false
		}
		return "", true
	case backend.CodeDownstreamTimeout:
		if ph == phaseConnect {
			return backend.HealthUnhealthy, false
		}
		return "", true
	case backend.CodeDownstreamUnreachable:
		return backend.HealthUnhealthy, false
	}
	return "", true
}
