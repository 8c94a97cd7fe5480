package backend

import (
	"encoding/json"
	"time"
)

// Deck groups cards; an agent session binds to one.
type Deck struct {
	ID        string    `json:"id"`
	Name      string    `json:"name"`
	CreatedAt time.Time `json:"created_at"`
	UpdatedAt time.Time `json:"updated_at"`
	// Owner is the name of the person the deck belongs to; Sharing says who else may use it
	// (private, everyone, or the people named in SharedWith).
	Owner      string   `json:"owner,omitempty"`
	Sharing    Sharing  `json:"sharing,omitempty"`
	SharedWith []string `json:"shared_with,omitempty"`
	// OwnerID and SharedWithIDs are the same as person ids, for the checks.
	OwnerID       string   `json:"-"`
	SharedWithIDs []string `json:"-"`
}

// CardLink places one card on a deck; Position orders cards of one type within the deck.
type CardLink struct {
	DeckID   string   `json:"deck_id"`
	CardType CardType `json:"card_type"`
	CardID   string   `json:"card_id"`
	Position int      `json:"position"`
	// Settings are the deck's own rules for a linked service (deck_service_settings.go); nil
	// when it has none. Only the core reads them.
	Settings *DeckServiceSettings `json:"-"`
}

// ServiceType says how a downstream MCP server is reached.
type ServiceType string

// Service types.
const (
	ServiceRemote ServiceType = "mcp"
	ServiceLocal  ServiceType = "local-mcp"
)

// Transport forces or auto-detects the remote MCP transport.
type Transport string

// Transports.
const (
	TransportAuto           Transport = "auto"
	TransportStreamableHTTP Transport = "streamable_http"
	TransportSSE            Transport = "sse"
)

// HealthStatus is the last known state of a downstream service.
type HealthStatus string

// Health states.
const (
	HealthUnknown      HealthStatus = "unknown"
	HealthHealthy      HealthStatus = "healthy"
	HealthUnhealthy    HealthStatus = "unhealthy"
	HealthAuthRequired HealthStatus = "auth_required"
)

// Health is what the deck knows about a downstream service right now.
type Health struct {
	Status        HealthStatus `json:"status"`
	LastError     string       `json:"last_error,omitempty"`
	LastSuccessAt *time.Time   `json:"last_success_at,omitempty"`
	LastCheckedAt *time.Time   `json:"last_checked_at,omitempty"`
	// Stderr is the tail of a local server's stderr, for diagnostics.
	Stderr string `json:"stderr,omitempty"`
}

// MaskedValue replaces every secret value on the way out.
const MaskedValue = "********"

// ServiceCard is a downstream MCP server as people and agents see it: secret header values and
// local env values are masked. PinTools holds a downstream tool whose definition changed since it
// was approved (TOOL_CHANGED) until an admin approves it again (service_toolpins.go).
type ServiceCard struct {
	ID              string            `json:"id"`
	Name            string            `json:"name"`
	Type            ServiceType       `json:"type"`
	URL             string            `json:"url,omitempty"`
	Transport       Transport         `json:"transport,omitempty"`
	Description     string            `json:"description"`
	Headers         map[string]string `json:"headers,omitempty"`
	CredentialID    string            `json:"credential_id,omitempty"`
	LocalCommand    string            `json:"local_command,omitempty"`
	LocalArgs       []string          `json:"local_args,omitempty"`
	LocalWorkingDir string            `json:"local_working_dir,omitempty"`
	LocalEnv        map[string]string `json:"local_env,omitempty"`
	DisabledTools   []string          `json:"disabled_tools"`
	TimeoutSeconds  int               `json:"timeout_seconds"`
	PinTools        bool              `json:"pin_tools"`
	// ToolOverrides are what a person set in place of the downstream's own title, description
	// or annotations, by tool name: agents see them, pins ignore them.
	ToolOverrides map[string]ToolOverride `json:"tool_overrides,omitempty"`
	// Personal says each person brings their own secret (and sign-in) for the service: a call
	// uses the calling person's own, never another's.
	Personal  bool      `json:"personal,omitempty"`
	Health    Health    `json:"health"`
	CreatedAt time.Time `json:"created_at"`
	UpdatedAt time.Time `json:"updated_at"`
	// OwnerID is the person the card belongs to.
	OwnerID string `json:"-"`
}

// ToolOverride replaces parts of a downstream tool's definition as agents see it. A nil field
// keeps the downstream's own.
type ToolOverride struct {
	Title           *string `json:"title,omitempty"`
	Description     *string `json:"description,omitempty"`
	ReadOnlyHint    *bool   `json:"read_only_hint,omitempty"`
	DestructiveHint *bool   `json:"destructive_hint,omitempty"`
	OpenWorldHint   *bool   `json:"open_world_hint,omitempty"`
}

// Empty reports whether the override changes nothing.
func (o ToolOverride) Empty() bool {
	return o.Title == nil && o.Description == nil && o.ReadOnlyHint == nil && o.DestructiveHint == nil && o.OpenWorldHint == nil
}

// ServiceRecord is a service card as stored: secret headers and local env are sealed.
type ServiceRecord struct {
	ServiceCard
	// PlainHeaders are headers whose names do not look secret.
	PlainHeaders map[string]string
	// SealedHeaders and SealedEnv are JSON maps encrypted with the secret key; nil when empty.
	SealedHeaders []byte
	SealedEnv     []byte
	// SealedUserinfo is the user:password@ taken out of URL (escaped as written), sealed; nil
	// when the URL had none. Reads show it as MaskedValue; egress sends it as basic auth.
	SealedUserinfo []byte
	// ToolsPinnedAt is when the service's tools were first pinned; nil until the first contact
	// (or since pinning was turned off).
	ToolsPinnedAt *time.Time
	// DeckSettings are the rules of the deck a snapshot was loaded for (Store.LinkedCards); nil
	// elsewhere and when the deck has none.
	DeckSettings *DeckServiceSettings
	// TalksBack says the downstream was seen asking something no single call could be told
	// apart for, or asking for roots: its calls from different sessions take turns.
	TalksBack bool
	// URLByAdmin is whether an admin set the URL: only then may its host resolve to a
	// private-range address (HostPolicy).
	URLByAdmin bool
}

// AuthScheme says how a credential's secret is presented to a downstream server.
type AuthScheme string

// Auth schemes.
const (
	SchemeBearer        AuthScheme = "bearer"
	SchemeHeader        AuthScheme = "header"
	SchemeHTTPBasicUser AuthScheme = "http_basic_user"
)

// Credential is an API key's metadata. The secret itself never leaves the core except to the
// proxy at egress and to `agent-deck exec`.
type Credential struct {
	ID         string     `json:"id"`
	Label      string     `json:"label"`
	Scheme     AuthScheme `json:"scheme"`
	HeaderName string     `json:"header_name,omitempty"`
	EnvName    string     `json:"env_name"`
	Tags       []string   `json:"tags"`
	DocsURL    string     `json:"docs_url,omitempty"`
	HasSecret  bool       `json:"has_secret"`
	// Personal says each person brings their own secret; HasOwnSecret says the caller has set
	// theirs (HasSecret speaks of the shared one, which a personal credential never sends).
	Personal     bool      `json:"personal,omitempty"`
	HasOwnSecret bool      `json:"has_own_secret,omitempty"`
	CreatedAt    time.Time `json:"created_at"`
	UpdatedAt    time.Time `json:"updated_at"`
	// OwnerID is the person the card belongs to.
	OwnerID string `json:"-"`
}

// CredentialRecord is a credential as stored, with its sealed secret.
type CredentialRecord struct {
	Credential
	SealedSecret []byte
}

// Playbook is a markdown runbook with trigger phrases and dependencies on other cards.
// DependsOn* are the effective dependencies; Explicit* the subset given explicitly, kept until
// removed explicitly (the rest were detected in the text and are recomputed on every change).
type Playbook struct {
	ID                     string    `json:"id"`
	Title                  string    `json:"title"`
	Body                   string    `json:"body"`
	Triggers               []string  `json:"triggers"`
	Exec                   string    `json:"exec,omitempty"`
	Skill                  string    `json:"skill,omitempty"`
	DependsOnCredentialIDs []string  `json:"depends_on_credential_ids"`
	DependsOnServiceIDs    []string  `json:"depends_on_service_ids"`
	ExplicitCredentialIDs  []string  `json:"explicit_credential_ids"`
	ExplicitServiceIDs     []string  `json:"explicit_service_ids"`
	CreatedAt              time.Time `json:"created_at"`
	UpdatedAt              time.Time `json:"updated_at"`
	// OwnerID is the person the card belongs to.
	OwnerID string `json:"-"`
}

// PlaybookSummary is what a deck snapshot shows of a playbook: enough to pick one by trigger.
type PlaybookSummary struct {
	ID       string   `json:"id"`
	Title    string   `json:"title"`
	Triggers []string `json:"triggers"`
}

// PlaybookVersion is a full snapshot of a playbook taken before a change.
type PlaybookVersion struct {
	PlaybookID string    `json:"playbook_id"`
	Version    int       `json:"version"`
	Snapshot   Playbook  `json:"snapshot"`
	Actor      ActorKind `json:"actor"`
	CreatedAt  time.Time `json:"created_at"`
	// ProposalID is the accepted proposal that wrote the version after this one, if any.
	ProposalID string `json:"proposal_id,omitempty"`
	// Person is the person whose change this version precedes.
	Person string `json:"person,omitempty"`
}

// Scope is what a token may do.
type Scope string

// Token scopes (SPEC §4.4).
const (
	ScopeAdmin     Scope = "admin"
	ScopeAgent     Scope = "agent"
	ScopeAgentRead Scope = "agent:read"
)

// Token is an API token's metadata; only the sha256 of its secret is stored.
type Token struct {
	ID         string     `json:"id"`
	Name       string     `json:"name"`
	Scope      Scope      `json:"scope"`
	CreatedAt  time.Time  `json:"created_at"`
	LastUsedAt *time.Time `json:"last_used_at,omitempty"`
	RevokedAt  *time.Time `json:"revoked_at,omitempty"`
	// Kind is "token" for API tokens and "dashboard" for a dashboard sign-in session.
	Kind TokenKind `json:"kind"`
	// ExpiresAt ends a dashboard session; API tokens do not expire.
	ExpiresAt *time.Time `json:"expires_at,omitempty"`
	// DeckID is the deck an OAuth grant's MCP sessions start bound to, chosen at consent.
	DeckID string `json:"deck_id,omitempty"`
	// Person is the name of the person the token acts for; PersonID their id.
	Person   string `json:"person,omitempty"`
	PersonID string `json:"person_id,omitempty"`
}

// TokenRecord is a token as stored, with its person's role.
type TokenRecord struct {
	Token
	Hash []byte
	// PersonRole is the role of the token's person; PersonRemoved says the person was removed.
	PersonRole    Role
	PersonRemoved bool
}

// MCPSession is one agent connection's binding. Rows, not memory, so any replica serves it.
type MCPSession struct {
	ID            string     `json:"id"`
	WorkspaceRoot string     `json:"workspace_root,omitempty"`
	DeckID        string     `json:"deck_id,omitempty"`
	DeckName      string     `json:"deck_name,omitempty"`
	Badge         string     `json:"badge"`
	ClientName    string     `json:"client_name,omitempty"`
	Profile       string     `json:"profile"`
	Scope         Scope      `json:"scope"`
	CreatedAt     time.Time  `json:"created_at"`
	LastSeenAt    time.Time  `json:"last_seen_at"`
	TerminatedAt  *time.Time `json:"terminated_at,omitempty"`
	// TokenID is the token that opened the session; only it may use the session.
	TokenID string `json:"-"`
	// Person is the name of the person whose token opened the session; PersonID their id.
	Person   string `json:"person,omitempty"`
	PersonID string `json:"-"`
	// Caps is what the session's client declared at initialize that a downstream may use.
	Caps ClientCaps `json:"-"`
	// LogLevel is the level the client set with logging/setLevel; "" when it set none.
	LogLevel string `json:"-"`
	// Token names that token; only admins are shown it (the session list).
	Token *SessionToken `json:"token,omitempty"`
}

// SessionToken is the token a session was opened with, as the session list shows it to admins.
type SessionToken struct {
	ID   string    `json:"id"`
	Name string    `json:"name"`
	Kind TokenKind `json:"kind"`
}

// ClientCaps are the client capabilities of an MCP session a downstream server may use.
type ClientCaps struct {
	Elicitation bool
	Sampling    bool
	Roots       bool
}

// Names lists the capabilities declared, as stored.
func (c ClientCaps) Names() []string {
	out := []string{}
	for _, x := range []struct {
		on   bool
		name string
	}{{c.Elicitation, "elicitation"}, {c.Sampling, "sampling"}, {c.Roots, "roots"}} {
		if x.on {
			out = append(out, x.name)
		}
	}
	return out
}

// ClientCapsOf reads capabilities as stored; unknown names are ignored.
func ClientCapsOf(names []string) ClientCaps {
	var c ClientCaps
	for _, n := range names {
		switch n {
		case "elicitation":
			c.Elicitation = true
		case "sampling":
			c.Sampling = true
		case "roots":
			c.Roots = true
		}
	}
	return c
}

// LogLevels are the MCP log levels, from the most verbose.
var LogLevels = []string{"debug", "info", "notice", "warning", "error", "critical", "alert", "emergency"}

// ExecAudit records one `agent-deck exec`: which credentials, which command, how it ended.
// It never holds a secret value.
type ExecAudit struct {
	ID            int64      `json:"id"`
	CredentialIDs []string   `json:"credential_ids"`
	DeckID        string     `json:"deck_id,omitempty"`
	Command       []string   `json:"command"`
	ExitCode      *int       `json:"exit_code,omitempty"`
	TokenID       string     `json:"token_id,omitempty"`
	CreatedAt     time.Time  `json:"created_at"`
	FinishedAt    *time.Time `json:"finished_at,omitempty"`
}

// DownstreamTool is one tool of a downstream server, kept raw so its schema reaches agents
// byte for byte.
type DownstreamTool struct {
	Name        string          `json:"name"`
	ReadOnly    bool            `json:"-"`
	Enabled     bool            `json:"-"`
	InputSchema json.RawMessage `json:"-"`
	// Raw is the tool object exactly as the downstream sent it.
	Raw json.RawMessage `json:"-"`
}

// CallResult is a downstream CallToolResult, raw, minus the downstream's _meta.
type CallResult struct {
	Raw     json.RawMessage
	IsError bool
}
