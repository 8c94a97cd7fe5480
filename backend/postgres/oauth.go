package postgres

import (
	"context"
	"slices"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/agent-deck/agent-deck/backend"
)

const oauthColumns = `service_id::text, state, sealed_client, sealed_token, sealed_pending, pending_state,
	pending_until, expires_at, scopes, last_error, updated_at`

func scanOAuth(row pgx.Row) (backend.OAuthRecord, error) {
	var r backend.OAuthRecord
	var state string
	var pendingUntil, expiresAt *time.Time
	err := row.Scan(&r.ServiceID, &state, &r.SealedClient, &r.SealedToken, &r.SealedPending, &r.PendingState,
		&pendingUntil, &expiresAt, &r.Scopes, &r.LastError, &r.UpdatedAt)
	r.State, r.Scopes = backend.OAuthState(state), strs(r.Scopes)
	if pendingUntil != nil {
		r.PendingUntil = *pendingUntil
	}
	if expiresAt != nil {
		r.ExpiresAt = *expiresAt
	}
	return r, err
}

// GetOAuth returns the service's sign-in.
func (s *Store) GetOAuth(ctx context.Context, serviceID string) (backend.OAuthRecord, error) {
	r, err := scanOAuth(s.db.QueryRow(ctx, `SELECT `+oauthColumns+` FROM service_oauth WHERE service_id::text = $1`, serviceID))
	if err != nil {
		return r, classify("read a sign-in", err)
	}
	return r, nil
}

// GetOAuthByPendingState finds the sign-in in progress whose state hashes to stateHash.
func (s *Store) GetOAuthByPendingState(ctx context.Context, stateHash string) (backend.OAuthRecord, error) {
	if stateHash == "" {
		return backend.OAuthRecord{}, notFound("sign-in", "")
	}
	r, err := scanOAuth(s.db.QueryRow(ctx, `SELECT `+oauthColumns+` FROM service_oauth WHERE pending_state = $1`, stateHash))
	if err != nil {
		return r, classify("read a sign-in", err)
	}
	return r, nil
}

// PutOAuth writes the service's sign-in, inserting it the first time.
func (s *Store) PutOAuth(ctx context.Context, r *backend.OAuthRecord) error {
	const q = `
		INSERT INTO service_oauth (service_id, state, sealed_client, sealed_token, sealed_pending, pending_state,
			pending_until, expires_at, scopes, last_error, updated_at)
		VALUES ($1::uuid, $2, $3, $4, $5, $6, $7, $8, $9, $10, now())
		ON CONFLICT (service_id) DO UPDATE SET state = EXCLUDED.state, sealed_client = EXCLUDED.sealed_client,
			sealed_token = EXCLUDED.sealed_token, sealed_pending = EXCLUDED.sealed_pending,
			pending_state = EXCLUDED.pending_state, pending_until = EXCLUDED.pending_until,
			expires_at = EXCLUDED.expires_at, scopes = EXCLUDED.scopes, last_error = EXCLUDED.last_error,
			updated_at = now()
		RETURNING updated_at`
	err := s.db.QueryRow(ctx, q, r.ServiceID, string(r.State), r.SealedClient, r.SealedToken, r.SealedPending,
		r.PendingState, nullTime(r.PendingUntil), nullTime(r.ExpiresAt), strs(r.Scopes), r.LastError).Scan(&r.UpdatedAt)
	return classify("store a sign-in", err)
}

// DeleteOAuth forgets the service's sign-in; forgetting none is not an error.
func (s *Store) DeleteOAuth(ctx context.Context, serviceID string) error {
	_, err := s.db.Exec(ctx, `DELETE FROM service_oauth WHERE service_id::text = $1`, serviceID)
	return classify("forget a sign-in", err)
}

// LockOAuth runs fn on the sign-in with its row locked and writes fn's result if it changed.
func (s *Store) LockOAuth(ctx context.Context, serviceID string, fn func(backend.OAuthRecord) (backend.OAuthRecord, error)) (backend.OAuthRecord, error) {
	var out backend.OAuthRecord
	err := s.transact(ctx, func(tx *Store) error {
		r, err := scanOAuth(tx.db.QueryRow(ctx, `SELECT `+oauthColumns+` FROM service_oauth
			WHERE service_id::text = $1 FOR UPDATE`, serviceID))
		if err != nil {
			return classify("lock a sign-in", err)
		}
		next, err := fn(r)
		if err != nil {
			return err
		}
		out = next
		if sameOAuth(r, next) {
			return nil
		}
		return tx.PutOAuth(ctx, &out)
	})
	return out, err
}

func sameOAuth(a, b backend.OAuthRecord) bool {
	return a.State == b.State && slices.Equal(a.SealedClient, b.SealedClient) && slices.Equal(a.SealedToken, b.SealedToken) &&
		slices.Equal(a.SealedPending, b.SealedPending) && a.PendingState == b.PendingState &&
		a.PendingUntil.Equal(b.PendingUntil) && a.ExpiresAt.Equal(b.ExpiresAt) && slices.Equal(a.Scopes, b.Scopes) &&
		a.LastError == b.LastError
}
