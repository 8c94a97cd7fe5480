package postgres

import (
	"context"

	"github.com/agent-deck/agent-deck/backend"
)

// idTables is the table of each kind of row addressed by id.
var idTables = map[backend.IDKind]string{
	backend.IDDeck:       "decks",
	backend.IDService:    "services",
	backend.IDCredential: "credentials",
	backend.IDPlaybook:   "playbooks",
	backend.IDProposal:   "playbook_proposals",
	backend.IDSignal:     "feedback_signals",
	backend.IDToken:      "tokens",
	backend.IDSession:    "mcp_sessions",
}

// ListIDsWithPrefix returns up to limit ids of kind that start with prefix, ignoring case. It
// runs only after an exact lookup found nothing, so it scans rather than needing an index.
func (s *Store) ListIDsWithPrefix(ctx context.Context, kind backend.IDKind, prefix string, limit int) ([]string, error) {
	table, ok := idTables[kind]
	if !ok {
		return nil, backend.Invalid("kind", "%q is not a kind of row addressed by id", string(kind))
	}
	rows, err := s.db.Query(ctx, `SELECT id::text FROM `+table+`
		WHERE starts_with(lower(id::text), lower($1)) ORDER BY id::text LIMIT $2`, prefix, limit)
	if err != nil {
		return nil, classify("list ids by prefix", err)
	}
	defer rows.Close()
	var out []string
	for rows.Next() {
		var id string
		if err := rows.Scan(&id); err != nil {
			return nil, classify("list ids by prefix", err)
		}
		out = append(out, id)
	}
	return out, classify("list ids by prefix", rows.Err())
}
