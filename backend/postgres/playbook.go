package postgres

import (
	"context"
	"errors"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/agent-deck/agent-deck/backend"
)

const playbookColumns = `p.id, p.title, p.body, p.triggers, p.exec, p.skill, p.depends_on_credential_ids,
	p.depends_on_service_ids, p.explicit_credential_ids, p.explicit_service_ids, p.created_at, p.updated_at,
	p.owner_id::text`

func scanPlaybook(row pgx.Row) (backend.Playbook, error) {
	var p backend.Playbook
	err := row.Scan(&p.ID, &p.Title, &p.Body, &p.Triggers, &p.Exec, &p.Skill, &p.DependsOnCredentialIDs,
		&p.DependsOnServiceIDs, &p.ExplicitCredentialIDs, &p.ExplicitServiceIDs, &p.CreatedAt, &p.UpdatedAt, &p.OwnerID)
	p.Triggers, p.DependsOnCredentialIDs, p.DependsOnServiceIDs =
		strs(p.Triggers), strs(p.DependsOnCredentialIDs), strs(p.DependsOnServiceIDs)
	p.ExplicitCredentialIDs, p.ExplicitServiceIDs = strs(p.ExplicitCredentialIDs), strs(p.ExplicitServiceIDs)
	return p, err
}

func collectPlaybooks(rows pgx.Rows, err error) ([]backend.Playbook, error) {
	if err != nil {
		return nil, classify("list playbooks", err)
	}
	out, err := pgx.CollectRows(rows, func(r pgx.CollectableRow) (backend.Playbook, error) { return scanPlaybook(r) })
	if err != nil {
		return nil, classify("list playbooks", err)
	}
	return out, nil
}

// CreatePlaybook inserts the playbook under the caller's id (pb_<slug>), filling timestamps
// when empty.
func (s *Store) CreatePlaybook(ctx context.Context, p *backend.Playbook) error {
	st := createPlaybookStmt(p)
	return classify(st.op, st.scan(s.db.QueryRow(ctx, st.sql, st.args...)))
}

// CreatePlaybooks creates playbooks in order in one COPY (copyIn).
func (s *Store) CreatePlaybooks(ctx context.Context, ps []*backend.Playbook) error {
	stmts, rows := make([]stmt, len(ps)), make([][]any, len(ps))
	now := time.Now()
	for i, p := range ps {
		stmts[i] = createPlaybookStmt(p)
		fillTimes(&p.CreatedAt, &p.UpdatedAt, now)
		rows[i] = []any{p.ID, p.Title, p.Body, strs(p.Triggers), p.Exec, p.Skill, strs(p.DependsOnCredentialIDs),
			strs(p.DependsOnServiceIDs), strs(p.ExplicitCredentialIDs), strs(p.ExplicitServiceIDs), p.CreatedAt, p.UpdatedAt}
	}
	owners := make([]*string, len(ps))
	for i, p := range ps {
		owners[i] = &p.OwnerID
	}
	ids, err := s.copyOwners(ctx, owners)
	if err != nil {
		return s.runBatch(ctx, stmts) // an owner that is no UUID: the statements refuse it
	}
	for i := range rows {
		rows[i] = append(rows[i], ids[i])
	}
	return s.copyIn(ctx, "playbooks", []string{"id", "title", "body", "triggers", "exec", "skill",
		"depends_on_credential_ids", "depends_on_service_ids", "explicit_credential_ids", "explicit_service_ids",
		"created_at", "updated_at", "owner_id"}, rows, stmts)
}

func createPlaybookStmt(p *backend.Playbook) stmt {
	const q = `
		INSERT INTO playbooks (id, title, body, triggers, exec, skill, depends_on_credential_ids,
			depends_on_service_ids, explicit_credential_ids, explicit_service_ids, created_at, updated_at, owner_id)
		VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10,
			COALESCE($11::timestamptz, now()), COALESCE($11::timestamptz, now()),
			COALESCE(NULLIF($12, '')::uuid, ` + founderID + `))
		RETURNING created_at, updated_at, owner_id::text`
	return stmt{op: "create playbook", sql: q, args: []any{p.ID, p.Title, p.Body, strs(p.Triggers), p.Exec, p.Skill,
		strs(p.DependsOnCredentialIDs), strs(p.DependsOnServiceIDs),
		strs(p.ExplicitCredentialIDs), strs(p.ExplicitServiceIDs), nullTime(p.CreatedAt), p.OwnerID},
		scan: func(row pgx.Row) error { return row.Scan(&p.CreatedAt, &p.UpdatedAt, &p.OwnerID) }}
}

// UpdatePlaybook writes every field and sets updated_at to now.
func (s *Store) UpdatePlaybook(ctx context.Context, p *backend.Playbook) error {
	const q = `
		UPDATE playbooks SET title = $2, body = $3, triggers = $4, exec = $5, skill = $6,
			depends_on_credential_ids = $7, depends_on_service_ids = $8,
			explicit_credential_ids = $9, explicit_service_ids = $10, updated_at = now()
		WHERE id = $1
		RETURNING created_at, updated_at`
	err := s.db.QueryRow(ctx, q, p.ID, p.Title, p.Body, strs(p.Triggers), p.Exec, p.Skill,
		strs(p.DependsOnCredentialIDs), strs(p.DependsOnServiceIDs),
		strs(p.ExplicitCredentialIDs), strs(p.ExplicitServiceIDs)).Scan(&p.CreatedAt, &p.UpdatedAt)
	return rowErr("update playbook", "playbook", p.ID, err)
}

// DeletePlaybook removes the playbook, its versions and its deck links (cascade).
func (s *Store) DeletePlaybook(ctx context.Context, id string) error {
	return s.execOne(ctx, "delete playbook", "playbook", id, `DELETE FROM playbooks WHERE id = $1`, id)
}

// GetPlaybook finds a playbook by id or by title, case-insensitively; an id match wins.
func (s *Store) GetPlaybook(ctx context.Context, ref string) (backend.Playbook, error) {
	const q = `
		SELECT ` + playbookColumns + ` FROM playbooks p
		WHERE p.id = $1 OR lower(p.title) = lower($1)
		ORDER BY p.id = $1 DESC LIMIT 1`
	p, err := scanPlaybook(s.db.QueryRow(ctx, q, ref))
	return p, rowErr("get playbook", "playbook", ref, err)
}

// ListPlaybooks returns every playbook by title.
func (s *Store) ListPlaybooks(ctx context.Context) ([]backend.Playbook, error) {
	return collectPlaybooks(s.db.Query(ctx, `SELECT `+playbookColumns+` FROM playbooks p ORDER BY lower(p.title), p.title`))
}

// PlaybooksDependingOn returns, by title, the playbooks whose declared dependencies include
// the service or credential (playbooks cannot be depended on: always empty).
func (s *Store) PlaybooksDependingOn(ctx context.Context, t backend.CardType, cardID string) ([]backend.Playbook, error) {
	var column string
	switch t {
	case backend.CardService:
		column = "depends_on_service_ids"
	case backend.CardCredential:
		column = "depends_on_credential_ids"
	case backend.CardPlaybook:
		return []backend.Playbook{}, nil
	default:
		_, err := lookupCardTable(t)
		return nil, err
	}
	return collectPlaybooks(s.db.Query(ctx, `
		SELECT `+playbookColumns+` FROM playbooks p WHERE p.`+column+` @> ARRAY[$1::text]
		ORDER BY lower(p.title), p.title`, cardID))
}

// AddPlaybookVersion stores v.Snapshot as the playbook's next version and sets v.Version and
// v.CreatedAt. The number comes from a counter on the playbook row, so concurrent writers
// serialize on that row and never collide.
func (s *Store) AddPlaybookVersion(ctx context.Context, v *backend.PlaybookVersion) error {
	const q = `
		WITH seq AS (
			UPDATE playbooks SET version_seq = version_seq + 1 WHERE id = $1 RETURNING version_seq
		)
		INSERT INTO playbook_versions (playbook_id, version, snapshot, actor, created_at, proposal_id, person_name)
		SELECT $1, seq.version_seq, $2, $3, COALESCE($4::timestamptz, now()), $5::uuid, $6 FROM seq
		RETURNING version, created_at`
	err := s.db.QueryRow(ctx, q, v.PlaybookID, v.Snapshot, string(v.Actor), nullTime(v.CreatedAt),
		nullString(v.ProposalID), v.Person).
		Scan(&v.Version, &v.CreatedAt)
	return rowErr("add playbook version", "playbook", v.PlaybookID, err)
}

const versionColumns = `v.playbook_id, v.version, v.snapshot, v.actor, v.created_at,
	COALESCE(v.proposal_id::text, ''), v.person_name`

func scanVersion(row pgx.Row) (backend.PlaybookVersion, error) {
	var v backend.PlaybookVersion
	var actor string
	err := row.Scan(&v.PlaybookID, &v.Version, &v.Snapshot, &actor, &v.CreatedAt, &v.ProposalID, &v.Person)
	v.Actor = backend.ActorKind(actor)
	v.Snapshot.Triggers = strs(v.Snapshot.Triggers)
	v.Snapshot.DependsOnCredentialIDs = strs(v.Snapshot.DependsOnCredentialIDs)
	v.Snapshot.DependsOnServiceIDs = strs(v.Snapshot.DependsOnServiceIDs)
	return v, err
}

// ListPlaybookVersions returns the playbook's versions, newest first.
func (s *Store) ListPlaybookVersions(ctx context.Context, playbookID string) ([]backend.PlaybookVersion, error) {
	rows, err := s.db.Query(ctx, `SELECT `+versionColumns+` FROM playbook_versions v
		WHERE v.playbook_id = $1 ORDER BY v.version DESC`, playbookID)
	if err != nil {
		return nil, classify("list playbook versions", err)
	}
	out, err := pgx.CollectRows(rows, func(r pgx.CollectableRow) (backend.PlaybookVersion, error) { return scanVersion(r) })
	if err != nil {
		return nil, classify("list playbook versions", err)
	}
	return out, nil
}

// GetPlaybookVersion returns one version of a playbook.
func (s *Store) GetPlaybookVersion(ctx context.Context, playbookID string, version int) (backend.PlaybookVersion, error) {
	v, err := scanVersion(s.db.QueryRow(ctx, `SELECT `+versionColumns+` FROM playbook_versions v
		WHERE v.playbook_id = $1 AND v.version = $2`, playbookID, version))
	if errors.Is(err, pgx.ErrNoRows) {
		return v, backend.Errorf(backend.CodeNotFound, "playbook %q has no version %d", playbookID, version).
			WithDetail("field", "version")
	}
	return v, classify("get playbook version", err)
}
