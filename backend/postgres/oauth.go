package postgres

import (
	"context"
	"slices"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/agent-deck/agent-deck/backend"
)

// A service's one sign-in lives in service_oauth; a person's own sign-in to a service that takes
// each person's own lives in service_person_oauth, one row per (service, person). Both have the
// same columns past the key.

const oauthFields = `state, sealed_client, sealed_token, sealed_pending, pending_state,
	pending_until, expires_at, scopes, last_error, updated_at`

// oauthRow is where a sign-in's row is: its table, the condition naming it and the condition's
// arguments. ok is false for a person id that is no UUID (no such row).
func oauthRow(serviceID, personID string) (table, where string, args []any, ok bool) {
	if personID == "" {
		return "service_oauth", `service_id::text = $1`, []any{serviceID}, true
	}
	u := asUUID(personID)
	return "service_person_oauth", `service_id::text = $1 AND person_id = $2`, []any{serviceID, u}, u != ""
}

// oauthSelect selects a sign-in's columns from its table.
func oauthSelect(table string) string {
	person := `''`
	if table == "service_person_oauth" {
		person = `person_id::text`
	}
	return `SELECT service_id::text, ` + person + `, ` + oauthFields + ` FROM ` + table
}

func scanOAuth(row pgx.Row) (backend.OAuthRecord, error) {
	var r backend.OAuthRecord
	var state string
	var pendingUntil, expiresAt *time.Time
	err := row.Scan(&r.ServiceID, &r.PersonID, &state, &r.SealedClient, &r.SealedToken, &r.SealedPending, &r.PendingState,
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

// GetOAuth returns the service's sign-in, or the person's own when personID is set.
func (s *Store) GetOAuth(ctx context.Context, serviceID, personID string) (backend.OAuthRecord, error) {
	table, where, args, ok := oauthRow(serviceID, personID)
	if !ok {
		return backend.OAuthRecord{}, notFound("sign-in", "")
	}
	r, err := scanOAuth(s.db.QueryRow(ctx, oauthSelect(table)+` WHERE `+where, args...))
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
	r, err := scanOAuth(s.db.QueryRow(ctx, oauthSelect("service_oauth")+` WHERE pending_state = $1
		UNION ALL `+oauthSelect("service_person_oauth")+` WHERE pending_state = $1 LIMIT 1`, stateHash))
	if err != nil {
		return r, classify("read a sign-in", err)
	}
	return r, nil
}

// PutOAuth writes the sign-in, inserting it the first time.
func (s *Store) PutOAuth(ctx context.Context, r *backend.OAuthRecord) error {
	table, _, key, ok := oauthRow(r.ServiceID, r.PersonID)
	if !ok {
		return notFound("person", r.PersonID)
	}
	cols, vals, conflict := `service_id`, `$1::uuid`, `service_id`
	if len(key) == 2 {
		cols, vals, conflict = `service_id, person_id`, `$1::uuid, $11`, `service_id, person_id`
	}
	q := `
		INSERT INTO ` + table + ` (` + cols + `, state, sealed_client, sealed_token, sealed_pending, pending_state,
			pending_until, expires_at, scopes, last_error, updated_at)
		VALUES (` + vals + `, $2, $3, $4, $5, $6, $7, $8, $9, $10, now())
		ON CONFLICT (` + conflict + `) DO UPDATE SET state = EXCLUDED.state, sealed_client = EXCLUDED.sealed_client,
			sealed_token = EXCLUDED.sealed_token, sealed_pending = EXCLUDED.sealed_pending,
			pending_state = EXCLUDED.pending_state, pending_until = EXCLUDED.pending_until,
			expires_at = EXCLUDED.expires_at, scopes = EXCLUDED.scopes, last_error = EXCLUDED.last_error,
			updated_at = now()
		RETURNING updated_at`
	args := []any{r.ServiceID, string(r.State), r.SealedClient, r.SealedToken, r.SealedPending,
		r.PendingState, nullTime(r.PendingUntil), nullTime(r.ExpiresAt), strs(r.Scopes), r.LastError}
	if len(key) == 2 {
		args = append(args, key[1])
	}
	err := s.db.QueryRow(ctx, q, args...).Scan(&r.UpdatedAt)
	return classify("store a sign-in", err)
}

// DeleteOAuth forgets the sign-in; forgetting none is not an error.
func (s *Store) DeleteOAuth(ctx context.Context, serviceID, personID string) error {
	table, where, args, ok := oauthRow(serviceID, personID)
	if !ok {
		return nil
	}
	_, err := s.db.Exec(ctx, `DELETE FROM `+table+` WHERE `+where, args...)
	return classify("forget a sign-in", err)
}

// LockOAuth runs fn on the sign-in with its row locked and writes fn's result if it changed.
func (s *Store) LockOAuth(ctx context.Context, serviceID, personID string, fn func(backend.OAuthRecord) (backend.OAuthRecord, error)) (backend.OAuthRecord, error) {
	table, where, args, ok := oauthRow(serviceID, personID)
	if !ok {
		return backend.OAuthRecord{}, notFound("sign-in", "")
	}
	var out backend.OAuthRecord
	err := s.transact(ctx, func(tx *Store) error {
		r, err := scanOAuth(tx.db.QueryRow(ctx, oauthSelect(table)+` WHERE `+where+` FOR UPDATE`, args...))
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

// PersonOAuths lists the people's own sign-ins to a service.
func (s *Store) PersonOAuths(ctx context.Context, serviceID string) ([]backend.OAuthRecord, error) {
	rows, err := s.db.Query(ctx, oauthSelect("service_person_oauth")+` WHERE service_id::text = $1 ORDER BY person_id`, serviceID)
	if err != nil {
		return nil, classify("list sign-ins", err)
	}
	out, err := pgx.CollectRows(rows, func(row pgx.CollectableRow) (backend.OAuthRecord, error) { return scanOAuth(row) })
	return out, classify("list sign-ins", err)
}

func sameOAuth(a, b backend.OAuthRecord) bool {
	return a.State == b.State && slices.Equal(a.SealedClient, b.SealedClient) && slices.Equal(a.SealedToken, b.SealedToken) &&
		slices.Equal(a.SealedPending, b.SealedPending) && a.PendingState == b.PendingState &&
		a.PendingUntil.Equal(b.PendingUntil) && a.ExpiresAt.Equal(b.ExpiresAt) && slices.Equal(a.Scopes, b.Scopes) &&
		a.LastError == b.LastError
}
