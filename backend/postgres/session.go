package postgres

import (
	"context"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/agent-deck/agent-deck/backend"
)

const sessionColumns = `m.id, m.workspace_root, COALESCE(m.deck_id::text, ''), COALESCE(d.name, ''), m.badge,
	m.client_name, m.profile, m.scope, m.created_at, m.last_seen_at, m.terminated_at, COALESCE(m.token_id::text, '')`

// sessionFrom joins the bound deck for its name.
const sessionFrom = ` FROM mcp_sessions m LEFT JOIN decks d ON d.id = m.deck_id`

func scanSession(row pgx.Row) (backend.MCPSession, error) {
	var m backend.MCPSession
	var scope string
	err := row.Scan(&m.ID, &m.WorkspaceRoot, &m.DeckID, &m.DeckName, &m.Badge, &m.ClientName, &m.Profile,
		&scope, &m.CreatedAt, &m.LastSeenAt, &m.TerminatedAt, &m.TokenID)
	m.Scope = backend.Scope(scope)
	return m, err
}

// CreateSession inserts the session, filling created/last-seen times when empty and DeckName.
// A badge already held by a live session is a CONFLICT on "badge".
func (s *Store) CreateSession(ctx context.Context, m *backend.MCPSession) error {
	const q = `
		WITH m AS (
			INSERT INTO mcp_sessions (id, workspace_root, deck_id, badge, client_name, profile, scope,
				created_at, last_seen_at, token_id)
			VALUES ($1, $2, $3, $4, $5, $6, $7, COALESCE($8::timestamptz, now()),
				COALESCE($9::timestamptz, $8::timestamptz, now()), $10::uuid)
			RETURNING deck_id, created_at, last_seen_at
		)
		SELECT COALESCE(d.name, ''), m.created_at, m.last_seen_at FROM m LEFT JOIN decks d ON d.id = m.deck_id`
	err := s.db.QueryRow(ctx, q, m.ID, m.WorkspaceRoot, nullString(m.DeckID), m.Badge, m.ClientName, m.Profile,
		string(m.Scope), nullTime(m.CreatedAt), nullTime(m.LastSeenAt), nullString(m.TokenID)).Scan(&m.DeckName, &m.CreatedAt, &m.LastSeenAt)
	return classify("create session", err)
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
	tag, err := s.db.Exec(ctx, `UPDATE mcp_sessions SET last_seen_at = GREATEST(last_seen_at, $2)
		WHERE id = $1 AND terminated_at IS NULL`, id, at)
	if err != nil {
		return classify("touch session", err)
	}
	if tag.RowsAffected() == 0 {
		return notFound("session", id)
	}
	return nil
}

// TerminateSession ends a session; terminating twice keeps the first time.
func (s *Store) TerminateSession(ctx context.Context, id string, at time.Time) error {
	tag, err := s.db.Exec(ctx, `UPDATE mcp_sessions SET terminated_at = COALESCE(terminated_at, $2) WHERE id = $1`, id, at)
	if err != nil {
		return classify("terminate session", err)
	}
	if tag.RowsAffected() == 0 {
		return notFound("session", id)
	}
	return nil
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
