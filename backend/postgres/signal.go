package postgres

import (
	"context"

	"github.com/jackc/pgx/v5"

	"github.com/agent-deck/agent-deck/backend"
)

const signalColumns = `s.id::text, s.status, COALESCE(s.playbook_id, ''), COALESCE(s.deck_id::text, ''),
	COALESCE(s.proposal_id::text, ''), s.rationale, s.evidence, s.session_id, s.client_name, s.created_at, s.token_id`

func scanSignal(row pgx.Row) (backend.Signal, error) {
	var g backend.Signal
	var status string
	err := row.Scan(&g.ID, &status, &g.PlaybookID, &g.DeckID, &g.ProposalID, &g.Rationale, &g.Evidence,
		&g.SessionID, &g.ClientName, &g.CreatedAt, &g.TokenID)
	g.Status = backend.SignalStatus(status)
	return g, err
}

// CreateSignal inserts a feedback signal and sets its id and creation time.
func (s *Store) CreateSignal(ctx context.Context, g *backend.Signal) error {
	const q = `
		INSERT INTO feedback_signals (status, playbook_id, deck_id, proposal_id, rationale, evidence,
			session_id, client_name, created_at, token_id)
		VALUES ($1, $2, $3, $4, $5, $6, $7, $8, COALESCE($9::timestamptz, now()), $10)
		RETURNING id::text, created_at`
	err := s.db.QueryRow(ctx, q, string(g.Status), nullString(g.PlaybookID), nullString(g.DeckID),
		nullString(g.ProposalID), g.Rationale, g.Evidence, g.SessionID, g.ClientName, nullTime(g.CreatedAt), g.TokenID).
		Scan(&g.ID, &g.CreatedAt)
	return classify("create signal", err)
}

// GetSignal finds a signal by id.
func (s *Store) GetSignal(ctx context.Context, id string) (backend.Signal, error) {
	u := asUUID(id)
	if u == "" {
		return backend.Signal{}, notFound("signal", id)
	}
	g, err := scanSignal(s.db.QueryRow(ctx, `SELECT `+signalColumns+` FROM feedback_signals s WHERE s.id = $1 FOR UPDATE`, u))
	return g, rowErr("get signal", "signal", id, err)
}

// ListSignals returns every signal, newest first.
func (s *Store) ListSignals(ctx context.Context) ([]backend.Signal, error) {
	rows, err := s.db.Query(ctx, `SELECT `+signalColumns+` FROM feedback_signals s ORDER BY s.created_at DESC, s.id`)
	if err != nil {
		return nil, classify("list signals", err)
	}
	out, err := pgx.CollectRows(rows, func(r pgx.CollectableRow) (backend.Signal, error) { return scanSignal(r) })
	return out, classify("list signals", err)
}

// SetSignals moves the signals to a status and proposal ("" clears the proposal).
func (s *Store) SetSignals(ctx context.Context, ids []string, status backend.SignalStatus, proposalID string) error {
	_, err := s.db.Exec(ctx, `UPDATE feedback_signals SET status = $2, proposal_id = $3::uuid
		WHERE id = ANY($1::text[]::uuid[])`, strs(ids), string(status), nullString(proposalID))
	return classify("set signals", err)
}

// SignalsOfProposal returns the ids of the signals tied to a proposal.
func (s *Store) SignalsOfProposal(ctx context.Context, proposalID string) ([]string, error) {
	rows, err := s.db.Query(ctx, `SELECT id::text FROM feedback_signals WHERE proposal_id = $1::uuid ORDER BY created_at`, proposalID)
	if err != nil {
		return nil, classify("list signals of a proposal", err)
	}
	out, err := pgx.CollectRows(rows, pgx.RowTo[string])
	return strs(out), classify("list signals of a proposal", err)
}

// OpenByToken counts the token's open proposals and open feedback signals.
func (s *Store) OpenByToken(ctx context.Context, tokenID string) (proposals, signals int, err error) {
	err = s.db.QueryRow(ctx, `SELECT
		(SELECT count(*) FROM playbook_proposals WHERE token_id = $1 AND status = 'open'),
		(SELECT count(*) FROM feedback_signals WHERE token_id = $1 AND status = 'open')`, tokenID).Scan(&proposals, &signals)
	return proposals, signals, classify("count open proposals and signals", err)
}
