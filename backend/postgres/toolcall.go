package postgres

import (
	"context"
	"strconv"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/agent-deck/agent-deck/backend"
)

// insertToolCalls writes a batch of entries in one statement, one row per element of its
// arrays (in order), resolving names at write time, off the call path: the token's name, and
// for a REST call the deck the caller named (an id or a name) when no deck id is known.
// Arguments are kept only when the deck had argument capture on when the call was made. An
// empty id or argument text is NULL. The deck is found by its key when the call knows it (the
// first branch of the lateral join, an index lookup); the name is searched only when it does not.
const insertToolCalls = `
	INSERT INTO tool_calls (at, token_id, token_name, session_id, client_name, deck_id, deck_name,
		service_id, service_name, tool, duration_us, outcome, error_code, result_bytes, arguments,
		person_id, person_name)
	SELECT c.at, t.id, COALESCE(t.name, ''), c.session_id, c.client_name, d.id, COALESCE(d.name, c.deck_name),
		NULLIF(c.service_id, '')::uuid, c.service_name, c.tool, c.duration_us, c.outcome, c.error_code, c.result_bytes,
		CASE WHEN a.capture_arguments AND c.at >= a.capture_since THEN NULLIF(c.arguments, '')::jsonb END,
		t.person_id, COALESCE(p.name, '')
	FROM unnest($1::timestamptz[], $2::text[], $3::text[], $4::text[], $5::text[], $6::text[], $7::text[],
		$8::text[], $9::bigint[], $10::text[], $11::text[], $12::bigint[], $13::text[], $14::text[])
		WITH ORDINALITY AS c(at, token_id, session_id, client_name, deck_name, service_id, service_name,
			tool, duration_us, outcome, error_code, result_bytes, arguments, deck_id, n)
	LEFT JOIN tokens t ON t.id = NULLIF(c.token_id, '')::uuid
	LEFT JOIN people p ON p.id = t.person_id
	LEFT JOIN LATERAL (
		SELECT id, name FROM decks WHERE id = NULLIF(c.deck_id, '')::uuid
		UNION ALL
		SELECT id, name FROM decks
		WHERE NULLIF(c.deck_id, '') IS NULL AND (id::text = c.deck_name OR lower(name) = lower(c.deck_name))
		LIMIT 1) d ON true
	LEFT JOIN deck_audit_settings a ON a.deck_id = d.id
	ORDER BY c.n`

// InsertToolCalls writes a batch of audit entries in one round trip: one statement over a
// column of values each, not a statement per entry.
func (s *Store) InsertToolCalls(ctx context.Context, calls []backend.ToolCall) error {
	n := len(calls)
	at, durations, sizes := make([]time.Time, n), make([]int64, n), make([]int64, n)
	text := func() []string { return make([]string, n) }
	tokens, sessions, clients, deckNames, services, serviceNames := text(), text(), text(), text(), text(), text()
	tools, outcomes, codes, args, decks := text(), text(), text(), text(), text()
	for i, c := range calls {
		at[i], durations[i], sizes[i] = c.At, c.Duration.Microseconds(), int64(c.ResultBytes)
		tokens[i], sessions[i], clients[i], deckNames[i] = asUUID(c.TokenID), c.SessionID, c.ClientName, c.DeckName
		services[i], serviceNames[i], tools[i] = asUUID(c.ServiceID), c.ServiceName, c.Tool
		outcomes[i], codes[i], args[i], decks[i] = string(c.Outcome), string(c.ErrorCode), string(c.Arguments), asUUID(c.DeckID)
	}
	_, err := s.db.Exec(ctx, insertToolCalls, at, tokens, sessions, clients, deckNames, services, serviceNames,
		tools, durations, outcomes, codes, sizes, args, decks)
	return classify("record tool calls", err)
}

const toolCallColumns = `c.id, c.at, COALESCE(c.token_id::text, ''), c.token_name, c.session_id, c.client_name,
	COALESCE(c.deck_id::text, ''), c.deck_name, COALESCE(c.service_id::text, ''), c.service_name, c.tool,
	c.duration_us, c.outcome, c.error_code, c.result_bytes, c.arguments, COALESCE(c.person_id::text, ''), c.person_name`

// sqlArgs numbers a query's parameters as they are added.
type sqlArgs []any

func (a *sqlArgs) add(v any) string {
	*a = append(*a, v)
	return "$" + strconv.Itoa(len(*a))
}

// toolCallWhere is the filter shared by the list and the counts: service, deck and token match
// an id or a name, case-insensitively.
func toolCallWhere(args *sqlArgs, service, deck, token, tool string, since, until time.Time) string {
	sql := ` WHERE true`
	if service != "" {
		p := args.add(service)
		sql += ` AND (c.service_id::text = ` + p + ` OR lower(c.service_name) = lower(` + p + `))`
	}
	if deck != "" {
		p := args.add(deck)
		sql += ` AND (c.deck_id::text = ` + p + ` OR lower(c.deck_name) = lower(` + p + `))`
	}
	if token != "" {
		p := args.add(token)
		sql += ` AND (c.token_id::text = ` + p + ` OR lower(c.token_name) = lower(` + p + `))`
	}
	if tool != "" {
		sql += ` AND c.tool = ` + args.add(tool)
	}
	if !since.IsZero() {
		sql += ` AND c.at >= ` + args.add(since)
	}
	if !until.IsZero() {
		sql += ` AND c.at < ` + args.add(until)
	}
	return sql
}

// ListToolCalls returns the entries q selects, newest first.
func (s *Store) ListToolCalls(ctx context.Context, q backend.ToolCallQuery) ([]backend.ToolCall, error) {
	var args sqlArgs
	sql := `SELECT ` + toolCallColumns + ` FROM tool_calls c` +
		toolCallWhere(&args, q.Service, q.Deck, q.Token, q.Tool, q.Since, q.Until)
	if q.Person != "" {
		p := args.add(q.Person)
		sql += ` AND (c.person_id::text = ` + p + ` OR lower(c.person_name) = lower(` + p + `))`
	}
	switch {
	case len(q.Session) >= backend.MinIDPrefix:
		// The id, or its start as lists print it: every session whose id starts with it.
		sql += ` AND starts_with(lower(c.session_id), lower(` + args.add(q.Session) + `))`
	case q.Session != "":
		sql += ` AND c.session_id = ` + args.add(q.Session)
	}
	if q.Outcome != "" {
		sql += ` AND c.outcome = ` + args.add(string(q.Outcome))
	}
	if q.Before > 0 {
		sql += ` AND c.id < ` + args.add(q.Before)
	}
	sql += ` ORDER BY c.id DESC LIMIT ` + args.add(q.Limit)
	rows, err := s.db.Query(ctx, sql, args...)
	if err != nil {
		return nil, classify("list tool calls", err)
	}
	out, err := pgx.CollectRows(rows, scanToolCall)
	if err != nil {
		return nil, classify("list tool calls", err)
	}
	return out, nil
}

// GetToolCall returns one audit entry; NOT_FOUND when it does not exist (or was pruned).
func (s *Store) GetToolCall(ctx context.Context, id int64) (backend.ToolCall, error) {
	rows, err := s.db.Query(ctx, `SELECT `+toolCallColumns+` FROM tool_calls c WHERE c.id = $1`, id)
	if err != nil {
		return backend.ToolCall{}, classify("get a tool call", err)
	}
	c, err := pgx.CollectExactlyOneRow(rows, scanToolCall)
	return c, classify("get a tool call", err)
}

func scanToolCall(r pgx.CollectableRow) (backend.ToolCall, error) {
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
}

// ListToolCallBuckets counts calls, failures and latency percentiles per group and time bucket
// (buckets aligned to q.Since), plus one row per group for the whole period (bucket NULL).
func (s *Store) ListToolCallBuckets(ctx context.Context, q backend.ToolCallStatsQuery) ([]backend.ToolCallBucket, error) {
	var args sqlArgs
	tool := `''`
	if q.ByTool {
		tool = `c.tool`
	}
	width := args.add(q.Bucket.Seconds())
	origin := args.add(q.Since)
	sql := `SELECT service, tool, bucket, count(*), count(*) FILTER (WHERE outcome = 'error'),
			count(*) FILTER (WHERE outcome = 'is_error'),
			percentile_cont(0.5) WITHIN GROUP (ORDER BY duration_us), percentile_cont(0.95) WITHIN GROUP (ORDER BY duration_us)
		FROM (SELECT c.service_name AS service, ` + tool + ` AS tool, c.outcome, c.duration_us,
				` + origin + `::timestamptz + floor(extract(epoch FROM c.at - ` + origin + `::timestamptz) / ` + width + `::float8) * ` + width + `::float8 * interval '1 second' AS bucket
			FROM tool_calls c` + toolCallWhere(&args, q.Service, q.Deck, "", q.Tool, q.Since, q.Until) + `) x
		GROUP BY GROUPING SETS ((service, tool, bucket), (service, tool))
		ORDER BY service, tool, bucket NULLS FIRST`
	rows, err := s.db.Query(ctx, sql, args...)
	if err != nil {
		return nil, classify("count tool calls", err)
	}
	out, err := pgx.CollectRows(rows, func(r pgx.CollectableRow) (backend.ToolCallBucket, error) {
		var b backend.ToolCallBucket
		var at *time.Time
		var p50, p95 float64
		err := r.Scan(&b.Service, &b.Tool, &at, &b.Calls, &b.Errors, &b.IsErrors, &p50, &p95)
		if at != nil {
			b.At = *at
		}
		b.P50MS, b.P95MS = p50/1000, p95/1000
		return b, err
	})
	if err != nil {
		return nil, classify("count tool calls", err)
	}
	return out, nil
}

// GetDeckArgumentCapture reports whether the deck captures arguments; a deck without settings
// does not.
func (s *Store) GetDeckArgumentCapture(ctx context.Context, deckID string) (bool, error) {
	id := asUUID(deckID)
	if id == "" {
		return false, nil
	}
	var on bool
	err := s.db.QueryRow(ctx, `SELECT EXISTS (SELECT 1 FROM deck_audit_settings WHERE deck_id = $1 AND capture_arguments)`, id).Scan(&on)
	return on, classify("read deck audit settings", err)
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
