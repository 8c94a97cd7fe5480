package postgres

import (
	"context"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/agent-deck/agent-deck/backend"
)

const execColumns = `a.id, a.credential_ids, COALESCE(a.deck_id::text, ''), a.command, a.exit_code,
	COALESCE(a.token_id::text, ''), a.created_at, a.finished_at`

// CreateExecAudit records an exec before it runs and sets a.ID and a.CreatedAt.
func (s *Store) CreateExecAudit(ctx context.Context, a *backend.ExecAudit) error {
	const q = `
		INSERT INTO exec_audit (credential_ids, deck_id, command, exit_code, token_id, created_at, finished_at)
		VALUES ($1, $2, $3, $4, $5, COALESCE($6::timestamptz, now()), $7)
		RETURNING id, created_at`
	err := s.db.QueryRow(ctx, q, strs(a.CredentialIDs), nullString(a.DeckID), strs(a.Command), a.ExitCode,
		nullString(a.TokenID), nullTime(a.CreatedAt), a.FinishedAt).Scan(&a.ID, &a.CreatedAt)
	return classify("record exec", err)
}

// FinishExecAudit records how the command ended.
func (s *Store) FinishExecAudit(ctx context.Context, id int64, exitCode int, at time.Time) error {
	tag, err := s.db.Exec(ctx, `UPDATE exec_audit SET exit_code = $2, finished_at = $3 WHERE id = $1`, id, exitCode, at)
	if err != nil {
		return classify("finish exec", err)
	}
	if tag.RowsAffected() == 0 {
		return backend.Errorf(backend.CodeNotFound, "exec audit entry %d not found", id)
	}
	return nil
}

// ListExecAudits returns the audit trail, newest first.
func (s *Store) ListExecAudits(ctx context.Context) ([]backend.ExecAudit, error) {
	rows, err := s.db.Query(ctx, `SELECT `+execColumns+` FROM exec_audit a ORDER BY a.id DESC`)
	if err != nil {
		return nil, classify("list exec audit", err)
	}
	out, err := pgx.CollectRows(rows, func(r pgx.CollectableRow) (backend.ExecAudit, error) {
		var a backend.ExecAudit
		err := r.Scan(&a.ID, &a.CredentialIDs, &a.DeckID, &a.Command, &a.ExitCode, &a.TokenID, &a.CreatedAt, &a.FinishedAt)
		a.CredentialIDs, a.Command = strs(a.CredentialIDs), strs(a.Command)
		return a, err
	})
	if err != nil {
		return nil, classify("list exec audit", err)
	}
	return out, nil
}
