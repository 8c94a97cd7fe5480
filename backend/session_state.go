package backend

import (
	"context"
	"time"
)

// maxTouchInterval bounds how stale a live session's last-seen time may get: the hot path writes
// it at most this often per session instead of on every call.
const maxTouchInterval = 30 * time.Second

type sessionKey struct{}

// WithSession returns ctx carrying a session the caller has just looked up, so the bound-deck
// methods called in the same request do not read the row again.
func WithSession(ctx context.Context, sess MCPSession) context.Context {
	return context.WithValue(ctx, sessionKey{}, sess)
}

// touchInterval is how often a session's last-seen time is written: every 30 s, or a quarter of
// a short idle timeout, so expiry stays accurate.
func (s *Service) touchInterval() time.Duration {
	return min(maxTouchInterval, s.cfg.SessionIdleTimeout/4)
}

// LookupSession returns a live session. An unknown, terminated or idle-expired id is NOT_FOUND,
// which the MCP endpoint answers with HTTP 404 so the client starts a new session. The
// session's last-seen time is refreshed at most every 30 s.
func (s *Service) LookupSession(ctx context.Context, id string) (MCPSession, error) {
	a, err := requireRead(ctx, "use an MCP session")
	if err != nil {
		return MCPSession{}, err
	}
	if !isUUIDText(id) {
		return MCPSession{}, sessionGone()
	}
	sess, cached, err := s.liveSession(ctx, id)
	now := s.clock()
	if err == nil && cached && now.Sub(sess.LastSeenAt) >= s.touchInterval() {
		// Other replicas refresh last-seen without announcing it: ask the database before
		// expiring or touching on the strength of a cached time.
		sess, err = s.store.GetSession(ctx, id)
	}
	if isNotFound(err) {
		return MCPSession{}, sessionGone()
	}
	if err != nil {
		return MCPSession{}, storeErr("finding a session", err)
	}
	if a.TokenID != "" {
		if err := CheckSessionOwner(sess, a); err != nil {
			return MCPSession{}, err
		}
	}
	idle := now.Sub(sess.LastSeenAt)
	if idle > s.cfg.SessionIdleTimeout {
		if err := s.store.TerminateSession(ctx, id, now); err != nil && !isNotFound(err) {
			return MCPSession{}, storeErr("expiring a session", err)
		}
		return MCPSession{}, sessionGone()
	}
	if idle >= s.touchInterval() {
		if err := s.store.TouchSession(ctx, id, now); err != nil {
			s.log.Warn("could not refresh session last-seen time", "error", err)
		} else {
			sess.LastSeenAt = now
			s.cache.touchSession(id, now)
		}
	}
	return sess, nil
}

// CheckSessionOwner refuses a session opened by another token as if it did not exist (NOT_FOUND,
// HTTP 404 on /mcp), so a session id is worth nothing without the token that opened it. Sessions
// opened without a token (bootstrap, older rows) have no owner.
func CheckSessionOwner(sess MCPSession, a Actor) error {
	if sess.TokenID != "" && sess.TokenID != a.TokenID {
		return sessionGone()
	}
	return nil
}

// TerminateSession ends a session (the client's DELETE); its id then gets NOT_FOUND.
func (s *Service) TerminateSession(ctx context.Context, id string) error {
	if _, err := requireRead(ctx, "end an MCP session"); err != nil {
		return err
	}
	if !isUUIDText(id) {
		return sessionGone()
	}
	err := s.store.TerminateSession(ctx, id, s.clock())
	if isNotFound(err) {
		return sessionGone()
	}
	return storeErr("ending a session", err)
}

// ExpireIdleSessions terminates sessions idle longer than the configured timeout and returns
// how many it ended.
func (s *Service) ExpireIdleSessions(ctx context.Context) (int, error) {
	n, err := s.store.ExpireSessions(ctx, s.clock().Add(-s.cfg.SessionIdleTimeout))
	return n, storeErr("expiring sessions", err)
}

func (s *Service) expireIdle(ctx context.Context) error {
	_, err := s.ExpireIdleSessions(ctx)
	return err
}

// sessionFor returns the caller's session: the one already in ctx when it matches, else a
// fresh lookup.
func (s *Service) sessionFor(ctx context.Context, id string) (MCPSession, error) {
	if sess, ok := ctx.Value(sessionKey{}).(MCPSession); ok && sess.ID == id && id != "" {
		return sess, nil
	}
	return s.LookupSession(ctx, id)
}

func sessionGone() *Error {
	return Errorf(CodeNotFound, "unknown or expired MCP session").
		WithHint("start a new session (initialize) and bind it again")
}
