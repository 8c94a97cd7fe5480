package backend

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"
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
	tc    ToolCall
	args  json.RawMessage
}

// startCallAudit begins a call's entry from what is known without I/O: the caller, the MCP
// session in ctx (deck, client) or the deck the REST caller named.
func (s *Service) startCallAudit(ctx context.Context, a Actor, sessionID, serviceRef string, in CallInput) *callAudit {
	if s.cfg.ToolCalls == nil {
		return nil
	}
	now := s.clock()
	tc := ToolCall{At: now, TokenID: a.TokenID, SessionID: auditText(sessionID), ServiceName: auditText(serviceRef),
		Tool: auditText(in.ToolName), DeckName: auditText(strings.TrimSpace(in.Deck))}
	if sess, ok := ctx.Value(sessionKey{}).(MCPSession); ok && sess.ID == sessionID && sessionID != "" {
		tc.ClientName, tc.DeckID, tc.DeckName = sess.ClientName, sess.DeckID, sess.DeckName
	}
	return &callAudit{start: now, tc: tc, args: in.Arguments}
}

// auditText bounds a name the caller typed and makes it storable: PostgreSQL text holds no NUL,
// and one unstorable entry must not cost its batch.
func auditText(s string) string {
	return strings.ReplaceAll(strings.ToValidUTF8(clip(s, maxAuditRefChars), "\uFFFD"), "\x00", "\uFFFD")
}

// capturableArgs returns the arguments with every secret the server knows masked by value;
// the Store keeps them only for decks that capture arguments. The masking costs no I/O.
func (s *Service) capturableArgs(args json.RawMessage) json.RawMessage {
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
func (c *callAudit) resolved(rec ServiceRecord) {
	if c != nil && rec.ID != "" {
		c.tc.ServiceID, c.tc.ServiceName = rec.ID, rec.Name
	}
}

// finish completes the entry and hands it to the recorder; it never blocks the call.
func (s *Service) finishCallAudit(c *callAudit, res CallResult, err error) {
	if c == nil {
		return
	}
	c.tc.Duration = s.clock().Sub(c.start)
	c.tc.DurationMS = float64(c.tc.Duration.Microseconds()) / 1000
	c.tc.ResultBytes = len(res.Raw)
	switch {
	case err != nil:
		c.tc.Outcome, c.tc.ErrorCode = OutcomeError, ErrorCode(err)
	case res.IsError:
		c.tc.Outcome = OutcomeIsError
	default:
		c.tc.Outcome = OutcomeOK
	}
	c.tc.KnownTool = s.enabledTool(c.tc.ServiceID, c.tc.Tool)
	// Masked now, once the service's secrets are learned (serviceTarget) and before they can
	// be forgotten.
	c.tc.Arguments = s.capturableArgs(c.args)
	s.cfg.ToolCalls.RecordToolCall(c.tc)
}

// enabledTool reports, without I/O, whether the proxy knows tool as an enabled tool of the
// service.
func (s *Service) enabledTool(serviceID, tool string) bool {
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
func (s *Service) ListToolCalls(ctx context.Context, f ToolCallFilter) (ToolCallPage, error) {
	if _, err := requireAdmin(ctx, "read the tool-call audit trail"); err != nil {
		return ToolCallPage{}, err
	}
	q, err := toolCallQuery(f)
	if err != nil {
		return ToolCallPage{}, err
	}
	q.Limit++ // one more than asked says whether there is a next page
	calls, err := s.store.ListToolCalls(ctx, q)
	if err != nil {
		return ToolCallPage{}, storeErr("listing tool calls", err)
	}
	page := ToolCallPage{Calls: orEmpty(calls)}
	if len(calls) == q.Limit {
		page.Calls = calls[:q.Limit-1]
		page.NextCursor = strconv.FormatInt(page.Calls[len(page.Calls)-1].ID, 10)
	}
	return page, nil
}

func toolCallQuery(f ToolCallFilter) (ToolCallQuery, error) {
	q := ToolCallQuery{Service: strings.TrimSpace(f.Service), Deck: strings.TrimSpace(f.Deck),
		Session: strings.TrimSpace(f.Session), Tool: strings.TrimSpace(f.Tool),
		Outcome: CallOutcome(strings.TrimSpace(f.Outcome)), Since: f.Since, Until: f.Until, Limit: f.Limit}
	for field, v := range map[string]string{"service": q.Service, "deck": q.Deck, "session": q.Session, "tool": q.Tool} {
		if len(v) > maxAuditRefChars {
			return q, invalid(field, "at most %d characters", maxAuditRefChars)
		}
	}
	if q.Outcome != "" && !slices.Contains(CallOutcomes, q.Outcome) {
		return q, invalid("outcome", "one of ok, is_error, error; got %s", quoteClip(string(q.Outcome)))
	}
	if !q.Since.IsZero() && !q.Until.IsZero() && q.Until.Before(q.Since) {
		return q, invalid("until", "must not be before since")
	}
	switch {
	case q.Limit == 0:
		q.Limit = DefaultToolCallLimit
	case q.Limit < 0 || q.Limit > MaxToolCallLimit:
		return q, invalid("limit", "between 1 and %d", MaxToolCallLimit)
	}
	if c := strings.TrimSpace(f.Cursor); c != "" {
		id, err := strconv.ParseInt(c, 10, 64)
		if err != nil || id <= 0 {
			return q, invalid("cursor", "the next_cursor of a previous page")
		}
		q.Before = id
	}
	return q, nil
}

// SetDeckArgumentCapture turns argument capture on or off for calls made through a deck. Admin
// only: captured arguments are redacted, but they are still what agents sent.
func (s *Service) SetDeckArgumentCapture(ctx context.Context, deckRef string, on bool) (DeckAuditSettings, error) {
	if _, err := requireAdmin(ctx, "change a deck's audit settings"); err != nil {
		return DeckAuditSettings{}, err
	}
	d, err := s.deckByRef(ctx, s.store, deckRef)
	if err != nil {
		return DeckAuditSettings{}, err
	}
	if err := s.store.SetDeckArgumentCapture(ctx, d.ID, on, s.clock()); err != nil {
		return DeckAuditSettings{}, storeErr("saving the deck's audit settings", err)
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
