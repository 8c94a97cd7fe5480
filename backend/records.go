package backend

import (
	"encoding/json"
	"slices"
	"time"
)

// DeckServiceSettings are a deck's own rules for one service it links: which of the service's
// tools the deck exposes and which credential its calls present. One service can so be
// read-only on one deck and full on another, or use a work token on one deck and a personal one
// on another. At most one of AllowTools and DenyTools is set; both narrow what the service's own
// disabled tools leave.
type DeckServiceSettings struct {
	// AllowTools, when not empty, are the only tools the deck exposes.
	AllowTools []string `json:"allow_tools"`
	// DenyTools are tools the deck hides.
	DenyTools []string `json:"deny_tools"`
	// CredentialID, when set, is presented instead of the service's own credential.
	CredentialID string `json:"credential_id,omitempty"`
}

// Empty says the deck has no rule for the service.
func (st DeckServiceSettings) Empty() bool {
	return len(st.AllowTools) == 0 && len(st.DenyTools) == 0 && st.CredentialID == ""
}

// allows says whether the deck exposes the tool; a nil *DeckServiceSettings allows everything.
func (st *DeckServiceSettings) Allows(tool string) bool {
	if st == nil {
		return true
	}
	if len(st.AllowTools) > 0 && !slices.Contains(st.AllowTools, tool) {
		return false
	}
	return !slices.Contains(st.DenyTools, tool)
}

// rule describes the deck's tool rule in words, for a refusal.
func (st *DeckServiceSettings) Rule(deck string) string {
	if len(st.AllowTools) > 0 {
		return "deck " + QuoteClip(deck) + " allows only " + QuoteNames(CapList(st.AllowTools))
	}
	return "deck " + QuoteClip(deck) + " denies " + QuoteNames(CapList(st.DenyTools))
}

// ToolPin is a tool definition approved for a service, by first use or by an admin.
type ToolPin struct {
	ServiceID string `json:"service_id"`
	ToolName  string `json:"tool_name"`
	// Hash is the sha256 (hex) of Definition's canonical JSON.
	Hash string `json:"hash"`
	// Definition is the approved tool object minus _meta, kept so a refusal can say what changed.
	Definition json.RawMessage `json:"definition"`
	ApprovedAt time.Time       `json:"approved_at"`
	// ApprovedBy is "first use", or "admin" with the approving token's id when there is one.
	ApprovedBy string `json:"approved_by"`
}

// ToolHold is a definition of a service's tool that a connection found differing from its pin
// (or a tool new since the first contact), as the connection saw it.
type ToolHold struct {
	ServiceID string `json:"service_id"`
	ToolName  string `json:"tool_name"`
	// Hash is the sha256 (hex) of Definition's canonical JSON: what approve pins.
	Hash       string          `json:"hash"`
	Definition json.RawMessage `json:"definition"`
	// SeenOn names the connection: "service credential" or "deck credential <credential id>".
	SeenOn    string    `json:"seen_on"`
	FirstSeen time.Time `json:"first_seen"`
	LastSeen  time.Time `json:"last_seen"`
}

// PlaybookInput creates a playbook. ID defaults to pb_<slug of title>. Dependencies are
// auto-detected from the text unless AutoDetectDependencies is false; explicit ids are merged in.
type PlaybookInput struct {
	Title                  string   `json:"title"`
	Body                   string   `json:"body"`
	Triggers               []string `json:"triggers,omitempty"`
	ID                     string   `json:"id,omitempty"`
	Exec                   string   `json:"exec,omitempty"`
	Skill                  string   `json:"skill,omitempty"`
	DependsOnCredentialIDs []string `json:"depends_on_credential_ids,omitempty"`
	DependsOnServiceIDs    []string `json:"depends_on_service_ids,omitempty"`
	AutoDetectDependencies *bool    `json:"auto_detect_dependencies,omitempty"`
}

// Playbook ops: the structured changes a proposal carries. An agent names a section and a
// list item instead of sending a whole new body, so a person reviews a small diff and an
// accept can re-apply the change to a body that moved on since.
const (
	OpAddItem     = "add_item"
	OpAmendItem   = "amend_item"
	OpRemoveItem  = "remove_item"
	OpSetTriggers = "set_triggers"
	OpRewriteBody = "rewrite_body"
)

// PlaybookOpNames lists the ops in the order errors name them.
var PlaybookOpNames = []string{OpAddItem, OpAmendItem, OpRemoveItem, OpSetTriggers, OpRewriteBody}

// PlaybookOp is one change to a playbook's body or triggers; Op tells which fields it reads.
type PlaybookOp struct {
	Op       string   `json:"op"`
	Section  string   `json:"section,omitempty"`
	Anchor   string   `json:"anchor,omitempty"`
	Text     string   `json:"text,omitempty"`
	Triggers []string `json:"triggers,omitempty"`
}

// DeckProjection is a deck's opt-in to projected tools: its downstream tools listed to bound
// sessions as tools of their own, up to MaxTools tools and MaxTokens model tokens.
type DeckProjection struct {
	MaxTools  int `json:"max_tools"`
	MaxTokens int `json:"max_tokens"`
}

// ResourceSubscription is one MCP session's resources/subscribe to a playbook's resource, by the
// URI it subscribed with.
type ResourceSubscription struct {
	SessionID  string
	URI        string
	PlaybookID string
}

// RateLimitSetting overrides the server's rate limits of proxied calls for one service on one
// deck (both ids), for a service on every deck (no deck) or for every service of a deck (no
// service). A nil limit inherits from the next wider setting; 0 means no limit.
type RateLimitSetting struct {
	DeckID          string `json:"deck_id,omitempty"`
	ServiceID       string `json:"service_id,omitempty"`
	CallsPerMinute  *int   `json:"calls_per_minute"`
	ConcurrentCalls *int   `json:"concurrent_calls"`
}
