package postgres

import (
	"bytes"
	"context"
	"fmt"

	"github.com/agent-deck/agent-deck/backend"
)

// sealedColumn is where a backend.SealedField lives: its table, id expression and column.
type sealedColumn struct {
	table, id, column string
}

// sealedColumns maps every sealed field to its column. A new sealed column is one row here.
var sealedColumns = []struct {
	field backend.SealedField
	col   sealedColumn
}{
	{backend.FieldCredentialSecret, sealedColumn{"credentials", "id", "sealed_secret"}},
	{backend.FieldServiceHeaders, sealedColumn{"services", "id::text", "sealed_headers"}},
	{backend.FieldServiceEnv, sealedColumn{"services", "id::text", "sealed_env"}},
	{backend.FieldServiceURLUserinfo, sealedColumn{"services", "id::text", "sealed_userinfo"}},
	{backend.FieldPersonalSecret, sealedColumn{"credential_person_secrets", "credential_id || '/' || person_id::text", "sealed_secret"}},
	{backend.FieldOAuthClient, sealedColumn{"service_oauth", "service_id::text", "sealed_client"}},
	{backend.FieldOAuthToken, sealedColumn{"service_oauth", "service_id::text", "sealed_token"}},
	{backend.FieldOAuthPending, sealedColumn{"service_oauth", "service_id::text", "sealed_pending"}},
	{backend.FieldPersonOAuthClient, sealedColumn{"service_person_oauth", "service_id::text || '/' || person_id::text", "sealed_client"}},
	{backend.FieldPersonOAuthToken, sealedColumn{"service_person_oauth", "service_id::text || '/' || person_id::text", "sealed_token"}},
	{backend.FieldPersonOAuthPending, sealedColumn{"service_person_oauth", "service_id::text || '/' || person_id::text", "sealed_pending"}},
}

func columnOf(f backend.SealedField) (sealedColumn, error) {
	for _, c := range sealedColumns {
		if c.field == f {
			return c.col, nil
		}
	}
	return sealedColumn{}, fmt.Errorf("postgres: no column for sealed field %s/%s", f.Table, f.Column)
}

// UpdateSecretKeyState runs fn with the recorded key state while holding that row's lock, so
// replicas starting at once take turns, and writes fn's re-sealed values and new state in the
// same transaction: either every value is re-sealed and the state recorded, or nothing changes.
func (s *Store) UpdateSecretKeyState(ctx context.Context, fn backend.SecretKeyStateFunc) error {
	return s.transact(ctx, func(tx *Store) error {
		var st backend.SecretKeyState
		var scheme int
		err := tx.db.QueryRow(ctx, `SELECT fingerprint, seal_scheme FROM secret_key_state FOR UPDATE`).
			Scan(&st.Fingerprint, &scheme)
		if err != nil {
			return classify("read the secret key state", err)
		}
		st.Bound = scheme == 1
		next, rewrite, err := fn(st, func() ([]backend.SealedValue, error) { return tx.sealedValues(ctx) })
		if err != nil {
			return err
		}
		for _, v := range rewrite {
			c, err := columnOf(v.Field)
			if err != nil {
				return err
			}
			q := `UPDATE ` + c.table + ` SET ` + c.column + ` = $2 WHERE ` + c.id + ` = $1`
			if _, err := tx.db.Exec(ctx, q, v.ID, v.Sealed); err != nil {
				return classify("re-seal a secret", err)
			}
		}
		if len(rewrite) == 0 && next.Bound == st.Bound && bytes.Equal(next.Fingerprint, st.Fingerprint) {
			return nil
		}
		scheme = 0
		if next.Bound {
			scheme = 1
		}
		_, err = tx.db.Exec(ctx, `UPDATE secret_key_state SET fingerprint = $1, seal_scheme = $2, updated_at = now()`,
			next.Fingerprint, scheme)
		return classify("record the secret key state", err)
	})
}

// sealedValues reads every non-empty sealed value.
func (s *Store) sealedValues(ctx context.Context) ([]backend.SealedValue, error) {
	var out []backend.SealedValue
	for _, c := range sealedColumns {
		rows, err := s.db.Query(ctx, `SELECT `+c.col.id+`, `+c.col.column+` FROM `+c.col.table+
			` WHERE length(`+c.col.column+`) > 0 ORDER BY 1`)
		if err != nil {
			return nil, classify("read sealed values", err)
		}
		for rows.Next() {
			v := backend.SealedValue{Field: c.field}
			if err := rows.Scan(&v.ID, &v.Sealed); err != nil {
				rows.Close()
				return nil, classify("read sealed values", err)
			}
			out = append(out, v)
		}
		if err := rows.Err(); err != nil {
			return nil, classify("read sealed values", err)
		}
	}
	return out, nil
}
