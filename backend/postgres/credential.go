package postgres

import (
	"context"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/agent-deck/agent-deck/backend"
)

const credentialColumns = `c.id, c.label, c.scheme, c.header_name, c.env_name, c.tags, c.docs_url,
	c.sealed_secret, c.created_at, c.updated_at, c.owner_id::text, c.personal`

func scanCredential(row pgx.Row) (backend.CredentialRecord, error) {
	var r backend.CredentialRecord
	var scheme string
	err := row.Scan(&r.ID, &r.Label, &scheme, &r.HeaderName, &r.EnvName, &r.Tags, &r.DocsURL,
		&r.SealedSecret, &r.CreatedAt, &r.UpdatedAt, &r.OwnerID, &r.Personal)
	r.Scheme, r.Tags, r.HasSecret = backend.AuthScheme(scheme), strs(r.Tags), len(r.SealedSecret) > 0
	return r, err
}

func collectCredentials(rows pgx.Rows, err error) ([]backend.CredentialRecord, error) {
	if err != nil {
		return nil, classify("list credentials", err)
	}
	out, err := pgx.CollectRows(rows, func(r pgx.CollectableRow) (backend.CredentialRecord, error) { return scanCredential(r) })
	if err != nil {
		return nil, classify("list credentials", err)
	}
	return out, nil
}

// CreateCredential inserts the credential with its sealed secret (nil for none). The id is the
// caller's (cred_<slug>); timestamps are filled when empty.
func (s *Store) CreateCredential(ctx context.Context, r *backend.CredentialRecord) error {
	st := createCredentialStmt(r)
	return classify(st.op, st.scan(s.db.QueryRow(ctx, st.sql, st.args...)))
}

// CreateCredentials creates credentials in order in one COPY (copyIn).
func (s *Store) CreateCredentials(ctx context.Context, rs []*backend.CredentialRecord) error {
	stmts, rows := make([]stmt, len(rs)), make([][]any, len(rs))
	now := time.Now()
	for i, r := range rs {
		stmts[i] = createCredentialStmt(r)
		if r.Scheme == "" {
			r.Scheme = backend.SchemeBearer
		}
		fillTimes(&r.CreatedAt, &r.UpdatedAt, now)
		r.HasSecret = len(r.SealedSecret) > 0
		rows[i] = []any{r.ID, r.Label, string(r.Scheme), r.HeaderName, r.EnvName, strs(r.Tags), r.DocsURL,
			r.SealedSecret, r.CreatedAt, r.UpdatedAt, r.Personal}
	}
	owners := make([]*string, len(rs))
	for i, r := range rs {
		owners[i] = &r.OwnerID
	}
	ids, err := s.copyOwners(ctx, owners)
	if err != nil {
		return s.runBatch(ctx, stmts) // an owner that is no UUID: the statements refuse it
	}
	for i := range rows {
		rows[i] = append(rows[i], ids[i])
	}
	return s.copyIn(ctx, "credentials", []string{"id", "label", "scheme", "header_name", "env_name", "tags",
		"docs_url", "sealed_secret", "created_at", "updated_at", "personal", "owner_id"}, rows, stmts)
}

func createCredentialStmt(r *backend.CredentialRecord) stmt {
	const q = `
		INSERT INTO credentials (id, label, scheme, header_name, env_name, tags, docs_url, sealed_secret,
			created_at, updated_at, owner_id, personal)
		VALUES ($1, $2, COALESCE(NULLIF($3, ''), 'bearer'), $4, $5, $6, $7, $8,
			COALESCE($9::timestamptz, now()), COALESCE($9::timestamptz, now()),
			COALESCE(NULLIF($10, '')::uuid, ` + founderID + `), $11)
		RETURNING scheme, created_at, updated_at, owner_id::text`
	return stmt{op: "create credential", sql: q, args: []any{r.ID, r.Label, string(r.Scheme), r.HeaderName,
		r.EnvName, strs(r.Tags), r.DocsURL, r.SealedSecret, nullTime(r.CreatedAt), r.OwnerID, r.Personal}, scan: func(row pgx.Row) error {
		var scheme string
		if err := row.Scan(&scheme, &r.CreatedAt, &r.UpdatedAt, &r.OwnerID); err != nil {
			return err
		}
		r.Scheme, r.HasSecret = backend.AuthScheme(scheme), len(r.SealedSecret) > 0
		return nil
	}}
}

// UpdateCredential writes the metadata and the sealed secret (rotation is an update with a
// new SealedSecret) and sets updated_at to now.
func (s *Store) UpdateCredential(ctx context.Context, r *backend.CredentialRecord) error {
	const q = `
		UPDATE credentials SET label = $2, scheme = COALESCE(NULLIF($3, ''), 'bearer'), header_name = $4,
			env_name = $5, tags = $6, docs_url = $7, sealed_secret = $8, personal = $9, updated_at = now()
		WHERE id = $1
		RETURNING scheme, created_at, updated_at`
	var scheme string
	err := s.db.QueryRow(ctx, q, r.ID, r.Label, string(r.Scheme), r.HeaderName, r.EnvName, strs(r.Tags),
		r.DocsURL, r.SealedSecret, r.Personal).Scan(&scheme, &r.CreatedAt, &r.UpdatedAt)
	if err != nil {
		return rowErr("update credential", "credential", r.ID, err)
	}
	r.Scheme, r.HasSecret = backend.AuthScheme(scheme), len(r.SealedSecret) > 0
	return nil
}

// DeleteCredential removes the credential and its deck links; services using it lose it.
func (s *Store) DeleteCredential(ctx context.Context, id string) error {
	return s.execOne(ctx, "delete credential", "credential", id, `DELETE FROM credentials WHERE id = $1`, id)
}

// GetCredential finds a credential by id or by label, case-insensitively; an id match wins.
func (s *Store) GetCredential(ctx context.Context, ref string) (backend.CredentialRecord, error) {
	const q = `
		SELECT ` + credentialColumns + ` FROM credentials c
		WHERE c.id = $1 OR lower(c.label) = lower($1)
		ORDER BY c.id = $1 DESC LIMIT 1`
	r, err := scanCredential(s.db.QueryRow(ctx, q, ref))
	return r, rowErr("get credential", "credential", ref, err)
}

// ListCredentials returns every credential by label.
func (s *Store) ListCredentials(ctx context.Context) ([]backend.CredentialRecord, error) {
	return collectCredentials(s.db.Query(ctx, `SELECT `+credentialColumns+` FROM credentials c ORDER BY lower(c.label), c.label`))
}
