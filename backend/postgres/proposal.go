package postgres

import (
	"context"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/agent-deck/agent-deck/backend"
)

const proposalColumns = `p.id::text, p.status, p.kind, COALESCE(p.playbook_id, ''), COALESCE(p.deck_id::text, ''),
	p.ops, p.new_playbook, p.rationale, p.evidence, p.supersedes::text[], COALESCE(p.superseded_by::text, ''),
	p.session_id, p.client_name, p.token_id, p.reason, p.created_at, p.decided_at, p.edit, p.person_name, p.decided_by`

func scanProposal(row pgx.Row) (backend.Proposal, error) {
	var p backend.Proposal
	var status, kind string
	err := row.Scan(&p.ID, &status, &kind, &p.PlaybookID, &p.DeckID, &p.Ops, &p.NewPlaybook, &p.Rationale,
		&p.Evidence, &p.Supersedes, &p.SupersededBy, &p.SessionID, &p.ClientName, &p.TokenID, &p.Reason,
		&p.CreatedAt, &p.DecidedAt, &p.Edit, &p.Person, &p.DecidedBy)
	p.Status, p.Kind = backend.ProposalStatus(status), backend.ProposalKind(kind)
	p.Supersedes = strs(p.Supersedes)
	if p.Ops == nil {
		p.Ops = []backend.PlaybookOp{}
	}
	return p, err
}

// LockPlaybook takes a row lock on the playbook until the transaction ends.
func (s *Store) LockPlaybook(ctx context.Context, id string) error {
	var one int
	err := s.db.QueryRow(ctx, `SELECT 1 FROM playbooks WHERE id = $1 FOR UPDATE`, id).Scan(&one)
	return rowErr("lock playbook", "playbook", id, err)
}

// CreateProposal inserts an open proposal and sets its id and creation time.
func (s *Store) CreateProposal(ctx context.Context, p *backend.Proposal) error {
	const q = `
		INSERT INTO playbook_proposals (status, kind, playbook_id, deck_id, ops, new_playbook, rationale,
			evidence, supersedes, session_id, client_name, token_id, created_at, edit, person_name)
		VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9::text[]::uuid[], $10, $11, $12, COALESCE($13::timestamptz, now()), $14,
			COALESCE((SELECT x.name FROM tokens t JOIN people x ON x.id = t.person_id WHERE t.id::text = $12), ''))
		RETURNING id::text, created_at, person_name`
	ops := p.Ops
	if ops == nil {
		ops = []backend.PlaybookOp{}
	}
	err := s.db.QueryRow(ctx, q, string(p.Status), string(p.Kind), nullString(p.PlaybookID), nullString(p.DeckID),
		ops, p.NewPlaybook, p.Rationale, p.Evidence, strs(p.Supersedes), p.SessionID, p.ClientName, p.TokenID,
		nullTime(p.CreatedAt), p.Edit).Scan(&p.ID, &p.CreatedAt, &p.Person)
	return classify("create proposal", err)
}

// GetProposal finds a proposal by id and locks its row until the transaction ends.
func (s *Store) GetProposal(ctx context.Context, id string) (backend.Proposal, error) {
	u := asUUID(id)
	if u == "" {
		return backend.Proposal{}, notFound("proposal", id)
	}
	p, err := scanProposal(s.db.QueryRow(ctx, `SELECT `+proposalColumns+` FROM playbook_proposals p
		WHERE p.id = $1 FOR UPDATE`, u))
	return p, rowErr("get proposal", "proposal", id, err)
}

// ListProposals returns the matching proposals, newest first.
func (s *Store) ListProposals(ctx context.Context, f backend.ProposalFilter) ([]backend.Proposal, error) {
	rows, err := s.db.Query(ctx, `SELECT `+proposalColumns+` FROM playbook_proposals p
		WHERE ($1 = '' OR p.status = $1) AND ($2 = '' OR p.playbook_id = $2) AND ($3 = '' OR p.deck_id::text = $3)
		ORDER BY p.created_at DESC, p.id`, string(f.Status), f.PlaybookID, f.DeckID)
	if err != nil {
		return nil, classify("list proposals", err)
	}
	out, err := pgx.CollectRows(rows, func(r pgx.CollectableRow) (backend.Proposal, error) { return scanProposal(r) })
	return out, classify("list proposals", err)
}

// UpdateProposal writes what review changes: status, superseded_by, playbook_id, reason and
// decided_at.
func (s *Store) UpdateProposal(ctx context.Context, p *backend.Proposal) error {
	var one int
	err := s.db.QueryRow(ctx, `UPDATE playbook_proposals SET status = $2, superseded_by = $3::uuid,
		playbook_id = $4, reason = $5, decided_at = $6, decided_by = $7 WHERE id = $1::uuid RETURNING 1`,
		p.ID, string(p.Status), nullString(p.SupersededBy), nullString(p.PlaybookID), p.Reason, p.DecidedAt, p.DecidedBy).Scan(&one)
	return rowErr("update proposal", "proposal", p.ID, err)
}

// RecordPlaybookFetch stores one get_playbook.
func (s *Store) RecordPlaybookFetch(ctx context.Context, f backend.PlaybookFetch) error {
	_, err := s.db.Exec(ctx, `INSERT INTO playbook_fetches (playbook_id, session_id, client_name, fetched_at)
		VALUES ($1, $2, $3, COALESCE($4::timestamptz, now()))`, f.PlaybookID, f.SessionID, f.ClientName, nullTime(f.At))
	return classify("record playbook fetch", err)
}

// PlaybookFetchStats counts fetch events per playbook, most fetched first.
func (s *Store) PlaybookFetchStats(ctx context.Context) ([]backend.PlaybookFetchStat, error) {
	rows, err := s.db.Query(ctx, `SELECT playbook_id, count(*), max(fetched_at) FROM playbook_fetches
		GROUP BY playbook_id ORDER BY count(*) DESC, playbook_id`)
	if err != nil {
		return nil, classify("count playbook fetches", err)
	}
	out, err := pgx.CollectRows(rows, func(r pgx.CollectableRow) (backend.PlaybookFetchStat, error) {
		var st backend.PlaybookFetchStat
		return st, r.Scan(&st.PlaybookID, &st.Fetches, &st.LastFetched)
	})
	return out, classify("count playbook fetches", err)
}

// PrunePlaybookFetches deletes fetch events older than before.
func (s *Store) PrunePlaybookFetches(ctx context.Context, before time.Time) (int, error) {
	tag, err := s.db.Exec(ctx, `DELETE FROM playbook_fetches WHERE fetched_at < $1`, before)
	if err != nil {
		return 0, classify("prune playbook fetches", err)
	}
	return int(tag.RowsAffected()), nil
}
