package backend

import (
	"context"
	"encoding/json"
	"time"
)

// Target is everything the proxy needs to reach one downstream service, with secrets already
// decrypted. It is built by the core at the moment of use and never logged.
type Target struct {
	ServiceID   string
	ServiceName string
	Type        ServiceType
	URL         string
	Transport   Transport
	// Headers are the service's own headers, secret ones decrypted.
	Headers map[string]string
	// Credential is the linked credential with its secret, nil when none is linked.
	Credential *TargetCredential
	// PersonalCredential says the Credential's secret is each person's own (a personal
	// credential or service): the core fills in the calling person's before the target is
	// used, under a ConnKey of that person's, and never sends it without.
	PersonalCredential bool
	// PersonalSignIn says the target takes the calling person's own downstream sign-in (a
	// remote service that takes each person's own): the core fills in the person's token, when
	// no secret of theirs is sent instead, under a ConnKey of that person's (OauthPerson).
	PersonalSignIn bool

	LocalCommand    string
	LocalArgs       []string
	LocalWorkingDir string
	LocalEnv        map[string]string

	// Secrets are every value the server holds secret for the service (see targetSecrets), so
	// the proxy can mask them by value wherever a downstream could echo them back.
	Secrets []string
	// Hosts is which addresses the proxy may dial for the service: it checks every address a
	// name resolves to, redirects and the service's authorization server included.
	Hosts HostPolicy

	DisabledTools []string
	Timeout       time.Duration
	// Revision changes whenever the service's configuration changes; the proxy reconnects
	// when it sees a new one.
	Revision string
	// ConnKey, when set, keys the proxy's connection instead of ServiceID: a deck that presents
	// another credential than the service's own gets a connection of its own, so no connection
	// carrying one deck's secret serves another deck's call.
	ConnKey string
	// Admit, when set, vets the exact tool definition a call resolved, before its arguments
	// are checked or anything is sent; its error is the call's (tool pinning, service_toolpins.go).
	Admit func(DownstreamTool) error
	// TalksBack says the service is known to talk back (ServiceRecord.TalksBack): its calls from
	// different agent sessions take turns from the first one.
	TalksBack bool
	// oauthExpires is when the service's OAuth access token expires: a cached target is
	// rebuilt (and the token refreshed) before then. oauthAccess is that token, so a 401 can
	// tell whether another caller already replaced it.
	OauthExpires time.Time
	OauthAccess  string
	// OauthPerson is the person whose own sign-in OauthAccess is; empty for the service's one
	// sign-in.
	OauthPerson string
}

// PerPerson says the target is each calling person's own: their secret or their sign-in is
// filled in before it is used, and it is never used without.
func (t Target) PerPerson() bool { return t.PersonalCredential || t.PersonalSignIn }

// TargetCredential is a credential as presented at egress.
type TargetCredential struct {
	ID         string
	Scheme     AuthScheme
	HeaderName string
	EnvName    string
	Secret     string
}

// Downstream reaches downstream MCP servers. proxy implements it; the core declares it so the
// core never imports the proxy.
type Downstream interface {
	// ListTools returns the service's tools (cached; refreshed on list_changed, error, TTL),
	// with Enabled set from t.DisabledTools.
	ListTools(ctx context.Context, t Target) ([]DownstreamTool, error)
	// CallTool checks the tool exists, is enabled, is admitted by t.Admit and that args satisfy
	// its input schema, then forwards the call under t.Timeout. Failures are classified *Errors.
	CallTool(ctx context.Context, t Target, tool string, args json.RawMessage) (CallResult, error)
	// Check opens (or reuses) the connection and lists tools to refresh the service's health.
	Check(ctx context.Context, t Target) Health
	// Status returns what is known without I/O: health and the cached tool list, if any.
	Status(serviceID string) (DownstreamStatus, bool)
	// Forget closes the service's connection and drops its caches (service changed or deleted).
	Forget(serviceID string)
	// SessionEnded tells the proxy that an agent session ended (closed, expired or evicted, on
	// any replica): it lets go of what it kept for the session, and a local server that only
	// ended sessions were using is stopped shortly after.
	SessionEnded(sessionID string)
}

// DownstreamStatus is the proxy's in-memory view of one service.
type DownstreamStatus struct {
	Health Health
	// Tools is the cached tool list, nil when never fetched.
	Tools []DownstreamTool
	// TalksBack says the downstream was seen talking back in a way that makes its calls take
	// turns; the core records it (Store.MarkServiceTalksBack).
	TalksBack bool
}

// DownstreamCatalog reaches what a downstream offers beside tools: its resources, prompts and
// argument completions. The proxy forwards each request as it is and returns the raw result,
// masked of the service's secrets; the core rewrites names and URIs into the hub's.
type DownstreamCatalog interface {
	// Forward sends one request of CatalogMethods to the service under t.Timeout.
	Forward(ctx context.Context, t Target, method string, params json.RawMessage) (json.RawMessage, error)
}

// CatalogMethods are the requests DownstreamCatalog forwards.
var CatalogMethods = []string{"resources/list", "resources/templates/list", "resources/read", "prompts/list",
	"prompts/get", "completion/complete"}
