package postgres

import (
	"context"
	"errors"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/agent-deck/agent-deck/backend"
)

// touchGranularity bounds how often a token's last_used_at is rewritten: every request of every
// session shares the token row, and one write per request would serialize them on it.
const touchGranularity = "5 seconds"

// tokenColumns read a token with its person (scalar subqueries, so RETURNING can use them too).
const tokenColumns = `t.id::text, t.name, t.scope, t.hash, t.created_at, t.last_used_at, t.revoked_at, t.kind, t.expires_at,
	COALESCE(t.deck_id::text, ''), t.person_id::text,
	COALESCE((SELECT p.name FROM people p WHERE p.id = t.person_id), ''),
	COALESCE((SELECT p.role FROM people p WHERE p.id = t.person_id), ''),
	COALESCE((SELECT p.removed_at IS NOT NULL FROM people p WHERE p.id = t.person_id), true)`

func scanToken(row pgx.Row) (backend.TokenRecord, error) {
	var t backend.TokenRecord
	var scope, kind, role string
	err := row.Scan(&t.ID, &t.Name, &scope, &t.Hash, &t.CreatedAt, &t.LastUsedAt, &t.RevokedAt, &kind, &t.ExpiresAt, &t.DeckID,
		&t.PersonID, &t.Person, &role, &t.PersonRemoved)
	t.Scope = backend.Scope(scope)
	t.Kind = backend.TokenKind(kind)
	t.PersonRole = backend.Role(role)
	return t, err
}

// CreateToken inserts the token (its sha256 hash only), filling id and created_at when empty.
// A token without a person belongs to the first admin.
func (s *Store) CreateToken(ctx context.Context, t *backend.TokenRecord) error {
	const q = `
		INSERT INTO tokens (id, name, scope, hash, created_at, kind, expires_at, deck_id, person_id)
		VALUES (COALESCE($1::uuid, gen_random_uuid()), $2, $3, $4, COALESCE($5::timestamptz, now()),
			COALESCE(NULLIF($6, ''), 'token'), $7, NULLIF($8, '')::uuid, COALESCE(NULLIF($9, '')::uuid, ` + founderID + `))
		RETURNING id::text, created_at, kind, person_id::text`
	var kind string
	err := s.db.QueryRow(ctx, q, nullString(asUUID(t.ID)), t.Name, string(t.Scope), t.Hash, nullTime(t.CreatedAt),
		string(t.Kind), t.ExpiresAt, t.DeckID, t.PersonID).Scan(&t.ID, &t.CreatedAt, &kind, &t.PersonID)
	t.Kind = backend.TokenKind(kind)
	return classify("create token", err)
}

// ListTokens returns every token's metadata, oldest first.
func (s *Store) ListTokens(ctx context.Context) ([]backend.Token, error) {
	rows, err := s.db.Query(ctx, `SELECT `+tokenColumns+` FROM tokens t ORDER BY t.created_at, t.id`)
	if err != nil {
		return nil, classify("list tokens", err)
	}
	out, err := pgx.CollectRows(rows, func(r pgx.CollectableRow) (backend.Token, error) {
		t, err := scanToken(r)
		return t.Token, err
	})
	if err != nil {
		return nil, classify("list tokens", err)
	}
	return out, nil
}

// RevokeToken marks the token revoked at the given time; revoking twice keeps the first time.
func (s *Store) RevokeToken(ctx context.Context, id string, at time.Time) error {
	u := asUUID(id)
	if u == "" {
		return notFound("token", id)
	}
	return s.execOne(ctx, "revoke token", "token", id,
		`UPDATE tokens SET revoked_at = COALESCE(revoked_at, $2) WHERE id = $1`, u, at)
}

// TokenByHash finds a token by the sha256 of its secret, revoked or not. The hash never
// appears in the error.
func (s *Store) TokenByHash(ctx context.Context, hash []byte) (backend.TokenRecord, error) {
	t, err := scanToken(s.db.QueryRow(ctx, `SELECT `+tokenColumns+` FROM tokens t WHERE t.hash = $1`, hash))
	if errors.Is(err, pgx.ErrNoRows) {
		return t, backend.Errorf(backend.CodeNotFound, "token not found")
	}
	return t, classify("find token", err)
}

// TouchToken records a use of the token, at most once per touchGranularity.
func (s *Store) TouchToken(ctx context.Context, id string, at time.Time) error {
	u := asUUID(id)
	if u == "" {
		return notFound("token", id)
	}
	_, err := s.db.Exec(ctx, `UPDATE tokens SET last_used_at = $2
		WHERE id = $1 AND (last_used_at IS NULL OR last_used_at < $2::timestamptz - interval '`+touchGranularity+`')`, u, at)
	return classify("touch token", err)
}

// CreateSignInCode stores a one-time sign-in code's hash for a person (the first admin when
// none is named) and forgets codes that expired a day ago.
func (s *Store) CreateSignInCode(ctx context.Context, hash []byte, personID string, createdAt, expiresAt time.Time) error {
	_, err := s.db.Exec(ctx, `
		WITH gone AS (DELETE FROM dashboard_signin_codes WHERE expires_at < $2::timestamptz - interval '1 day')
		INSERT INTO dashboard_signin_codes (hash, created_at, expires_at, person_id)
		VALUES ($1, $2, $3, COALESCE(NULLIF($4, '')::uuid, `+founderID+`))`,
		hash, createdAt, expiresAt, personID)
	return classify("create sign-in code", err)
}

// ConsumeSignInCode marks the code used, once, and returns the person it signs in: an unknown,
// used or expired code, or one of a removed person, is NOT_FOUND.
func (s *Store) ConsumeSignInCode(ctx context.Context, hash []byte, at time.Time) (string, error) {
	var person string
	err := s.db.QueryRow(ctx, `UPDATE dashboard_signin_codes c SET used_at = $2
		WHERE c.hash = $1 AND c.used_at IS NULL AND c.expires_at > $2
		RETURNING COALESCE(c.person_id, `+founderID+`)::text`, hash, at).Scan(&person)
	if errors.Is(err, pgx.ErrNoRows) {
		return "", backend.Errorf(backend.CodeNotFound, "sign-in code not found")
	}
	return person, classify("consume sign-in code", err)
}
