package backend

import "time"

// ProposalKind is what a proposal asks for. signal_only records a feedback signal instead.
type ProposalKind string

// Proposal kinds.
const (
	ProposalUpdate     ProposalKind = "update"
	ProposalCreate     ProposalKind = "create"
	ProposalRetire     ProposalKind = "retire"
	ProposalSignalOnly ProposalKind = "signal_only"
)

// ProposalKinds lists the kinds an agent may send, in the order errors name them.
var ProposalKinds = []ProposalKind{ProposalUpdate, ProposalCreate, ProposalRetire, ProposalSignalOnly}

// ProposalStatus is where a proposal is in review.
type ProposalStatus string

// Proposal statuses: open until a person accepts or rejects it; stale when its ops no longer
// apply at accept time; superseded when a later proposal replaces it.
const (
	ProposalOpen       ProposalStatus = "open"
	ProposalAccepted   ProposalStatus = "accepted"
	ProposalRejected   ProposalStatus = "rejected"
	ProposalStale      ProposalStatus = "stale"
	ProposalSuperseded ProposalStatus = "superseded"
)

// ProposalStatuses lists every status, for filters and their errors.
var ProposalStatuses = []ProposalStatus{ProposalOpen, ProposalAccepted, ProposalRejected, ProposalStale, ProposalSuperseded}

// Evidence is why an agent thinks a playbook is wrong: what failed, what the user said, what
// the right output looked like. Short excerpts, shown to the reviewer.
type Evidence struct {
	FailureSummary      string `json:"failure_summary,omitempty"`
	UserFeedbackExcerpt string `json:"user_feedback_excerpt,omitempty"`
	CorrectedOutputHint string `json:"corrected_output_hint,omitempty"`
}

// Proposal is an agent's suggested change to a playbook, waiting for a person.
type Proposal struct {
	ID          string         `json:"id"`
	Status      ProposalStatus `json:"status"`
	Kind        ProposalKind   `json:"kind"`
	PlaybookID  string         `json:"playbook_id,omitempty"`
	DeckID      string         `json:"deck_id,omitempty"`
	Ops         []PlaybookOp   `json:"ops"`
	NewPlaybook *PlaybookInput `json:"new_playbook,omitempty"`
	// Edit is an agent's direct change (update_playbook, a restore) held for review on a deck
	// that requires it; an update proposal has either Ops or Edit.
	Edit       *PlaybookEdit `json:"edit,omitempty"`
	Rationale  string        `json:"rationale"`
	Evidence   Evidence      `json:"evidence"`
	Supersedes []string      `json:"supersedes"`
	// SupersededBy is the proposal that replaced this one.
	SupersededBy string     `json:"superseded_by,omitempty"`
	SessionID    string     `json:"session_id,omitempty"`
	ClientName   string     `json:"client_name,omitempty"`
	Reason       string     `json:"reason,omitempty"`
	CreatedAt    time.Time  `json:"created_at"`
	DecidedAt    *time.Time `json:"decided_at,omitempty"`
	// TokenID is the token of the agent that proposed it; that token may not accept it.
	TokenID string `json:"-"`
	// Person is the person whose agent proposed it; DecidedBy the person who accepted or
	// rejected it.
	Person    string `json:"person,omitempty"`
	DecidedBy string `json:"decided_by,omitempty"`
}

// PlaybookEdit is an agent's direct playbook change held for review: the fields it sets, nil
// leaving a field as it is, applied to the playbook as it is when a person accepts. It has no
// exec or skill: what a harness runs changes only by an admin's own hand.
type PlaybookEdit struct {
	Title                  *string   `json:"title,omitempty"`
	Body                   *string   `json:"body,omitempty"`
	Triggers               *[]string `json:"triggers,omitempty"`
	DependsOnCredentialIDs *[]string `json:"depends_on_credential_ids,omitempty"`
	DependsOnServiceIDs    *[]string `json:"depends_on_service_ids,omitempty"`
	AutoDetectDependencies *bool     `json:"auto_detect_dependencies,omitempty"`
}

// ProposalSummary is what get_playbook shows of an open proposal, so an agent supersedes it
// instead of stacking a duplicate.
type ProposalSummary struct {
	ID        string       `json:"id"`
	Kind      ProposalKind `json:"kind"`
	Rationale string       `json:"rationale"`
	Summary   string       `json:"summary"`
	CreatedAt time.Time    `json:"created_at"`
}

// ProposalFilter narrows a proposal list; empty fields match everything.
type ProposalFilter struct {
	Status     ProposalStatus
	PlaybookID string
	DeckID     string
}

// SignalStatus is where a feedback signal is: open, parked on a proposal, actioned by an
// accepted one, or discarded by a person.
type SignalStatus string

// Signal statuses.
const (
	SignalOpen      SignalStatus = "open"
	SignalParked    SignalStatus = "parked"
	SignalActioned  SignalStatus = "actioned"
	SignalDiscarded SignalStatus = "discarded"
)

// Signal is a correction an agent recorded that is not yet a proposal.
type Signal struct {
	ID         string       `json:"id"`
	Status     SignalStatus `json:"status"`
	PlaybookID string       `json:"playbook_id,omitempty"`
	DeckID     string       `json:"deck_id,omitempty"`
	ProposalID string       `json:"proposal_id,omitempty"`
	Rationale  string       `json:"rationale"`
	Evidence   Evidence     `json:"evidence"`
	SessionID  string       `json:"session_id,omitempty"`
	ClientName string       `json:"client_name,omitempty"`
	CreatedAt  time.Time    `json:"created_at"`
	// TokenID is the token of the agent that recorded it; open signals are bounded per token.
	TokenID string `json:"-"`
}

// PlaybookFetchStat is how often agents fetched a playbook within the retention period.
type PlaybookFetchStat struct {
	PlaybookID  string    `json:"playbook_id"`
	Fetches     int       `json:"fetches"`
	LastFetched time.Time `json:"last_fetched"`
}

// PlaybookFetch is one get_playbook: which playbooks agents actually use.
type PlaybookFetch struct {
	PlaybookID string
	SessionID  string
	ClientName string
	At         time.Time
}
