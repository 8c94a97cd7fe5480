package backend

import (
	"encoding/json"
	"time"
)

// CallOutcome is how a proxied tool call ended: the downstream answered (ok), answered with an
// isError result (is_error), or the call failed with an error code (error), refusals included.
type CallOutcome string

// Call outcomes.
const (
	OutcomeOK      CallOutcome = "ok"
	OutcomeIsError CallOutcome = "is_error"
	OutcomeError   CallOutcome = "error"
)

// CallOutcomes lists every outcome, for validation and fixed metric label sets.
var CallOutcomes = []CallOutcome{OutcomeOK, OutcomeIsError, OutcomeError}

// ToolCall is one entry of the tool-call audit trail: who called which tool of which service,
// through which deck and session, how long it took and how it ended. It never holds a result or
// a secret; Arguments are kept (redacted) only when the deck turns on argument capture.
type ToolCall struct {
	ID        int64     `json:"id"`
	At        time.Time `json:"at"`
	TokenID   string    `json:"token_id,omitempty"`
	TokenName string    `json:"token_name,omitempty"`
	// PersonID and Person are the person the token acted for, resolved when the entry is
	// written and kept after the person is removed.
	PersonID    string          `json:"person_id,omitempty"`
	Person      string          `json:"person,omitempty"`
	SessionID   string          `json:"session_id,omitempty"`
	ClientName  string          `json:"client_name,omitempty"`
	DeckID      string          `json:"deck_id,omitempty"`
	DeckName    string          `json:"deck_name,omitempty"`
	ServiceID   string          `json:"service_id,omitempty"`
	ServiceName string          `json:"service_name,omitempty"`
	Tool        string          `json:"tool"`
	Duration    time.Duration   `json:"-"`
	DurationMS  float64         `json:"duration_ms"`
	Outcome     CallOutcome     `json:"outcome"`
	ErrorCode   Code            `json:"error_code,omitempty"`
	ResultBytes int             `json:"result_bytes"`
	Arguments   json.RawMessage `json:"arguments,omitempty"`
	// KnownTool is set when Tool is an enabled tool of a known service, so metrics may use the
	// names as labels: anything a caller made up stays out of the label set.
	KnownTool bool `json:"-"`
}

// ToolCallRecorder receives every finished tool call. It must not block: the composition root
// passes one that feeds metrics and the AuditLog's bounded buffer.
type ToolCallRecorder interface {
	RecordToolCall(ToolCall)
}

// ToolCallFilter narrows the audit trail. Service and Deck match an id or a name
// (case-insensitive); Cursor, from a page's NextCursor, continues after that page.
type ToolCallFilter struct {
	Person  string
	Service string
	Deck    string
	Session string
	Tool    string
	// Token matches the token's id or name (case-insensitive): who made the calls.
	Token   string
	Outcome string
	Since   time.Time
	Until   time.Time
	Cursor  string
	Limit   int
}

// ToolCallPage is one page of the audit trail, newest first.
type ToolCallPage struct {
	Calls      []ToolCall `json:"calls"`
	NextCursor string     `json:"next_cursor,omitempty"`
}

// ToolCallQuery is a validated ToolCallFilter as the Store runs it: Before is the id the page
// starts below (0: from the newest).
type ToolCallQuery struct {
	Person, Service, Deck, Session, Tool, Token string
	Outcome                                     CallOutcome
	Since, Until                                time.Time
	Before                                      int64
	Limit                                       int
}

// Page sizes of the audit trail.
const (
	DefaultToolCallLimit = 100
	MaxToolCallLimit     = 1000
)

// ToolCallStatsQuery is a validated request for call counts, error counts and latency per group
// and time bucket: buckets of Bucket length from Since (aligned to it) to Until.
type ToolCallStatsQuery struct {
	Service, Deck, Tool string
	Since, Until        time.Time
	Bucket              time.Duration
	// ByTool groups per service and tool; otherwise per service.
	ByTool bool
}

// ToolCallBucket is one group's calls in one time bucket; At is zero on the row of the whole
// period. Errors are calls that failed (outcome error, refusals included), IsErrors those the
// tool itself reported as failed.
type ToolCallBucket struct {
	Service  string    `json:"service,omitempty"`
	Tool     string    `json:"tool,omitempty"`
	At       time.Time `json:"at,omitzero"`
	Calls    int       `json:"calls"`
	Errors   int       `json:"errors"`
	IsErrors int       `json:"is_errors"`
	P50MS    float64   `json:"p50_ms"`
	P95MS    float64   `json:"p95_ms"`
}
