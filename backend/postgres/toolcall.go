package postgres

import (
	"context"
	"strconv"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/agent-deck/agent-deck/backend"
)

// insertToolCall resolves names at write time, off the call path: the token's name, and for a
// REST call the deck the caller named ($5, an id or a name) when no deck id is known. Arguments
// are kept only when the deck had argument capture on when the call was made.
const insertToolCall = `
	INSERT INTO tool_calls (at, token_id, token_name, session_id, client_name, deck_id, deck_name,
		service_id, service_name, tool, duration_us, outcome, error_code, result_bytes, arguments,
		person_id, person_name)
	SELECT $1, t.id, COALESCE(t.name, ''), $3, $4, d.id, COALESCE(d.name, $5), $6::uuid, $7, $8, $9, $10, $11, $12,
		CASE WHEN a.capture_arguments AND $1 >= a.capture_since THEN $13::jsonb END,
		t.person_id, COALESCE(p.name, '')
	FROM (SELECT 1) AS one
	LEFT JOIN tokens t ON t.id = $2::uuid
	LEFT JOIN people p ON p.id = t.person_id
	LEFT JOIN LATERAL (
		SELECT id, name FROM decks
		WHERE id = $14::uuid OR ($14::uuid IS NULL AND (id::text = $5 OR lower(name) = lower($5)))
		LIMIT 1) d ON true
	LEFT JOIN deck_audit_settings a ON a.deck_id = d.id`

// InsertToolCalls writes a batch of audit entries in one round trip.
func (s *Store) InsertToolCalls(ctx context.Context, calls []backend.ToolCall) error {
	b := &pgx.Batch{}
	for _, c := range calls {
		var args any
		if len(c.Arguments) > 0 {
			args = string(c.Arguments)
		}
		b.Queue(insertToolCall, c.At, nullString(asUUID(c.TokenID)), c.SessionID, c.ClientName, c.DeckName,
			nullString(asUUID(c.ServiceID)), c.ServiceName, c.Tool, c.Duration.Microseconds(), string(c.Outcome),
			string(c.ErrorCode), c.ResultBytes, args, nullString(asUUID(c.DeckID)))
	}
	return classify("record tool calls", s.db.SendBatch(ctx, b).Close())
}

const toolCallColumns = `c.id, c.at, COALESCE(c.token_id::text, ''), c.token_name, c.session_id, c.client_name,
	COALESCE(c.deck_id::text, ''), c.deck_name, COALESCE(c.service_id::text, ''), c.service_name, c.tool,
	c.duration_us, c.outcome, c.error_code, c.result_bytes, c.arguments, COALESCE(c.person_id::text, ''), c.person_name`

// ListToolCalls returns the entries q selects, newest first. Service and deck match an id or a
// name, case-insensitively.
func (s *Store) ListToolCalls(ctx context.Context, q backend.ToolCallQuery) ([]backend.ToolCall, error) {
	sql := `SELECT ` + toolCallColumns + ` FROM tool_calls c WHERE true`
	var args []any
	arg := func(v any) string {
		args = append(args, v)
		return "$" + strconv.Itoa(len(args))
	}
	if q.Person != "" {
		p := arg(q.Person)
		sql += ` AND (c.person_id::text = ` + p + ` OR lower(c.person_name) = lower(` + p + `))`
	}
	if q.Service != "" {
		p := arg(q.Service)
		sql += ` AND (c.service_id::text = ` + p + ` OR lower(c.service_name) = lower(` + p + `))`
	}
	if q.Deck != "" {
		p := arg(q.Deck)
		sql += ` AND (c.deck_id::text = ` + p + ` OR lower(c.deck_name) = lower(` + p + `))`
	}
	if q.Session != "" {
		sql += ` AND c.session_id = ` + arg(q.Session)
	}
	if q.Tool != "" {
		sql += ` AND c.tool = ` + arg(q.Tool)
	}
	if q.Outcome != "" {
		sql += ` AND c.outcome = ` + arg(string(q.Outcome))
	}
	if !q.Since.IsZero() {
		sql += ` AND c.at >= ` + arg(q.Since)
	}
	if !q.Until.IsZero() {
		sql += ` AND c.at < ` + arg(q.Until)
	}
	if q.Before > 0 {
		sql += ` AND c.id < ` + arg(q.Before)
	}
	sql += ` ORDER BY c.id DESC LIMIT ` + arg(q.Limit)
	rows, err := s.db.Query(ctx, sql, args...)
	if err != nil {
		return nil, classify("list tool calls", err)
	}
	out, err := pgx.CollectRows(rows, func(r pgx.CollectableRow) (backend.ToolCall, error) {
		var c backend.ToolCall
		var us int64
		var outcome, code string
		var argsJSON []byte
		err := r.Scan(&c.ID, &c.At, &c.TokenID, &c.TokenName, &c.SessionID, &c.ClientName, &c.DeckID, &c.DeckName,
			&c.ServiceID, &c.ServiceName, &c.Tool, &us, &outcome, &code, &c.ResultBytes, &argsJSON, &c.PersonID, &c.Person)
		c.Duration = time.Duration(us) * time.Microsecond
		c.DurationMS = float64(us) / 1000
		c.Outcome, c.ErrorCode = backend.CallOutcome(outcome), backend.Code(code)
		if len(argsJSON) > 0 {
			c.Arguments = argsJSON
		}
		return c, err
	})
	if err != nil {
		return nil, classify("list tool calls", err)
	}
	return out, nil
}

// PruneToolCalls deletes entries older than before.
func (s *Store) PruneToolCalls(ctx context.Context, before time.Time) (int64, error) {
	tag, err := s.db.Exec(ctx, `DELETE FROM tool_calls WHERE at < $1`, before)
	if err != nil {
		return 0, classify("prune tool calls", err)
	}
	return tag.RowsAffected(), nil
}

// SetDeckArgumentCapture turns argument capture on or off for one deck; calls made from at on
// are captured. Turning it on again keeps the earlier start.
func (s *Store) SetDeckArgumentCapture(ctx context.Context, deckID string, on bool, at time.Time) error {
	var since any
	if on {
		since = at
	}
	_, err := s.db.Exec(ctx, `
		INSERT INTO deck_audit_settings (deck_id, capture_arguments, capture_since) VALUES ($1, $2, $3)
		ON CONFLICT (deck_id) DO UPDATE SET capture_arguments = EXCLUDED.capture_arguments,
			capture_since = CASE WHEN deck_audit_settings.capture_arguments AND EXCLUDED.capture_arguments
				THEN deck_audit_settings.capture_since ELSE EXCLUDED.capture_since END`, deckID, on, since)
	return classify("save deck audit settings", err)
}
