package core

import (
	"context"
	"slices"
	"time"

	"github.com/agent-deck/agent-deck/backend"
)

// maxTouchInterval bounds how stale a live session's last-seen time may get: the hot path writes
// it at most this often per session instead of on every call.
const maxTouchInterval = 30 * time.Second

type sessionKey struct{}

// WithSession returns ctx carrying a session the caller has just looked up, so the bound-deck
// methods called in the same request do not read the row again.
func WithSession(ctx context.Context, sess backend.MCPSession) context.Context {
	return context.WithValue(ctx, sessionKey{}, sess)
}

// touchInterval is how often a session's last-seen time is written: every 30 s, or a quarter of
// a short idle timeout, so expiry stays accurate.
func (s *Hub) touchInterval() time.Duration {
	return min(maxTouchInterval, s.cfg.SessionIdleTimeout/4)
}

// LookupSession returns a live session. An unknown, terminated or idle-expired id is NOT_FOUND,
// which the MCP endpoint answers with HTTP 404 so the client starts a new session. The
// session's last-seen time is refreshed at most every 30 s.
func (s *Hub) LookupSession(ctx context.Context, id string) (backend.MCPSession, error) {
	a, err := backend.RequireRead(ctx, "use an MCP session")
	if err != nil {
		return backend.MCPSession{}, err
	}
	if !backend.IsUUIDText(id) {
		return backend.MCPSession{}, sessionGone()
	}
	sess, cached, err := s.liveSession(ctx, id)
	now := s.clock()
	if err == nil && cached && now.Sub(sess.LastSeenAt) >= s.touchInterval() {
		// Other replicas refresh last-seen without announcing it: ask the database before
		// expiring or touching on the strength of a cached time.
		sess, err = s.store.GetSession(ctx, id)
	}
	if backend.IsNotFound(err) {
		return backend.MCPSession{}, sessionGone()
	}
	if err != nil {
		return backend.MCPSession{}, backend.StoreErr("finding a session", err)
	}
	if a.TokenID != "" {
		if err := CheckSessionOwner(sess, a); err != nil {
			return backend.MCPSession{}, err
		}
	}
	idle := now.Sub(sess.LastSeenAt)
	if idle > s.cfg.SessionIdleTimeout {
		if err := s.store.TerminateSession(ctx, id, now); err != nil && !backend.IsNotFound(err) {
			return backend.MCPSession{}, backend.StoreErr("expiring a session", err)
		}
		return backend.MCPSession{}, sessionGone()
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
func CheckSessionOwner(sess backend.MCPSession, a backend.Actor) error {
	if sess.TokenID != "" && sess.TokenID != a.TokenID {
		return sessionGone()
	}
	return nil
}

// TerminateSession ends a session (the client's DELETE); its id then gets NOT_FOUND.
func (s *Hub) TerminateSession(ctx context.Context, id string) error {
	if _, err := backend.RequireRead(ctx, "end an MCP session"); err != nil {
		return err
	}
	if !backend.IsUUIDText(id) {
		return sessionGone()
	}
	err := s.store.TerminateSession(ctx, id, s.clock())
	if backend.IsNotFound(err) {
		return sessionGone()
	}
	if err == nil {
		s.ends.ended(id)
	}
	return backend.StoreErr("ending a session", err)
}

// SetSessionLogLevel records the level a session's client set with logging/setLevel, so every
// replica relays downstream log messages at that level or above.
func (s *Hub) SetSessionLogLevel(ctx context.Context, id, level string) error {
	if _, err := backend.RequireRead(ctx, "set a session's log level"); err != nil {
		return err
	}
	if !slices.Contains(backend.LogLevels, level) {
		return backend.InvalidEnum("level", level, backend.LogLevels)
	}
	if !backend.IsUUIDText(id) {
		return sessionGone()
	}
	err := s.store.SetSessionLogLevel(ctx, id, level)
	if backend.IsNotFound(err) {
		return sessionGone()
	}
	return backend.StoreErr("setting a session's log level", err)
}

// EndSession ends another client's session from the outside (the dashboard's Sessions screen):
// its next request gets NOT_FOUND and the client must start a new session, with its token. Admin
// only; to stop a client for good, revoke its token.
func (s *Hub) EndSession(ctx context.Context, id string) error {
	if _, err := backend.RequireAdmin(ctx, "end an MCP session"); err != nil {
		return err
	}
	if !backend.IsUUIDText(id) {
		return backend.Invalid("session", "the id of a live MCP session (a UUID), got %s", backend.QuoteClip(id))
	}
	err := s.store.TerminateSession(ctx, id, s.clock())
	if backend.IsNotFound(err) {
		return sessionGone()
	}
	if err == nil {
		s.ends.ended(id)
	}
	return backend.StoreErr("ending a session", err)
}

// ExpireIdleSessions terminates sessions idle longer than the configured timeout and returns
// how many it ended.
func (s *Hub) ExpireIdleSessions(ctx context.Context) (int, error) {
	n, err := s.store.ExpireSessions(ctx, s.clock().Add(-s.cfg.SessionIdleTimeout))
	return n, backend.StoreErr("expiring sessions", err)
}

func (s *Hub) expireIdle(ctx context.Context) error {
	_, err := s.ExpireIdleSessions(ctx)
	return err
}

// sessionFor returns the caller's session: the one already in ctx when it matches, else a
// fresh lookup.
func (s *Hub) sessionFor(ctx context.Context, id string) (backend.MCPSession, error) {
	if sess, ok := ctx.Value(sessionKey{}).(backend.MCPSession); ok && sess.ID == id && id != "" {
		return sess, nil
	}
	return s.LookupSession(ctx, id)
}

func sessionGone() *backend.Error {
	return backend.Errorf(backend.CodeNotFound, "unknown or expired MCP session").
		WithHint("start a new session (initialize) and bind it again")
}
