package core

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/agent-deck/agent-deck/backend"
)

// maxCapturedArgBytes bounds the arguments a capturing deck keeps per call; larger ones are
// replaced by a note with their size. With the default buffer, queued arguments stay under
// 16 MiB.
const maxCapturedArgBytes = 8 << 10

// maxAuditRefChars bounds the names a caller typed (service or deck) kept for a refused call.
const maxAuditRefChars = 200

// callAudit collects one call's entry while the call runs.
type callAudit struct {
	start time.Time
	tc    backend.ToolCall
	args  json.RawMessage
}

// startCallAudit begins a call's entry from what is known without I/O: the caller, the MCP
// session in ctx (deck, client) or the deck the REST caller named.
func (s *Hub) startCallAudit(ctx context.Context, a backend.Actor, sessionID, serviceRef string, in CallInput) *callAudit {
	if s.cfg.ToolCalls == nil {
		return nil
	}
	now := s.clock()
	tc := backend.ToolCall{At: now, TokenID: a.TokenID, SessionID: auditText(sessionID), ServiceName: auditText(serviceRef),
		Tool: auditText(in.ToolName), DeckName: auditText(strings.TrimSpace(in.Deck)), PersonID: a.PersonID, Person: a.PersonName}
	if sess, ok := ctx.Value(sessionKey{}).(backend.MCPSession); ok && sess.ID == sessionID && sessionID != "" {
		tc.ClientName, tc.DeckID, tc.DeckName = sess.ClientName, sess.DeckID, sess.DeckName
	}
	return &callAudit{start: now, tc: tc, args: in.Arguments}
}

// auditText bounds a name the caller typed and makes it storable: PostgreSQL text holds no NUL,
// and one unstorable entry must not cost its batch.
func auditText(s string) string {
	return strings.ReplaceAll(strings.ToValidUTF8(backend.Clip(s, maxAuditRefChars), "\uFFFD"), "\x00", "\uFFFD")
}

// capturableArgs returns the arguments with every secret the server knows masked by value;
// the Store keeps them only for decks that capture arguments. The masking costs no I/O.
func (s *Hub) capturableArgs(args json.RawMessage) json.RawMessage {
	if len(args) == 0 {
		return nil
	}
	if len(args) > maxCapturedArgBytes {
		return json.RawMessage(fmt.Sprintf(`{"omitted":"arguments over %d bytes","bytes":%d}`, maxCapturedArgBytes, len(args)))
	}
	if !json.Valid(args) {
		return nil
	}
	// jsonb refuses the NUL escape; an audit copy may show it as U+FFFD.
	args = bytes.ReplaceAll(args, []byte(`\u0000`), []byte(`\ufffd`))
	return json.RawMessage(s.cfg.Redactor.Mask().Bytes(args))
}

// resolved names the service the call reached, once known.
func (c *callAudit) resolved(rec backend.ServiceRecord) {
	if c != nil && rec.ID != "" {
		c.tc.ServiceID, c.tc.ServiceName = rec.ID, rec.Name
	}
}

// finish completes the entry and hands it to the recorder; it never blocks the call.
func (s *Hub) finishCallAudit(c *callAudit, res backend.CallResult, err error) {
	if c == nil {
		return
	}
	c.tc.Duration = s.clock().Sub(c.start)
	c.tc.DurationMS = float64(c.tc.Duration.Microseconds()) / 1000
	c.tc.ResultBytes = len(res.Raw)
	switch {
	case err != nil:
		c.tc.Outcome, c.tc.ErrorCode = backend.OutcomeError, backend.ErrorCode(err)
	case res.IsError:
		c.tc.Outcome = backend.OutcomeIsError
	default:
		c.tc.Outcome = backend.OutcomeOK
	}
	c.tc.KnownTool = s.enabledTool(c.tc.ServiceID, c.tc.Tool)
	// Masked now, once the service's secrets are learned (serviceTarget) and before they can
	// be forgotten.
	c.tc.Arguments = s.capturableArgs(c.args)
	s.cfg.ToolCalls.RecordToolCall(c.tc)
}

// enabledTool reports, without I/O, whether the proxy knows tool as an enabled tool of the
// service.
func (s *Hub) enabledTool(serviceID, tool string) bool {
	if serviceID == "" || s.downstream == nil {
		return false
	}
	st, ok := s.downstream.Status(serviceID)
	if !ok {
		return false
	}
	for _, t := range st.Tools {
		if t.Name == tool {
			return t.Enabled
		}
	}
	return false
}

// ListToolCalls reads the tool-call audit trail, newest first. Admin only.
func (s *Hub) ListToolCalls(ctx context.Context, f backend.ToolCallFilter) (backend.ToolCallPage, error) {
	if _, err := backend.RequireAdmin(ctx, "read the tool-call audit trail"); err != nil {
		return backend.ToolCallPage{}, err
	}
	q, err := toolCallQuery(f)
	if err != nil {
		return backend.ToolCallPage{}, err
	}
	q.Limit++ // one more than asked says whether there is a next page
	calls, err := s.store.ListToolCalls(ctx, q)
	if err != nil {
		return backend.ToolCallPage{}, backend.StoreErr("listing tool calls", err)
	}
	page := backend.ToolCallPage{Calls: backend.OrEmpty(calls)}
	if len(calls) == q.Limit {
		page.Calls = calls[:q.Limit-1]
		page.NextCursor = strconv.FormatInt(page.Calls[len(page.Calls)-1].ID, 10)
	}
	return page, nil
}

// GetToolCall returns one entry of the audit trail, by the id the list shows. Admin only.
func (s *Hub) GetToolCall(ctx context.Context, id string) (backend.ToolCall, error) {
	if _, err := backend.RequireAdmin(ctx, "read the tool-call audit trail"); err != nil {
		return backend.ToolCall{}, err
	}
	n, err := strconv.ParseInt(strings.TrimSpace(id), 10, 64)
	if err != nil || n <= 0 {
		return backend.ToolCall{}, backend.Invalid("call", "the id of an entry of the tool-call audit trail (a positive whole number), got %s", backend.QuoteClip(id))
	}
	c, err := s.store.GetToolCall(ctx, n)
	if backend.IsNotFound(err) {
		return backend.ToolCall{}, backend.Errorf(backend.CodeNotFound, "no tool call %d in the audit trail", n).
			WithDetail("field", "call").WithHint("entries older than the audit retention are pruned; list recent ones with GET /api/v1/tool-calls")
	}
	if err != nil {
		return backend.ToolCall{}, backend.StoreErr("reading a tool call", err)
	}
	return c, nil
}

func toolCallQuery(f backend.ToolCallFilter) (backend.ToolCallQuery, error) {
	q := backend.ToolCallQuery{Person: strings.TrimSpace(f.Person), Service: strings.TrimSpace(f.Service), Deck: strings.TrimSpace(f.Deck),
		Session: strings.TrimSpace(f.Session), Tool: strings.TrimSpace(f.Tool), Token: strings.TrimSpace(f.Token),
		Outcome: backend.CallOutcome(strings.TrimSpace(f.Outcome)), Since: f.Since, Until: f.Until, Limit: f.Limit}
	for field, v := range map[string]string{"person": q.Person, "service": q.Service, "deck": q.Deck, "session": q.Session, "tool": q.Tool, "token": q.Token} {
		if len(v) > maxAuditRefChars {
			return q, backend.Invalid(field, "at most %d characters", maxAuditRefChars)
		}
	}
	if q.Outcome != "" && !slices.Contains(backend.CallOutcomes, q.Outcome) {
		return q, backend.Invalid("outcome", "one of ok, is_error, error; got %s", backend.QuoteClip(string(q.Outcome)))
	}
	if !q.Since.IsZero() && !q.Until.IsZero() && q.Until.Before(q.Since) {
		return q, backend.Invalid("until", "must not be before since")
	}
	switch {
	case q.Limit == 0:
		q.Limit = backend.DefaultToolCallLimit
	case q.Limit < 0 || q.Limit > backend.MaxToolCallLimit:
		return q, backend.Invalid("limit", "between 1 and %d", backend.MaxToolCallLimit)
	}
	if c := strings.TrimSpace(f.Cursor); c != "" {
		id, err := strconv.ParseInt(c, 10, 64)
		if err != nil || id <= 0 {
			return q, backend.Invalid("cursor", "the next_cursor of a previous page")
		}
		q.Before = id
	}
	return q, nil
}

// SetDeckArgumentCapture turns argument capture on or off for calls made through a deck. Admin
// only: captured arguments are redacted, but they are still what agents sent.
func (s *Hub) SetDeckArgumentCapture(ctx context.Context, deckRef string, on bool) (DeckAuditSettings, error) {
	if _, err := backend.RequireAdmin(ctx, "change a deck's audit settings"); err != nil {
		return DeckAuditSettings{}, err
	}
	d, err := s.deckByRef(ctx, s.store, deckRef)
	if err != nil {
		return DeckAuditSettings{}, err
	}
	if err := s.store.SetDeckArgumentCapture(ctx, d.ID, on, s.clock()); err != nil {
		return DeckAuditSettings{}, backend.StoreErr("saving the deck's audit settings", err)
	}
	return DeckAuditSettings{DeckID: d.ID, DeckName: d.Name, CaptureArguments: on}, nil
}

// GetDeckArgumentCapture says whether calls through a deck keep their (redacted) arguments.
// Admin only, as changing it is.
func (s *Hub) GetDeckArgumentCapture(ctx context.Context, deckRef string) (DeckAuditSettings, error) {
	if _, err := backend.RequireAdmin(ctx, "read a deck's audit settings"); err != nil {
		return DeckAuditSettings{}, err
	}
	d, err := s.deckByRef(ctx, s.store, deckRef)
	if err != nil {
		return DeckAuditSettings{}, err
	}
	on, err := s.store.GetDeckArgumentCapture(ctx, d.ID)
	if err != nil {
		return DeckAuditSettings{}, backend.StoreErr("reading the deck's audit settings", err)
	}
	return DeckAuditSettings{DeckID: d.ID, DeckName: d.Name, CaptureArguments: on}, nil
}

// DeckAuditSettings is a deck's audit configuration.
type DeckAuditSettings struct {
	DeckID           string `json:"deck_id"`
	DeckName         string `json:"deck_name"`
	CaptureArguments bool   `json:"capture_arguments"`
}

// DeckArgumentCaptureInput is the body of PUT /decks/{deck}/audit.
type DeckArgumentCaptureInput struct {
	CaptureArguments bool `json:"capture_arguments"`
}
