package authserver

import (
	"context"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"time"

	"golang.org/x/time/rate"

	"github.com/agent-deck/agent-deck/backend"
)

// AuthServer is Agent Deck's own OAuth authorization server: client registration, the
// authorization request and consent, and the token endpoint. Its grants are ordinary tokens.
type Server struct {
	store Store
	decks DeckFinder
	clock backend.Clock
	log   *slog.Logger
	cfg   Config
	// registrations is this replica's rate of client registrations (register_bounds.go).
	registrations *rate.Limiter
}

// AuthStore is what the authorization server reads and writes: its clients, codes and grants,
// and token revocation for a code presented twice.
type Store interface {
	backend.AuthServerStore
	RevokeToken(ctx context.Context, id string, at time.Time) error
}

// DeckFinder finds the deck a person picks on the consent screen, by id or exact name.
type DeckFinder interface {
	FindDeck(ctx context.Context, ref string) (backend.Deck, error)
}

// NewAuthServer wires the authorization server. store should be one whose writes keep the
// token cache current (the hub's).
func New(store Store, decks DeckFinder, clock backend.Clock, log *slog.Logger, cfg Config) *Server {
	if clock == nil {
		clock = time.Now
	}
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	cfg = cfg.withDefaults()
	return &Server{store: store, decks: decks, clock: clock, log: log, cfg: cfg,
		registrations: registrationLimiter(cfg.RegistrationsPerMinute)}
}

// OAuthError is a refusal in the shape the OAuth RFCs name: an error code such as
// invalid_grant and a description for the developer. Redirect tells the authorization endpoint
// that the client's redirect_uri is trusted, so the error goes back to the client there.
type Error struct {
	Code        string
	Description string
	Status      int
	Redirect    bool
	// RetryAfter, when set, is the seconds to wait before trying again (a Retry-After header).
	RetryAfter int
}

func (e *Error) Error() string { return e.Code + ": " + e.Description }

func oauthErr(code, format string, args ...any) *Error {
	status := http.StatusBadRequest
	if code == "invalid_client" {
		status = http.StatusUnauthorized
	}
	return &Error{Code: code, Description: fmt.Sprintf(format, args...), Status: status}
}

// redirectable marks an authorization-request error the client may receive at its redirect_uri.
func redirectable(e *Error) *Error { e.Redirect = true; return e }

// AsOAuthError returns err as an OAuth error; a failure that is not one (the database is down)
// becomes server_error or temporarily_unavailable without its cause.
func AsError(err error) *Error {
	if oe, ok := errors.AsType[*Error](err); ok {
		return oe
	}
	if backend.ErrorCode(err) == backend.CodeUnavailable {
		return &Error{Code: "temporarily_unavailable", Description: "the server cannot serve the request now; retry", Status: http.StatusServiceUnavailable}
	}
	return &Error{Code: "server_error", Description: "internal error", Status: http.StatusInternalServerError}
}

// OAuthClientInput is a Dynamic Client Registration request (RFC 7591 §2).
type ClientInput struct {
	RedirectURIs            []string `json:"redirect_uris"`
	ClientName              string   `json:"client_name,omitempty"`
	GrantTypes              []string `json:"grant_types,omitempty"`
	ResponseTypes           []string `json:"response_types,omitempty"`
	TokenEndpointAuthMethod string   `json:"token_endpoint_auth_method,omitempty"`
	Scope                   string   `json:"scope,omitempty"`
	ClientURI               string   `json:"client_uri,omitempty"`
}

// OAuthClientRegistration is the registration response (RFC 7591 §3.2.1).
type ClientRegistration struct {
	ClientID                string   `json:"client_id"`
	ClientIDIssuedAt        int64    `json:"client_id_issued_at"`
	ClientName              string   `json:"client_name"`
	RedirectURIs            []string `json:"redirect_uris"`
	GrantTypes              []string `json:"grant_types"`
	ResponseTypes           []string `json:"response_types"`
	TokenEndpointAuthMethod string   `json:"token_endpoint_auth_method"`
	Scope                   string   `json:"scope"`
}

// RegisterOAuthClient registers a public client (no secret; PKCE protects its codes). Anyone
// may register: a registration grants nothing until a person allows it on the consent screen,
// and registrations are bounded (register_bounds.go).
// Redirect URIs must be loopback (RFC 8252 §7.3), so a code can only go back to this machine.
func (s *Server) RegisterClient(ctx context.Context, in ClientInput) (ClientRegistration, error) {
	if len(in.RedirectURIs) == 0 || len(in.RedirectURIs) > 10 {
		return ClientRegistration{}, oauthErr("invalid_redirect_uri", "redirect_uris must list 1 to 10 loopback URIs")
	}
	for _, u := range in.RedirectURIs {
		if err := checkRedirectURI(u, false); err != nil {
			return ClientRegistration{}, oauthErr("invalid_redirect_uri", "redirect_uris: %s", err)
		}
	}
	if m := in.TokenEndpointAuthMethod; m != "" && m != "none" {
		return ClientRegistration{}, oauthErr("invalid_client_metadata",
			"token_endpoint_auth_method %q is not supported; use none (a public client with PKCE)", backend.Clip(m, 40))
	}
	for _, g := range in.GrantTypes {
		if g != "authorization_code" && g != "refresh_token" {
			return ClientRegistration{}, oauthErr("invalid_client_metadata", "grant_types: %q is not supported; use authorization_code and refresh_token", backend.Clip(g, 40))
		}
	}
	for _, r := range in.ResponseTypes {
		if r != "code" {
			return ClientRegistration{}, oauthErr("invalid_client_metadata", "response_types: %q is not supported; use code", backend.Clip(r, 40))
		}
	}
	name := strings.TrimSpace(in.ClientName)
	if name == "" {
		name = "unnamed client"
	}
	name = backend.Clip(name, 100)
	now := s.clock()
	if err := s.admitRegistration(now); err != nil {
		return ClientRegistration{}, err
	}
	if err := s.roomForClient(ctx, now); err != nil {
		return ClientRegistration{}, err
	}
	id, err := backend.NewUUID()
	if err != nil {
		return ClientRegistration{}, err
	}
	c := backend.AuthClient{ID: "adc-" + id, Name: name, RedirectURIs: in.RedirectURIs, CreatedAt: now}
	if err := s.store.CreateOAuthClient(ctx, c); err != nil {
		return ClientRegistration{}, backend.StoreErr("registering an oauth client", err)
	}
	return ClientRegistration{
		ClientID: c.ID, ClientIDIssuedAt: c.CreatedAt.Unix(), ClientName: c.Name, RedirectURIs: c.RedirectURIs,
		GrantTypes: []string{"authorization_code", "refresh_token"}, ResponseTypes: []string{"code"},
		TokenEndpointAuthMethod: "none", Scope: strings.Join(Scopes, " "),
	}, nil
}

// checkRedirectURI accepts an absolute URI without a fragment: http or https on a loopback
// host, or (for a client proven by its metadata document) any https URI.
func checkRedirectURI(raw string, anyHTTPS bool) error {
	u, err := url.Parse(raw)
	if err != nil || !u.IsAbs() || u.Host == "" || u.Opaque != "" {
		return fmt.Errorf("%q is not an absolute http(s) URI", backend.Clip(raw, 100))
	}
	if u.Fragment != "" || strings.Contains(raw, "#") {
		return fmt.Errorf("%q has a fragment", backend.Clip(raw, 100))
	}
	if u.User != nil {
		return fmt.Errorf("%q has user info", backend.Clip(raw, 100))
	}
	if !validPort(u.Port()) {
		return fmt.Errorf("%q has port %q; a port is a number from 1 to 65535", backend.Clip(raw, 100), backend.Clip(u.Port(), 20))
	}
	switch {
	case (u.Scheme == "http" || u.Scheme == "https") && isLoopbackHost(u.Hostname()):
		return nil
	case u.Scheme == "https" && anyHTTPS:
		return nil
	}
	return fmt.Errorf("%q is not a loopback URI (http://127.0.0.1:PORT/…, http://localhost:PORT/… or http://[::1]:PORT/…)", backend.Clip(raw, 100))
}

func isLoopbackHost(h string) bool {
	if strings.EqualFold(h, "localhost") {
		return true
	}
	ip := net.ParseIP(h)
	return ip != nil && ip.IsLoopback()
}

// validPort reports whether a URI's port (as url.URL.Port returns it) is absent or a TCP port a
// client could listen on: a browser refuses to follow a redirect to port 0 or 99999.
func validPort(p string) bool {
	if p == "" {
		return true
	}
	n, err := strconv.Atoi(p)
	return err == nil && n >= 1 && n <= 65535
}

// redirectMatches: the exact registered URI, or for loopback http a registered URI that differs
// only in the port (RFC 8252 §7.3: a native client picks a free port when it starts).
// A port that is no TCP port never matches, even one registered before ports were checked.
func redirectMatches(registered []string, asked string) bool {
	a, err := url.Parse(asked)
	if err != nil || !validPort(a.Port()) {
		return false
	}
	if slices.Contains(registered, asked) {
		return true
	}
	if a.Scheme != "http" || !isLoopbackHost(a.Hostname()) || a.Fragment != "" || a.User != nil {
		return false
	}
	for _, r := range registered {
		u, err := url.Parse(r)
		if err == nil && u.Scheme == "http" && u.Hostname() == a.Hostname() && u.Path == a.Path && u.RawQuery == a.RawQuery {
			return true
		}
	}
	return false
}

// AuthorizeRequest is an authorization request's parameters (RFC 6749 §4.1.1, RFC 7636,
// RFC 8707).
type AuthorizeRequest struct {
	ResponseType        string `json:"response_type"`
	ClientID            string `json:"client_id"`
	RedirectURI         string `json:"redirect_uri"`
	Scope               string `json:"scope"`
	State               string `json:"state"`
	CodeChallenge       string `json:"code_challenge"`
	CodeChallengeMethod string `json:"code_challenge_method"`
	Resource            string `json:"resource"`
}

// ConsentInfo is what the consent screen shows: who asks, for what, and where the answer goes.
type ConsentInfo struct {
	ClientID    string        `json:"client_id"`
	ClientName  string        `json:"client_name"`
	Scope       backend.Scope `json:"scope"`
	RedirectURI string        `json:"redirect_uri"`
	// ClientIDIsURL tells a client known by its metadata document (its id is its https URL).
	ClientIDIsURL bool   `json:"client_id_is_url"`
	Resource      string `json:"resource"`
}

// CheckAuthorization validates an authorization request for the server at base. An error whose
// Redirect is false (unknown client, bad redirect_uri) must not redirect: it is shown to the
// person; any other goes back to the client's redirect_uri.
func (s *Server) CheckAuthorization(ctx context.Context, base string, req AuthorizeRequest) (ConsentInfo, error) {
	if strings.TrimSpace(req.ClientID) == "" {
		return ConsentInfo{}, oauthErr("invalid_request", "client_id is required")
	}
	client, err := s.oauthClient(ctx, req.ClientID)
	if err != nil {
		return ConsentInfo{}, err
	}
	if req.RedirectURI == "" && len(client.RedirectURIs) == 1 {
		req.RedirectURI = client.RedirectURIs[0]
	}
	if req.RedirectURI == "" {
		return ConsentInfo{}, oauthErr("invalid_request", "redirect_uri is required")
	}
	if !redirectMatches(client.RedirectURIs, req.RedirectURI) {
		return ConsentInfo{}, oauthErr("invalid_request", "redirect_uri is not one of the client's registered redirect URIs")
	}
	info := ConsentInfo{ClientID: client.ID, ClientName: client.Name, RedirectURI: req.RedirectURI,
		ClientIDIsURL: isURLClientID(client.ID), Resource: strings.TrimRight(base, "/") + backend.OAuthResourcePath}
	switch {
	case req.ResponseType != "code":
		return info, redirectable(oauthErr("unsupported_response_type", "response_type must be code"))
	case req.State == "":
		return info, redirectable(oauthErr("invalid_request", "state is required"))
	case req.CodeChallenge == "":
		return info, redirectable(oauthErr("invalid_request", "code_challenge is required (PKCE with S256)"))
	case req.CodeChallengeMethod != "S256":
		return info, redirectable(oauthErr("invalid_request", "code_challenge_method must be S256; plain is not accepted"))
	case !validChallenge(req.CodeChallenge):
		return info, redirectable(oauthErr("invalid_request", "code_challenge must be 43 base64url characters (SHA-256 of the verifier)"))
	}
	if req.Resource != "" && req.Resource != info.Resource {
		return info, redirectable(oauthErr("invalid_target", "this server issues tokens for %s only", info.Resource))
	}
	scope, err := oauthScope(req.Scope)
	if err != nil {
		return info, err
	}
	info.Scope = scope
	return info, nil
}

// oauthScope reads the scope parameter: agent (the default) or agent:read.
func oauthScope(raw string) (backend.Scope, error) {
	scope := backend.Scope("")
	for _, w := range strings.Fields(raw) {
		switch w {
		case string(backend.ScopeAgent):
			scope = backend.ScopeAgent
		case string(backend.ScopeAgentRead):
			if scope == "" {
				scope = backend.ScopeAgentRead
			}
		default:
			return "", redirectable(oauthErr("invalid_scope", "scope %q is not offered; ask for agent or agent:read", backend.Clip(w, 40)))
		}
	}
	if scope == "" {
		scope = backend.ScopeAgent
	}
	return scope, nil
}

func validChallenge(c string) bool {
	if len(c) != 43 {
		return false
	}
	_, err := base64.RawURLEncoding.DecodeString(c)
	return err == nil
}

// ConsentInput is the person's answer on the consent screen, with the request it answers.
type ConsentInput struct {
	AuthorizeRequest
	Approve bool `json:"approve"`
	// Deck (id or exact name), when set, is the deck the client's MCP sessions start bound to;
	// empty lets the agent bind itself.
	Deck string `json:"deck,omitempty"`
}

// ConsentDecision is where the browser goes next: the client's redirect_uri with a code (or
// error=access_denied), state and iss.
type ConsentDecision struct {
	RedirectTo string `json:"redirect_to"`
}

// DecideAuthorization records the person's answer. A person's own session only (the
// dashboard, or a person's admin-scope token on the sign-in page): consent hands a token acting
// for that person to a program.
func (s *Server) DecideAuthorization(ctx context.Context, base string, in ConsentInput) (ConsentDecision, error) {
	who, err := backend.RequirePerson(ctx, "allow OAuth clients")
	if err != nil {
		return ConsentDecision{}, err
	}
	info, err := s.CheckAuthorization(ctx, base, in.AuthorizeRequest)
	if err != nil {
		oe := AsError(err)
		if !oe.Redirect {
			return ConsentDecision{}, backend.Errorf(backend.CodeInvalidArgument, "the sign-in request is not valid: %s", oe.Description).
				WithHint("start the sign-in again from the client")
		}
		return ConsentDecision{RedirectTo: AuthorizationErrorURL(base, info.RedirectURI, in.State, oe)}, nil
	}
	if !in.Approve {
		return ConsentDecision{RedirectTo: AuthorizationErrorURL(base, info.RedirectURI, in.State,
			oauthErr("access_denied", "the person declined the sign-in"))}, nil
	}
	var deck backend.Deck
	if ref := strings.TrimSpace(in.Deck); ref != "" {
		if deck, err = s.decks.FindDeck(ctx, ref); err != nil {
			return ConsentDecision{}, err
		}
	}
	code, err := backend.RandomSecret(CodePrefix)
	if err != nil {
		return ConsentDecision{}, err
	}
	now := s.clock()
	rec := backend.AuthCode{Hash: backend.HashToken(code), ClientID: info.ClientID, ClientName: info.ClientName,
		RedirectURI: info.RedirectURI, Challenge: in.CodeChallenge, Scope: info.Scope, Resource: info.Resource,
		CreatedAt: now, ExpiresAt: now.Add(CodeTTL), DeckID: deck.ID, PersonID: who.PersonID}
	if err := s.store.CreateOAuthCode(ctx, rec); err != nil {
		return ConsentDecision{}, backend.StoreErr("creating an authorization code", err)
	}
	return ConsentDecision{RedirectTo: withQuery(info.RedirectURI, url.Values{
		"code": {code}, "state": {in.State}, "iss": {strings.TrimRight(base, "/")}})}, nil
}

// AuthorizationErrorURL is the client's redirect_uri carrying an authorization error.
func AuthorizationErrorURL(base, redirectURI, state string, e *Error) string {
	q := url.Values{"error": {e.Code}, "error_description": {e.Description}, "iss": {strings.TrimRight(base, "/")}}
	if state != "" {
		q.Set("state", state)
	}
	return withQuery(redirectURI, q)
}

func withQuery(raw string, add url.Values) string {
	u, err := url.Parse(raw)
	if err != nil {
		return raw
	}
	q := u.Query()
	for k, v := range add {
		q[k] = v
	}
	u.RawQuery = q.Encode()
	return u.String()
}

// OAuthTokenRequest is a token request's form (RFC 6749 §4.1.3 and §6).
type TokenRequest struct {
	GrantType    string
	Code         string
	RedirectURI  string
	ClientID     string
	CodeVerifier string
	RefreshToken string
	Resource     string
	Scope        string
}

// OAuthTokenResponse is a successful token response (RFC 6749 §5.1).
type TokenResponse struct {
	AccessToken  string `json:"access_token"`
	TokenType    string `json:"token_type"`
	ExpiresIn    int64  `json:"expires_in"`
	RefreshToken string `json:"refresh_token"`
	Scope        string `json:"scope"`
}

// ExchangeOAuthToken answers the token endpoint: a code (with its PKCE verifier) or a refresh
// token becomes an access token for this server's /mcp and a new refresh token.
func (s *Server) ExchangeToken(ctx context.Context, base string, req TokenRequest) (TokenResponse, error) {
	resource := strings.TrimRight(base, "/") + backend.OAuthResourcePath
	if req.Resource != "" && req.Resource != resource {
		return TokenResponse{}, oauthErr("invalid_target", "this server issues tokens for %s only", resource)
	}
	switch req.GrantType {
	case "authorization_code":
		return s.exchangeCode(ctx, resource, req)
	case "refresh_token":
		return s.refreshGrant(ctx, req)
	case "":
		return TokenResponse{}, oauthErr("invalid_request", "grant_type is required")
	}
	return TokenResponse{}, oauthErr("unsupported_grant_type", "grant_type must be authorization_code or refresh_token")
}

func (s *Server) exchangeCode(ctx context.Context, resource string, req TokenRequest) (TokenResponse, error) {
	switch {
	case req.Code == "":
		return TokenResponse{}, oauthErr("invalid_request", "code is required")
	case req.CodeVerifier == "":
		return TokenResponse{}, oauthErr("invalid_request", "code_verifier is required (PKCE)")
	case req.ClientID == "":
		return TokenResponse{}, oauthErr("invalid_request", "client_id is required")
	}
	now := s.clock()
	var code backend.AuthCode
	var err error = backend.Errorf(backend.CodeNotFound, "not a code")
	if strings.HasPrefix(req.Code, CodePrefix) && len(req.Code) == len(CodePrefix)+43 {
		code, err = s.store.ConsumeOAuthCode(ctx, backend.HashToken(req.Code), now)
	}
	switch {
	case backend.ErrorCode(err) == backend.CodeConflict:
		// A code presented twice may have been stolen: the grant it became ends too (RFC 6749 §4.1.2).
		if code.TokenID != "" {
			if rerr := s.store.RevokeToken(ctx, code.TokenID, now); rerr != nil && !backend.IsNotFound(rerr) {
				s.log.Warn("revoking the grant of a reused code failed", "token_id", code.TokenID, "error", rerr)
			}
		}
		return TokenResponse{}, oauthErr("invalid_grant", "the authorization code was already used; its tokens are revoked")
	case backend.IsNotFound(err):
		return TokenResponse{}, oauthErr("invalid_grant", "the authorization code is unknown or expired")
	case err != nil:
		return TokenResponse{}, backend.StoreErr("checking an authorization code", err)
	}
	switch {
	case req.ClientID != code.ClientID:
		return TokenResponse{}, oauthErr("invalid_grant", "the authorization code was issued to another client")
	case req.RedirectURI != code.RedirectURI:
		return TokenResponse{}, oauthErr("invalid_grant", "redirect_uri does not match the authorization request's")
	case code.Resource != resource:
		return TokenResponse{}, oauthErr("invalid_target", "the authorization code is for another resource")
	case !pkceMatches(req.CodeVerifier, code.Challenge):
		return TokenResponse{}, oauthErr("invalid_grant", "code_verifier does not match the code_challenge")
	}
	access, refresh, err := newGrantSecrets()
	if err != nil {
		return TokenResponse{}, err
	}
	ttl := s.cfg.AccessTokenTTL
	exp := now.Add(ttl)
	rec := backend.TokenRecord{
		Token: backend.Token{Name: backend.Clip("OAuth: "+code.ClientName, 120), Scope: code.Scope, CreatedAt: now,
			Kind: backend.TokenKindOAuth, ExpiresAt: &exp, DeckID: code.DeckID, PersonID: code.PersonID},
		Hash: backend.HashToken(access),
	}
	r := backend.AuthRefresh{Hash: backend.HashToken(refresh), CreatedAt: now, ExpiresAt: now.Add(RefreshTTL), Scope: code.Scope,
		ClientID: code.ClientID}
	if err := s.store.IssueOAuthGrant(ctx, &rec, code.Hash, r); err != nil {
		return TokenResponse{}, backend.StoreErr("issuing an oauth grant", err)
	}
	return TokenResponse{AccessToken: access, TokenType: "Bearer", ExpiresIn: int64(ttl.Seconds()),
		RefreshToken: refresh, Scope: string(code.Scope)}, nil
}

func (s *Server) refreshGrant(ctx context.Context, req TokenRequest) (TokenResponse, error) {
	if req.RefreshToken == "" {
		return TokenResponse{}, oauthErr("invalid_request", "refresh_token is required")
	}
	if req.ClientID == "" { // a public client authenticates by naming itself (RFC 6749 §3.2.1)
		return TokenResponse{}, oauthErr("invalid_grant", "client_id is required: a refresh token works only for the client it was issued to")
	}
	access, refresh, err := newGrantSecrets()
	if err != nil {
		return TokenResponse{}, err
	}
	now := s.clock()
	ttl := s.cfg.AccessTokenTTL
	next := backend.AuthRefresh{Hash: backend.HashToken(refresh), CreatedAt: now, ExpiresAt: now.Add(RefreshTTL), ClientID: req.ClientID}
	var rec backend.TokenRecord
	err = backend.Errorf(backend.CodeNotFound, "not a refresh token")
	if strings.HasPrefix(req.RefreshToken, RefreshPrefix) && len(req.RefreshToken) == len(RefreshPrefix)+43 {
		rec, err = s.store.RotateOAuthRefresh(ctx, backend.HashToken(req.RefreshToken), now, backend.HashToken(access), now.Add(ttl), next,
			func(granted backend.Scope, clientID string) (backend.Scope, error) {
				if clientID != "" && clientID != req.ClientID {
					return "", oauthErr("invalid_grant", "the refresh token was issued to another client")
				}
				return refreshScope(req.Scope, granted)
			})
	}
	if oe, ok := errors.AsType[*Error](err); ok {
		return TokenResponse{}, oe
	}
	switch {
	case backend.ErrorCode(err) == backend.CodeConflict:
		return TokenResponse{}, oauthErr("invalid_grant", "the refresh token was already used; the sign-in is revoked, sign in again")
	case backend.IsNotFound(err):
		return TokenResponse{}, oauthErr("invalid_grant", "the refresh token is unknown, expired or revoked")
	case err != nil:
		return TokenResponse{}, backend.StoreErr("refreshing an oauth grant", err)
	}
	return TokenResponse{AccessToken: access, TokenType: "Bearer", ExpiresIn: int64(ttl.Seconds()),
		RefreshToken: refresh, Scope: string(rec.Scope)}, nil
}

// newGrantSecrets draws the access and refresh tokens a code or a refresh is exchanged for.
func newGrantSecrets() (access, refresh string, err error) {
	if access, err = backend.RandomSecret(backend.TokenPrefix); err != nil {
		return "", "", err
	}
	if refresh, err = backend.RandomSecret(RefreshPrefix); err != nil {
		return "", "", err
	}
	return access, refresh, nil
}

// pkceMatches checks an S256 verifier (RFC 7636 §4.6) in constant time.
func pkceMatches(verifier, challenge string) bool {
	if len(verifier) < 43 || len(verifier) > 128 {
		return false
	}
	sum := sha256.Sum256([]byte(verifier))
	got := base64.RawURLEncoding.EncodeToString(sum[:])
	return subtle.ConstantTimeCompare([]byte(got), []byte(challenge)) == 1
}

// isURLClientID tells a Client ID Metadata Document client: its id is an http(s) URL.
func isURLClientID(id string) bool {
	return strings.HasPrefix(id, "https://") || strings.HasPrefix(id, "http://")
}

// oauthClient finds a client: a registered one, or one whose id is the URL of its metadata
// document, fetched now (draft-ietf-oauth-client-id-metadata-document).
func (s *Server) oauthClient(ctx context.Context, id string) (backend.AuthClient, error) {
	if !isURLClientID(id) {
		c, err := s.store.GetOAuthClient(ctx, backend.Clip(id, 200))
		if backend.IsNotFound(err) {
			return backend.AuthClient{}, oauthErr("invalid_client", "client_id %q is not registered; register at %s first", backend.Clip(id, 80), backend.OAuthRegisterPath)
		}
		if err != nil {
			return backend.AuthClient{}, backend.StoreErr("finding an oauth client", err)
		}
		return c, s.expired(c)
	}
	return s.fetchClientMetadata(ctx, id)
}

func (s *Server) fetchClientMetadata(ctx context.Context, id string) (backend.AuthClient, error) {
	u, err := url.Parse(id)
	bad := err != nil || u.Host == "" || u.User != nil || u.Fragment != "" || u.Path == "" || u.Path == "/" || len(id) > 2000
	if !bad {
		switch {
		case u.Scheme == "https":
		case u.Scheme == "http" && s.cfg.AllowLoopbackHTTPClientIDs && isLoopbackHost(u.Hostname()):
		default:
			bad = true
		}
	}
	if bad {
		return backend.AuthClient{}, oauthErr("invalid_client", "a URL client_id must be an https URL with a path (a Client ID Metadata Document)")
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, id, nil)
	if err != nil {
		return backend.AuthClient{}, oauthErr("invalid_client", "the client_id URL cannot be fetched")
	}
	req.Header.Set("Accept", "application/json")
	resp, err := s.cfg.HTTPClient.Do(req)
	if err != nil {
		return backend.AuthClient{}, oauthErr("invalid_client", "the client's metadata document could not be fetched")
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return backend.AuthClient{}, oauthErr("invalid_client", "the client's metadata document answered HTTP %d", resp.StatusCode)
	}
	body, err := io.ReadAll(io.LimitReader(resp.Body, maxClientMetadataBytes+1))
	if err != nil || len(body) > maxClientMetadataBytes {
		return backend.AuthClient{}, oauthErr("invalid_client", "the client's metadata document is unreadable or over %d bytes", maxClientMetadataBytes)
	}
	var doc struct {
		ClientID     string   `json:"client_id"`
		ClientName   string   `json:"client_name"`
		RedirectURIs []string `json:"redirect_uris"`
		AuthMethod   string   `json:"token_endpoint_auth_method"`
	}
	if err := json.Unmarshal(body, &doc); err != nil {
		return backend.AuthClient{}, oauthErr("invalid_client", "the client's metadata document is not a JSON object")
	}
	if doc.ClientID != id {
		return backend.AuthClient{}, oauthErr("invalid_client", "the client's metadata document names another client_id")
	}
	if doc.AuthMethod != "" && doc.AuthMethod != "none" {
		return backend.AuthClient{}, oauthErr("invalid_client", "only public clients (token_endpoint_auth_method none) are accepted")
	}
	if len(doc.RedirectURIs) == 0 {
		return backend.AuthClient{}, oauthErr("invalid_client", "the client's metadata document lists no redirect_uris")
	}
	for _, r := range doc.RedirectURIs {
		if err := checkRedirectURI(r, true); err != nil {
			return backend.AuthClient{}, oauthErr("invalid_client", "the client's metadata document: %s", err)
		}
	}
	name := strings.TrimSpace(doc.ClientName)
	if name == "" {
		name = u.Host
	}
	return backend.AuthClient{ID: id, Name: backend.Clip(name, 100), RedirectURIs: doc.RedirectURIs}, nil
}

// refreshScope is the scope of a refreshed access token: the grant's when the request names
// none, else the one named, which may narrow the grant (agent to agent:read) but never exceed
// it (RFC 6749 §6).
func refreshScope(raw string, granted backend.Scope) (backend.Scope, error) {
	if strings.TrimSpace(raw) == "" {
		return granted, nil
	}
	want, err := oauthScope(raw)
	if err != nil {
		return "", err
	}
	if want == backend.ScopeAgent && granted != backend.ScopeAgent {
		return "", oauthErr("invalid_scope", "scope %q exceeds what was granted (%s)", want, granted)
	}
	return want, nil
}
