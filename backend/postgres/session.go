package postgres

import (
	"context"
	"errors"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/agent-deck/agent-deck/backend"
)

const sessionColumns = `m.id, m.workspace_root, COALESCE(m.deck_id::text, ''), COALESCE(d.name, ''), m.badge,
	m.client_name, m.profile, m.scope, m.created_at, m.last_seen_at, m.terminated_at, COALESCE(m.token_id::text, ''),
	m.client_caps, m.log_level, COALESCE(st.person_id::text, ''), COALESCE(sp.name, '')`

// sessionFrom joins the bound deck for its name, and the token's person.
const sessionFrom = ` FROM mcp_sessions m LEFT JOIN decks d ON d.id = m.deck_id
	LEFT JOIN tokens st ON st.id = m.token_id LEFT JOIN people sp ON sp.id = st.person_id`

func scanSession(row pgx.Row) (backend.MCPSession, error) {
	var m backend.MCPSession
	var scope string
	var caps []string
	err := row.Scan(&m.ID, &m.WorkspaceRoot, &m.DeckID, &m.DeckName, &m.Badge, &m.ClientName, &m.Profile,
		&scope, &m.CreatedAt, &m.LastSeenAt, &m.TerminatedAt, &m.TokenID, &caps, &m.LogLevel, &m.PersonID, &m.Person)
	m.Scope = backend.Scope(scope)
	m.Caps = backend.ClientCapsOf(caps)
	return m, err
}

// CreateSession inserts the session, filling created/last-seen times when empty and DeckName.
// A badge already held by a live session is a CONFLICT on "badge".
func (s *Store) CreateSession(ctx context.Context, m *backend.MCPSession) error {
	const q = `
		WITH m AS (
			INSERT INTO mcp_sessions (id, workspace_root, deck_id, badge, client_name, profile, scope,
				created_at, last_seen_at, token_id, client_caps)
			VALUES ($1, $2, $3, $4, $5, $6, $7, COALESCE($8::timestamptz, now()),
				COALESCE($9::timestamptz, $8::timestamptz, now()), $10::uuid, $11)
			RETURNING deck_id, created_at, last_seen_at
		)
		SELECT COALESCE(d.name, ''), m.created_at, m.last_seen_at FROM m LEFT JOIN decks d ON d.id = m.deck_id`
	err := s.db.QueryRow(ctx, q, m.ID, m.WorkspaceRoot, nullString(m.DeckID), m.Badge, m.ClientName, m.Profile,
		string(m.Scope), nullTime(m.CreatedAt), nullTime(m.LastSeenAt), nullString(m.TokenID), m.Caps.Names()).Scan(&m.DeckName, &m.CreatedAt, &m.LastSeenAt)
	return classify("create session", err)
}

// OpenSession inserts the session with a badge the database picks in the same statement: the
// first word of pool (shuffled by the caller) free at the lowest level that has a free word,
// suffixed with the level from level 2 on. It reads the level counts up to the first level with
// a free word (one row per len(pool) live sessions) and probes at most len(pool) badges. Then, when the session's token
// holds more than maxPerToken live sessions, the least recently seen ones are terminated and
// their ids returned. Both happen in one transaction. A concurrent open that took the badge (or
// the level's last word) is a CONFLICT on "badge": pick again.
func (s *Store) OpenSession(ctx context.Context, m *backend.MCPSession, pool []string, maxPerToken int) ([]string, error) {
	if len(pool) == 0 {
		return nil, backend.Internal("open session", errors.New("empty badge pool"))
	}
	const q = `
		WITH lvl AS (
			SELECT COALESCE(
				(SELECT level FROM mcp_badge_levels WHERE live < cardinality($10::text[]) ORDER BY level LIMIT 1),
				(SELECT max(level) + 1 FROM mcp_badge_levels),
				1) AS n
		), pick AS (
			SELECT b.badge FROM lvl, LATERAL (
				SELECT w || CASE WHEN lvl.n > 1 THEN lvl.n::text ELSE '' END AS badge
				FROM unnest($10::text[]) AS w) b
			-- A correlated scalar subquery, not NOT EXISTS: the planner would turn that into an
			-- anti-join scanning every session; this probes the unique index once per candidate
			-- and stops at the first free badge.
			WHERE (SELECT 1 FROM mcp_sessions x WHERE x.badge = b.badge AND x.terminated_at IS NULL LIMIT 1) IS NULL
			LIMIT 1
		), m AS (
			INSERT INTO mcp_sessions (id, workspace_root, deck_id, badge, client_name, profile, scope,
				created_at, last_seen_at, token_id, client_caps)
			SELECT $1, $2, $3, pick.badge, $4, $5, $6, COALESCE($7::timestamptz, now()),
				COALESCE($8::timestamptz, $7::timestamptz, now()), $9::uuid, $11
			FROM pick
			RETURNING deck_id, badge, created_at, last_seen_at
		)
		SELECT COALESCE(d.name, ''), m.badge, m.created_at, m.last_seen_at FROM m LEFT JOIN decks d ON d.id = m.deck_id`
	// Only a token over its cap reads its sessions, and then only the oldest it expires
	// (mcp_sessions_token_live_idx); the live count is a counter row (migration 0040).
	const expire = `
		WITH over AS (
			SELECT live - $2 AS n FROM mcp_token_live WHERE token_id = $1::uuid AND live > $2
		)
		UPDATE mcp_sessions SET terminated_at = now()
		WHERE id IN (
			SELECT s.id FROM over, LATERAL (
				SELECT id FROM mcp_sessions WHERE token_id = $1::uuid AND terminated_at IS NULL
				ORDER BY last_seen_at, created_at, id LIMIT over.n) s)
		RETURNING id`
	var expired []string
	err := s.transact(ctx, func(tx *Store) error {
		err := tx.db.QueryRow(ctx, q, m.ID, m.WorkspaceRoot, nullString(m.DeckID), m.ClientName, m.Profile,
			string(m.Scope), nullTime(m.CreatedAt), nullTime(m.LastSeenAt), nullString(m.TokenID), pool, m.Caps.Names()).
			Scan(&m.DeckName, &m.Badge, &m.CreatedAt, &m.LastSeenAt)
		if errors.Is(err, pgx.ErrNoRows) {
			return backend.Errorf(backend.CodeConflict, "every badge of the level was taken concurrently").
				WithDetail("field", "badge")
		}
		if err != nil {
			return classify("open session", err)
		}
		if m.TokenID == "" || maxPerToken <= 0 {
			return nil
		}
		rows, err := tx.db.Query(ctx, expire, m.TokenID, maxPerToken)
		if err != nil {
			return classify("expire sessions over the cap", err)
		}
		expired, err = pgx.CollectRows(rows, pgx.RowTo[string])
		return classify("expire sessions over the cap", err)
	})
	if err != nil {
		return nil, err
	}
	return expired, nil
}

// GetSession returns a session that exists and is not terminated.
func (s *Store) GetSession(ctx context.Context, id string) (backend.MCPSession, error) {
	m, err := scanSession(s.db.QueryRow(ctx, `SELECT `+sessionColumns+sessionFrom+`
		WHERE m.id = $1 AND m.terminated_at IS NULL`, id))
	return m, rowErr("get session", "session", id, err)
}

// UpdateSessionBinding writes the session's workspace root and deck ("" unbinds) and sets
// DeckName.
func (s *Store) UpdateSessionBinding(ctx context.Context, m *backend.MCPSession) error {
	const q = `
		WITH m AS (
			UPDATE mcp_sessions SET workspace_root = $2, deck_id = $3
			WHERE id = $1 AND terminated_at IS NULL RETURNING deck_id
		)
		SELECT COALESCE(d.name, '') FROM m LEFT JOIN decks d ON d.id = m.deck_id`
	err := s.db.QueryRow(ctx, q, m.ID, m.WorkspaceRoot, nullString(m.DeckID)).Scan(&m.DeckName)
	return rowErr("bind session", "session", m.ID, err)
}

// TouchSession records traffic on a live session.
func (s *Store) TouchSession(ctx context.Context, id string, at time.Time) error {
	return s.execOne(ctx, "touch session", "session", id, `UPDATE mcp_sessions
		SET last_seen_at = GREATEST(last_seen_at, $2) WHERE id = $1 AND terminated_at IS NULL`, id, at)
}

// SetSessionLogLevel records the level a live session's client set.
func (s *Store) SetSessionLogLevel(ctx context.Context, id, level string) error {
	return s.execOne(ctx, "set session log level", "session", id,
		`UPDATE mcp_sessions SET log_level = $2 WHERE id = $1 AND terminated_at IS NULL`, id, level)
}

// TerminateSession ends a session; terminating twice keeps the first time.
func (s *Store) TerminateSession(ctx context.Context, id string, at time.Time) error {
	return s.execOne(ctx, "terminate session", "session", id,
		`UPDATE mcp_sessions SET terminated_at = COALESCE(terminated_at, $2) WHERE id = $1`, id, at)
}

// ListLiveSessions returns sessions not terminated and seen since the given time, oldest first.
func (s *Store) ListLiveSessions(ctx context.Context, seenSince time.Time) ([]backend.MCPSession, error) {
	rows, err := s.db.Query(ctx, `SELECT `+sessionColumns+sessionFrom+`
		WHERE m.terminated_at IS NULL AND m.last_seen_at >= $1 ORDER BY m.created_at, m.id`, seenSince)
	if err != nil {
		return nil, classify("list sessions", err)
	}
	out, err := pgx.CollectRows(rows, func(r pgx.CollectableRow) (backend.MCPSession, error) { return scanSession(r) })
	if err != nil {
		return nil, classify("list sessions", err)
	}
	return out, nil
}

// ExpireSessions terminates sessions not seen since seenBefore and returns how many; their
// badges become free.
func (s *Store) ExpireSessions(ctx context.Context, seenBefore time.Time) (int, error) {
	tag, err := s.db.Exec(ctx, `UPDATE mcp_sessions SET terminated_at = now()
		WHERE terminated_at IS NULL AND last_seen_at < $1`, seenBefore)
	if err != nil {
		return 0, classify("expire sessions", err)
	}
	return int(tag.RowsAffected()), nil
}

// BindUnboundSession binds a live session that has no deck yet; it reports false, changing
// nothing, when the session is bound already (or gone), so a later binding never overrides an
// explicit one.
func (s *Store) BindUnboundSession(ctx context.Context, m *backend.MCPSession) (bool, error) {
	const q = `
		WITH m AS (
			UPDATE mcp_sessions SET workspace_root = $2, deck_id = $3
			WHERE id = $1 AND terminated_at IS NULL AND deck_id IS NULL RETURNING deck_id
		)
		SELECT COALESCE(d.name, '') FROM m LEFT JOIN decks d ON d.id = m.deck_id`
	err := s.db.QueryRow(ctx, q, m.ID, m.WorkspaceRoot, nullString(m.DeckID)).Scan(&m.DeckName)
	if errors.Is(err, pgx.ErrNoRows) {
		return false, nil
	}
	if err != nil {
		return false, classify("bind session", err)
	}
	return true, nil
}
