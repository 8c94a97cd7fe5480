package backend

import (
	"context"
	"strings"
	"time"
)

// Agent Deck signs in to a remote service that requires the MCP authorization flow (OAuth 2.1
// with PKCE) as an OAuth client. The tokens it gets and the client secrets it registers are
// secrets like any other: sealed at rest, never returned, never logged, never sent to a model.

// OAuthState is a service's sign-in state, as one word for every surface.
type OAuthState string

// The sign-in states.
const (
	OAuthStateNone        OAuthState = "none"          // the service needs no sign-in
	OAuthStateConnected   OAuthState = "connected"     // tokens held
	OAuthStateNeedsSignIn OAuthState = "needs_sign_in" // the service asked for a sign-in
	OAuthStateError       OAuthState = "error"         // the last sign-in or refresh failed
)

// ServiceOAuthClient is how Agent Deck is registered at a service's authorization server: a client id
// pre-registered on the service card or issued by dynamic client registration, its secret
// (empty for a public client) and how the secret is sent to the token endpoint.
type ServiceOAuthClient struct {
	ID         string `json:"client_id"`
	Secret     string `json:"client_secret,omitempty"`
	AuthMethod string `json:"token_endpoint_auth_method,omitempty"` // none, client_secret_basic or client_secret_post
	// ResourceMetadata is the protected resource metadata URL the service's challenge named,
	// kept so that later steps discover the same authorization server.
	ResourceMetadata string `json:"resource_metadata,omitempty"`
	// AuthServerMetadata is the authorization server metadata URL found by the fallbacks
	// (protected resource metadata at the root, or the 2025-03-26 discovery at the origin).
	AuthServerMetadata string `json:"auth_server_metadata,omitempty"`
}

// OAuthToken is a token set from a service's authorization server.
type OAuthToken struct {
	AccessToken  string    `json:"access_token"`
	TokenType    string    `json:"token_type,omitempty"`
	RefreshToken string    `json:"refresh_token,omitempty"`
	Scope        string    `json:"scope,omitempty"`
	ExpiresAt    time.Time `json:"expires_at,omitzero"`
}

// oauthRefreshMargin is how long before expiry a token is refreshed, so that a call never goes
// out with a token that expires on the way.
const oauthRefreshMargin = 60 * time.Second

// NeedsRefresh reports whether the token expires within the refresh margin of now.
func (t OAuthToken) NeedsRefresh(now time.Time) bool {
	return !t.ExpiresAt.IsZero() && !now.Before(t.RenewBy())
}

// RenewBy is when the token must be refreshed, the refresh margin before it expires; zero for a
// token that does not expire.
func (t OAuthToken) RenewBy() time.Time {
	if t.ExpiresAt.IsZero() {
		return time.Time{}
	}
	return t.ExpiresAt.Add(-oauthRefreshMargin)
}

// Scopes is the granted scope as a list.
func (t OAuthToken) Scopes() []string { return strings.Fields(t.Scope) }

// OAuthPending is a sign-in started and not yet finished: what the callback needs to check the
// answer (State) and to exchange the code (Verifier, the PKCE secret), with the client used.
type OAuthPending struct {
	ServiceID   string             `json:"service_id"`
	State       string             `json:"state"`
	Verifier    string             `json:"code_verifier"`
	RedirectURI string             `json:"redirect_uri"`
	Scopes      []string           `json:"scopes,omitempty"`
	Client      ServiceOAuthClient `json:"client"`
	// AuthURL is the authorization server's page the person opens to consent.
	AuthURL string `json:"-"`
	// StepUps counts the sign-ins started for more scope (insufficient_scope) in a row.
	StepUps int `json:"step_ups,omitempty"`
}

// OAuthBegin is the input of a sign-in: the service's URL, where the authorization server
// sends the person back, the client when one is already known, and the scopes the service
// asked for (from a WWW-Authenticate challenge) if any.
type OAuthBegin struct {
	ServiceID   string
	URL         string
	RedirectURI string
	Client      ServiceOAuthClient
	Scopes      []string
	// ClientMetadataURL is Agent Deck's Client ID Metadata Document (an https URL), used as
	// the client_id when the authorization server supports such documents and no client is
	// known; empty registers instead.
	ClientMetadataURL string
	// Hosts is the service's host policy, which every request of the sign-in is held to.
	Hosts HostPolicy
}

// OAuthService is the service a sign-in step is for: its URL, and the host policy every
// request of the step is held to.
type OAuthService struct {
	URL   string
	Hosts HostPolicy
}

// OAuthFlow is the network side of signing in to a service, implemented by the proxy:
// discovery, client registration, the authorization URL, the code exchange, refresh and
// revocation.
type OAuthFlow interface {
	Begin(ctx context.Context, in OAuthBegin) (OAuthPending, error)
	Exchange(ctx context.Context, svc OAuthService, p OAuthPending, code string) (OAuthToken, error)
	Refresh(ctx context.Context, svc OAuthService, c ServiceOAuthClient, t OAuthToken) (OAuthToken, error)
	Revoke(ctx context.Context, svc OAuthService, c ServiceOAuthClient, t OAuthToken) error
}

// MaxOAuthStepUps bounds the sign-ins started in a row for insufficient_scope, so a service
// that always asks for more cannot loop a person through consent forever.
const MaxOAuthStepUps = 2

// The sealed OAuth columns (see SealedField).
var (
	FieldOAuthClient  = SealedField{Table: "service_oauth", Column: "client"}
	FieldOAuthToken   = SealedField{Table: "service_oauth", Column: "token"}
	FieldOAuthPending = SealedField{Table: "service_oauth", Column: "pending"}
	// A person's own sign-in to a service that takes each person's own: its row id is
	// "<service id>/<person id>".
	FieldPersonOAuthClient  = SealedField{Table: "service_person_oauth", Column: "client"}
	FieldPersonOAuthToken   = SealedField{Table: "service_person_oauth", Column: "token"}
	FieldPersonOAuthPending = SealedField{Table: "service_person_oauth", Column: "pending"}
)

// OAuthFields are the sealed fields of a sign-in record and the row id they are bound to: the
// service's one sign-in, or a person's own (personID set).
func OAuthFields(serviceID, personID string) (client, token, pending SealedField, row string) {
	if personID == "" {
		return FieldOAuthClient, FieldOAuthToken, FieldOAuthPending, serviceID
	}
	return FieldPersonOAuthClient, FieldPersonOAuthToken, FieldPersonOAuthPending, serviceID + "/" + personID
}

// OAuthRecord is a service's stored sign-in: sealed client, token and pending sign-in, and the
// clear facts the surfaces show (state, expiry, scopes, a short error). A service that takes
// each person's own (ServiceCard.Personal, or a personal credential) keeps one per person, with
// PersonID set; any other keeps one, with PersonID empty.
type OAuthRecord struct {
	ServiceID     string
	PersonID      string
	State         OAuthState
	SealedClient  []byte
	SealedToken   []byte
	SealedPending []byte
	// PendingState is the sha256 (hex) of the pending sign-in's state parameter.
	PendingState string
	PendingUntil time.Time
	ExpiresAt    time.Time
	Scopes       []string
	LastError    string
	UpdatedAt    time.Time
}

// OAuthStore keeps sign-ins, each named by its service and person ("" for the service's one
// sign-in). Every getter returns a NOT_FOUND *Error when there is no row.
type OAuthStore interface {
	GetOAuth(ctx context.Context, serviceID, personID string) (OAuthRecord, error)
	// GetOAuthByPendingState finds the sign-in in progress, the service's or a person's, whose
	// state hashes to stateHash.
	GetOAuthByPendingState(ctx context.Context, stateHash string) (OAuthRecord, error)
	// PutOAuth writes r under its ServiceID and PersonID.
	PutOAuth(ctx context.Context, r *OAuthRecord) error
	DeleteOAuth(ctx context.Context, serviceID, personID string) error
	// LockOAuth runs fn with the sign-in's row locked (FOR UPDATE) and writes what fn
	// returns, so of concurrent refreshes on any replica one sends the refresh token and the
	// others, waiting on the lock, read its result. fn returning the record unchanged writes
	// nothing.
	LockOAuth(ctx context.Context, serviceID, personID string, fn func(OAuthRecord) (OAuthRecord, error)) (OAuthRecord, error)
	// PersonOAuths lists the people's own sign-ins to a service.
	PersonOAuths(ctx context.Context, serviceID string) ([]OAuthRecord, error)
}

// ConnectHint is the teaching hint of a service that needs a person to sign in.
func ConnectHint(name string) string {
	return "a person signs in with: agent-deck service connect " + name
}

// DetailRequiredScope is the detail of a DOWNSTREAM_AUTH error naming the scope a service's
// 403 insufficient_scope challenge asked for.
const DetailRequiredScope = "required_scope"
