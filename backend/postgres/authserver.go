package postgres

import (
	"context"
	"errors"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/agent-deck/agent-deck/backend"
)

// CreateOAuthClient stores a dynamically registered OAuth client.
func (s *Store) CreateOAuthClient(ctx context.Context, c backend.AuthClient) error {
	_, err := s.db.Exec(ctx, `INSERT INTO oauth_clients (id, name, redirect_uris, created_at)
		VALUES ($1, $2, $3, COALESCE($4::timestamptz, now()))`, c.ID, c.Name, strs(c.RedirectURIs), nullTime(c.CreatedAt))
	return classify("create oauth client", err)
}

// GetOAuthClient finds a registered OAuth client.
func (s *Store) GetOAuthClient(ctx context.Context, id string) (backend.AuthClient, error) {
	var c backend.AuthClient
	err := s.db.QueryRow(ctx, `SELECT id, name, redirect_uris, created_at, signed_in_at FROM oauth_clients WHERE id = $1`, id).
		Scan(&c.ID, &c.Name, &c.RedirectURIs, &c.CreatedAt, &c.SignedInAt)
	if errors.Is(err, pgx.ErrNoRows) {
		return c, notFound("oauth client", id)
	}
	return c, classify("find oauth client", err)
}

// PruneOAuthClients deletes clients that never completed a sign-in, registered before
// unusedBefore, then the oldest of the others that never signed in while more than room are
// left, and says how many are left.
func (s *Store) PruneOAuthClients(ctx context.Context, unusedBefore time.Time, room int) (int, error) {
	var left int
	err := s.db.QueryRow(ctx, `
		WITH expired AS (
			DELETE FROM oauth_clients WHERE signed_in_at IS NULL AND created_at < $1 RETURNING id),
		total AS (
			SELECT count(*) AS n FROM oauth_clients WHERE NOT (signed_in_at IS NULL AND created_at < $1)),
		evicted AS (
			DELETE FROM oauth_clients WHERE id IN (
				SELECT id FROM oauth_clients WHERE signed_in_at IS NULL AND created_at >= $1
				ORDER BY created_at, id LIMIT GREATEST(0, (SELECT n FROM total) - $2))
			RETURNING id)
		SELECT (SELECT n FROM total) - (SELECT count(*) FROM evicted)`,
		unusedBefore, room).Scan(&left)
	return left, classify("prune oauth clients", err)
}

// CreateOAuthCode stores an authorization code's hash and forgets codes expired a day ago.
func (s *Store) CreateOAuthCode(ctx context.Context, c backend.AuthCode) error {
	_, err := s.db.Exec(ctx, `
		WITH gone AS (DELETE FROM oauth_codes WHERE expires_at < $8::timestamptz - interval '1 day')
		INSERT INTO oauth_codes (hash, client_id, client_name, redirect_uri, challenge, scope, resource, created_at, expires_at, deck_id, person_id)
		VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, NULLIF($10, '')::uuid, NULLIF($11, '')::uuid)`,
		c.Hash, c.ClientID, c.ClientName, c.RedirectURI, c.Challenge, string(c.Scope), c.Resource, c.CreatedAt, c.ExpiresAt, c.DeckID, c.PersonID)
	return classify("create oauth code", err)
}

const oauthCodeColumns = `client_id, client_name, redirect_uri, challenge, scope, resource, created_at, expires_at, used_at, COALESCE(token_id::text, ''), COALESCE(deck_id::text, ''), COALESCE(person_id::text, '')`

func scanOAuthCode(row pgx.Row, hash []byte) (backend.AuthCode, error) {
	c := backend.AuthCode{Hash: hash}
	var scope string
	err := row.Scan(&c.ClientID, &c.ClientName, &c.RedirectURI, &c.Challenge, &scope, &c.Resource,
		&c.CreatedAt, &c.ExpiresAt, &c.UsedAt, &c.TokenID, &c.DeckID, &c.PersonID)
	c.Scope = backend.Scope(scope)
	return c, err
}

// ConsumeOAuthCode marks the code used, once.
func (s *Store) ConsumeOAuthCode(ctx context.Context, hash []byte, at time.Time) (backend.AuthCode, error) {
	c, err := scanOAuthCode(s.db.QueryRow(ctx, `UPDATE oauth_codes SET used_at = $2
		WHERE hash = $1 AND used_at IS NULL AND expires_at > $2 RETURNING `+oauthCodeColumns, hash, at), hash)
	if err == nil {
		return c, nil
	}
	if !errors.Is(err, pgx.ErrNoRows) {
		return c, classify("consume oauth code", err)
	}
	c, err = scanOAuthCode(s.db.QueryRow(ctx, `SELECT `+oauthCodeColumns+` FROM oauth_codes
		WHERE hash = $1 AND used_at IS NOT NULL`, hash), hash)
	if errors.Is(err, pgx.ErrNoRows) {
		return backend.AuthCode{}, backend.Errorf(backend.CodeNotFound, "oauth code not found")
	}
	if err != nil {
		return backend.AuthCode{}, classify("consume oauth code", err)
	}
	return c, backend.Errorf(backend.CodeConflict, "oauth code used before")
}

// IssueOAuthGrant stores the grant's token row and first refresh token, and ties the code to it.
func (s *Store) IssueOAuthGrant(ctx context.Context, t *backend.TokenRecord, codeHash []byte, r backend.AuthRefresh) error {
	return s.transact(ctx, func(st *Store) error {
		if err := st.CreateToken(ctx, t); err != nil {
			return err
		}
		if _, err := st.db.Exec(ctx, `UPDATE oauth_codes SET token_id = $2 WHERE hash = $1`, codeHash, t.ID); err != nil {
			return classify("issue oauth grant", err)
		}
		if _, err := st.db.Exec(ctx, `UPDATE oauth_clients SET signed_in_at = COALESCE(signed_in_at, now())
			WHERE id = (SELECT client_id FROM oauth_codes WHERE hash = $1)`, codeHash); err != nil {
			return classify("issue oauth grant", err)
		}
		r.TokenID = t.ID
		return st.insertRefresh(ctx, r)
	})
}

func (s *Store) insertRefresh(ctx context.Context, r backend.AuthRefresh) error {
	_, err := s.db.Exec(ctx, `INSERT INTO oauth_refresh_tokens (hash, token_id, created_at, expires_at, scope, client_id)
		VALUES ($1, $2, $3, $4, NULLIF($5, ''), NULLIF($6, ''))`, r.Hash, r.TokenID, r.CreatedAt, r.ExpiresAt, string(r.Scope), r.ClientID)
	return classify("store refresh token", err)
}

// RotateOAuthRefresh spends a refresh token and rotates its grant.
func (s *Store) RotateOAuthRefresh(ctx context.Context, oldHash []byte, at time.Time, accessHash []byte,
	accessExpires time.Time, next backend.AuthRefresh, check func(granted backend.Scope, clientID string) (backend.Scope, error)) (backend.TokenRecord, error) {
	var out backend.TokenRecord
	var reused bool
	err := s.transact(ctx, func(st *Store) error {
		var tokenID, granted, clientID string
		var usedAt *time.Time
		var expires time.Time
		err := st.db.QueryRow(ctx, `SELECT r.token_id::text, r.used_at, r.expires_at, COALESCE(r.scope, t.scope), COALESCE(r.client_id, '')
			FROM oauth_refresh_tokens r JOIN tokens t ON t.id = r.token_id
			WHERE r.hash = $1 FOR UPDATE OF r`, oldHash).Scan(&tokenID, &usedAt, &expires, &granted, &clientID)
		if errors.Is(err, pgx.ErrNoRows) {
			return backend.Errorf(backend.CodeNotFound, "refresh token not found")
		}
		if err != nil {
			return classify("rotate refresh token", err)
		}
		if usedAt != nil {
			// A spent refresh token came back: someone holds a copy. End the whole grant.
			reused = true
			out.ID = tokenID
			_, err := st.db.Exec(ctx, `UPDATE tokens SET revoked_at = COALESCE(revoked_at, $2) WHERE id = $1`, tokenID, at)
			return classify("revoke oauth grant", err)
		}
		if !expires.After(at) {
			return backend.Errorf(backend.CodeNotFound, "refresh token expired")
		}
		access, err := check(backend.Scope(granted), clientID)
		if err != nil {
			return err
		}
		if _, err := st.db.Exec(ctx, `UPDATE oauth_refresh_tokens SET used_at = $2 WHERE hash = $1`, oldHash, at); err != nil {
			return classify("rotate refresh token", err)
		}
		out, err = scanToken(st.db.QueryRow(ctx, `UPDATE tokens t SET hash = $2, expires_at = $3, scope = $4
			WHERE t.id = $1 AND t.revoked_at IS NULL AND t.kind = 'oauth' RETURNING `+tokenColumns, tokenID, accessHash, accessExpires, string(access)))
		if errors.Is(err, pgx.ErrNoRows) {
			return backend.Errorf(backend.CodeNotFound, "the grant was revoked")
		}
		if err != nil {
			return classify("rotate oauth grant", err)
		}
		next.TokenID, next.Scope = tokenID, backend.Scope(granted)
		return st.insertRefresh(ctx, next)
	})
	if err == nil && reused {
		return out, backend.Errorf(backend.CodeConflict, "refresh token used before")
	}
	return out, err
}
