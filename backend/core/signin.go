package core

import (
	"context"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/hex"
	"errors"
	"slices"
	"strings"
	"time"

	"github.com/agent-deck/agent-deck/backend"
)

// OAuthCallbackPath is where a service's authorization server sends the person back: the deck
// server's own address.
const OAuthCallbackPath = "/oauth/callback"

// OAuthClientMetadataPath is where the deck server serves its own Client ID Metadata Document.
const OAuthClientMetadataPath = "/oauth/client-metadata.json"

// ClientMetadata is Agent Deck's Client ID Metadata Document: what an authorization server that
// supports such documents fetches from the URL Agent Deck gives as its client_id.
type ClientMetadata struct {
	ClientID                string   `json:"client_id"`
	ClientName              string   `json:"client_name"`
	RedirectURIs            []string `json:"redirect_uris"`
	GrantTypes              []string `json:"grant_types"`
	ResponseTypes           []string `json:"response_types"`
	TokenEndpointAuthMethod string   `json:"token_endpoint_auth_method"`
}

// ClientMetadataDocument is the document served at OAuthClientMetadataPath of base (the deck
// server's address as the fetcher reached it): its client_id is the configured URL, else the
// document's own address.
func (s *Hub) ClientMetadataDocument(base string) ClientMetadata {
	id := s.cfg.ClientMetadataURL
	if id == "" {
		id = base + OAuthClientMetadataPath
	}
	return ClientMetadata{ClientID: id, ClientName: "Agent Deck", RedirectURIs: []string{base + OAuthCallbackPath},
		GrantTypes: []string{"authorization_code", "refresh_token"}, ResponseTypes: []string{"code"}, TokenEndpointAuthMethod: "none"}
}

// clientMetadataURL is the client_id Agent Deck offers authorization servers that support
// Client ID Metadata Documents: the configured URL, else the document on the deck server's own
// address when that address is https. Over plain http there is none: an authorization server
// could not fetch it, and the draft requires https.
func (s signIn) clientMetadataURL(redirectURI string) string {
	if s.h.cfg.ClientMetadataURL != "" {
		return s.h.cfg.ClientMetadataURL
	}
	base, ok := strings.CutSuffix(redirectURI, OAuthCallbackPath)
	if !ok || !strings.HasPrefix(base, "https://") {
		return ""
	}
	return base + OAuthClientMetadataPath
}

// oauthPendingTTL is how long a started sign-in waits for its callback.
const oauthPendingTTL = 10 * time.Minute

// OAuthConnect is a started sign-in: the page the person opens to consent.
type OAuthConnect struct {
	ServiceID   string `json:"service_id"`
	ServiceName string `json:"service_name"`
	AuthURL     string `json:"authorization_url"`
}

// OAuthStatus is a service's sign-in as the surfaces show it: no token, no secret.
type OAuthStatus struct {
	State     backend.OAuthState `json:"state"`
	ExpiresAt *time.Time         `json:"expires_at,omitempty"`
	Scopes    []string           `json:"scopes,omitempty"`
	Error     string             `json:"error,omitempty"`
	// Pending is set while a started sign-in waits for its callback.
	Pending bool `json:"pending,omitempty"`
}

// oauthService is what a sign-in step needs of a service: its URL and its host policy.
func (s *Hub) oauthService(rec backend.ServiceRecord) backend.OAuthService {
	return backend.OAuthService{URL: rec.URL, Hosts: s.hostPolicy(rec.URLByAdmin)}
}

func (s signIn) oauthFlow() (backend.OAuthFlow, error) {
	if s.h.cfg.ServiceOAuth == nil {
		return nil, backend.Errorf(backend.CodeUnavailable, "sign-in to services is not available on this server")
	}
	return s.h.cfg.ServiceOAuth, nil
}

// OAuthConnectInput is an optional pre-registered client: the client id (and secret) the
// service's authorization server issued for Agent Deck, used instead of registering.
type OAuthConnectInput struct {
	ClientID     string `json:"client_id,omitempty"`
	ClientSecret string `json:"client_secret,omitempty"`
	// AuthMethod is how the secret is sent: client_secret_basic (default with a secret) or
	// client_secret_post.
	AuthMethod string `json:"token_endpoint_auth_method,omitempty"`
}

// ConnectService starts signing Agent Deck in to a remote service: discovery, registration when
// needed, and the authorization URL a person opens. redirectURI is the deck server's own
// callback (OAuthCallbackPath). The service's one sign-in is an admin's to start: its tokens act
// for whoever consents, on everyone's calls. A service that takes each person's own is signed in
// to by each person for themselves: the sign-in started is the caller's own, and only ever
// serves the caller's calls.
func (s *Hub) ConnectService(ctx context.Context, ref, redirectURI string, in OAuthConnectInput) (OAuthConnect, error) {
	rec, owner, err := s.signInOf(ctx, ref, "connect a service")
	if err != nil {
		return OAuthConnect{}, err
	}
	flow, err := s.signIn().oauthFlow()
	if err != nil {
		return OAuthConnect{}, err
	}
	if rec.Type != backend.ServiceRemote || rec.URL == "" {
		return OAuthConnect{}, backend.Errorf(backend.CodeInvalidArgument, "service %q is not a remote server; only remote servers sign in", rec.Name)
	}
	prev, err := s.store.GetOAuth(ctx, rec.ID, owner)
	if err != nil && !backend.IsNotFound(err) {
		return OAuthConnect{}, backend.StoreErr("reading a sign-in", err)
	}
	prev.ServiceID, prev.PersonID = rec.ID, owner
	clientField, _, pendingField, row := backend.OAuthFields(rec.ID, owner)
	var client backend.ServiceOAuthClient
	if in.ClientID != "" {
		client, err = preRegistered(in)
		if err != nil {
			return OAuthConnect{}, err
		}
	} else if len(prev.SealedClient) > 0 {
		if err := s.secrets.openJSON(clientField, row, prev.SealedClient, &client); err != nil {
			return OAuthConnect{}, err
		}
	}
	wantScopes, stepUps := s.signIn().stepUpScopes(prev)
	p, err := flow.Begin(ctx, backend.OAuthBegin{ServiceID: rec.ID, URL: rec.URL, RedirectURI: redirectURI, Client: client, Scopes: wantScopes,
		ClientMetadataURL: s.signIn().clientMetadataURL(redirectURI), Hosts: s.hostPolicy(rec.URLByAdmin)})
	if err != nil {
		s.log.Warn("service sign-in could not start", "service_id", rec.ID, "err", oauthLogErr(err))
		return OAuthConnect{}, asOAuthError(err, rec.Name)
	}
	p.StepUps = stepUps
	next := prev
	if next.State == "" {
		next.State = backend.OAuthStateNeedsSignIn
	}
	if next.SealedClient, err = s.secrets.sealJSON(clientField, row, p.Client); err != nil {
		return OAuthConnect{}, err
	}
	if next.SealedPending, err = s.secrets.sealJSON(pendingField, row, p); err != nil {
		return OAuthConnect{}, err
	}
	next.PendingState, next.PendingUntil = hashState(p.State), s.clock().Add(oauthPendingTTL)
	if err := s.signIn().putOAuth(ctx, &next); err != nil {
		return OAuthConnect{}, backend.StoreErr("storing a sign-in", err)
	}
	return OAuthConnect{ServiceID: rec.ID, ServiceName: rec.Name, AuthURL: p.AuthURL}, nil
}

// FinishOAuth is the callback: the state names the sign-in (and proves the answer comes from
// the consent Agent Deck started), the code is exchanged for tokens. It needs no actor: the
// person's browser brings it, and the state is a secret only that sign-in knows.
func (s *Hub) FinishOAuth(ctx context.Context, state, code, oauthError string) (OAuthConnect, error) {
	flow, err := s.signIn().oauthFlow()
	if err != nil {
		return OAuthConnect{}, err
	}
	badState := backend.Errorf(backend.CodeInvalidArgument, "this sign-in link is unknown or expired").
		WithHint("start again with: agent-deck service connect NAME")
	if state == "" {
		return OAuthConnect{}, badState
	}
	r, err := s.store.GetOAuthByPendingState(ctx, hashState(state))
	if backend.IsNotFound(err) {
		return OAuthConnect{}, badState
	}
	if err != nil {
		return OAuthConnect{}, backend.StoreErr("reading a sign-in", err)
	}
	_, _, pendingField, row := backend.OAuthFields(r.ServiceID, r.PersonID)
	var p backend.OAuthPending
	if err := s.secrets.openJSON(pendingField, row, r.SealedPending, &p); err != nil {
		return OAuthConnect{}, err
	}
	if subtle.ConstantTimeCompare([]byte(p.State), []byte(state)) != 1 || !s.clock().Before(r.PendingUntil) {
		return OAuthConnect{}, badState
	}
	svc, err := s.store.GetService(ctx, r.ServiceID)
	if err != nil {
		return OAuthConnect{}, backend.StoreErr("reading a service", err)
	}
	done := OAuthConnect{ServiceID: svc.ID, ServiceName: svc.Name}
	r.SealedPending, r.PendingState, r.PendingUntil = nil, "", time.Time{}
	if oauthError != "" || code == "" {
		r.State, r.LastError = backend.OAuthStateError, "consent refused"
		s.signIn().recordFailure(ctx, &r)
		return done, backend.Errorf(backend.CodeDownstreamAuth, "the sign-in to %q was not allowed", svc.Name).WithHint(backend.ConnectHint(svc.Name))
	}
	tok, err := flow.Exchange(ctx, s.oauthService(svc), p, code)
	if err != nil {
		s.log.Warn("service sign-in failed", "service_id", svc.ID, "err", oauthLogErr(err))
		r.State, r.LastError = backend.OAuthStateError, "code exchange failed"
		s.signIn().recordFailure(ctx, &r)
		return done, asOAuthError(err, svc.Name)
	}
	if err := s.signIn().setToken(&r, tok); err != nil {
		return done, err
	}
	if p.StepUps > 0 { // kept, so that the retry limit holds across sign-ins
		if r.SealedPending, err = s.secrets.sealJSON(pendingField, row, backend.OAuthPending{ServiceID: r.ServiceID, StepUps: p.StepUps}); err != nil {
			return done, err
		}
	}
	// Connections and restart backoff from before the sign-in (each connect was refused) must
	// not hold up the first call that now can succeed.
	s.forget(svc.ID)
	if r.PersonID == "" { // a person's own sign-in is checked by their own calls
		s.checkSignIn(ctx, svc, tok)
	}
	if err := s.signIn().putOAuth(ctx, &r); err != nil {
		return done, backend.StoreErr("storing a sign-in", err)
	}
	return done, nil
}

// checkSignIn reaches the service with a sign-in's new token, so its health stops saying that
// it needs a sign-in (every surface reads the stored health) without anyone checking by hand.
// It runs before the sign-in is stored: the sign-in reads as pending until then, so whoever waits
// for it to finish (the dashboard, which then draws the service once; service connect) reads the
// health that follows it, not the refusals from before. Its outcome is the health; the sign-in
// succeeds either way.
func (s *Hub) checkSignIn(ctx context.Context, rec backend.ServiceRecord, tok backend.OAuthToken) {
	if s.downstream == nil {
		return
	}
	t, err := s.unsignedTarget(ctx, rec)
	if err != nil || t.PersonalSignIn {
		return
	}
	withOAuthBearer(&t, tok, "")
	s.cfg.Redactor.Learn(t.ServiceID, t.Secrets)
	s.downstream.Check(ctx, t)
	s.syncHealth(ctx, rec, true)
}

// DisconnectService forgets the service's tokens and registration, revoking them first where the
// authorization server offers revocation: the service's one sign-in (admin), or, for a service
// that takes each person's own, the caller's own and no one else's.
func (s *Hub) DisconnectService(ctx context.Context, ref string) error {
	rec, owner, err := s.signInOf(ctx, ref, "disconnect a service")
	if err != nil {
		return err
	}
	r, err := s.store.GetOAuth(ctx, rec.ID, owner)
	if backend.IsNotFound(err) {
		return nil
	}
	if err != nil {
		return backend.StoreErr("reading a sign-in", err)
	}
	if flow, ferr := s.signIn().oauthFlow(); ferr == nil && len(r.SealedToken) > 0 {
		clientField, tokenField, _, row := backend.OAuthFields(r.ServiceID, r.PersonID)
		var c backend.ServiceOAuthClient
		var t backend.OAuthToken
		if s.secrets.openJSON(clientField, row, r.SealedClient, &c) == nil && s.secrets.openJSON(tokenField, row, r.SealedToken, &t) == nil {
			if err := flow.Revoke(ctx, s.oauthService(rec), c, t); err != nil {
				s.log.Warn("service token revocation failed; forgetting the tokens anyway", "service_id", rec.ID, "err", oauthLogErr(err))
			}
		}
	}
	if err := s.signIn().deleteOAuth(ctx, rec.ID, owner); err != nil {
		return backend.StoreErr("forgetting a sign-in", err)
	}
	s.forget(rec.ID) // no live connection keeps sending the forgotten token
	return nil
}

// ServiceOAuthStatus is the service's sign-in state; none when it never started one. Of a
// service that takes each person's own, it is the caller's own sign-in.
func (s *Hub) ServiceOAuthStatus(ctx context.Context, ref string) (OAuthStatus, error) {
	a, err := backend.RequireRead(ctx, "read services")
	if err != nil {
		return OAuthStatus{}, err
	}
	rec, err := backend.ServiceByRef(ctx, s.store, ref)
	if err != nil {
		return OAuthStatus{}, err
	}
	personal, err := s.personalService(ctx, rec)
	if err != nil {
		return OAuthStatus{}, err
	}
	if !personal {
		return s.signIn().oauthStatus(ctx, rec.ID, "")
	}
	if a.PersonID == "" {
		return OAuthStatus{State: backend.OAuthStateNone}, nil
	}
	return s.signIn().oauthStatus(ctx, rec.ID, a.PersonID)
}

func (s signIn) oauthStatus(ctx context.Context, serviceID, personID string) (OAuthStatus, error) {
	r, err := s.h.store.GetOAuth(ctx, serviceID, personID)
	if backend.IsNotFound(err) {
		return OAuthStatus{State: backend.OAuthStateNone}, nil
	}
	if err != nil {
		return OAuthStatus{}, backend.StoreErr("reading a sign-in", err)
	}
	st := OAuthStatus{State: r.State, Scopes: r.Scopes, Error: r.LastError,
		Pending: r.PendingState != "" && s.h.clock().Before(r.PendingUntil)}
	if !r.ExpiresAt.IsZero() && r.State == backend.OAuthStateConnected {
		at := r.ExpiresAt.UTC()
		st.ExpiresAt = &at
	}
	return st, nil
}

// oauthBearer is the token set whose access token is sent to the service, refreshed first when it is about to
// expire; empty when the sign-in (the service's, or the person's own when personID is set) was
// never started. The refresh runs under the row lock: of replicas refreshing at once, one sends
// the refresh token and the others use its result.
func (s signIn) oauthBearer(ctx context.Context, rec backend.ServiceRecord, personID string) (backend.OAuthToken, error) {
	r, err := s.h.store.GetOAuth(ctx, rec.ID, personID)
	if backend.IsNotFound(err) {
		return backend.OAuthToken{}, nil
	}
	if err != nil {
		return backend.OAuthToken{}, backend.StoreErr("reading a sign-in", err)
	}
	if r.State != backend.OAuthStateConnected || len(r.SealedToken) == 0 {
		return backend.OAuthToken{}, s.needsSignIn(ctx, rec, personID)
	}
	_, tokenField, _, row := backend.OAuthFields(rec.ID, personID)
	var tok backend.OAuthToken
	if err := s.h.secrets.openJSON(tokenField, row, r.SealedToken, &tok); err != nil {
		return backend.OAuthToken{}, err
	}
	if !tok.NeedsRefresh(s.h.clock()) {
		return tok, nil
	}
	return s.refreshOAuth(ctx, rec, personID, "")
}

// renewOAuthAfterRefusal refreshes the token of a service that refused it (the server revoked
// or expired it early) and returns the target with the new one, once; ok is false when err is
// not such a refusal or no new token could be had. A target carrying a person's own sign-in is
// renewed with that person's, for the same caller.
func (s signIn) renewOAuthAfterRefusal(ctx context.Context, rec backend.ServiceRecord, t backend.Target, err error) (backend.Target, bool) {
	if t.OauthAccess == "" || backend.ErrorCode(err) != backend.CodeDownstreamAuth || wantsScope(err) {
		return backend.Target{}, false // a refusal for want of scope is a step-up, not an expired token
	}
	if _, err := s.refreshOAuth(ctx, rec, t.OauthPerson, t.OauthAccess); err != nil {
		return backend.Target{}, false
	}
	renewed, err := s.h.target(ctx, rec)
	if err != nil {
		return backend.Target{}, false
	}
	if t.OauthPerson != "" {
		a, _ := backend.ActorFrom(ctx)
		if a.PersonID != t.OauthPerson {
			return backend.Target{}, false
		}
		if renewed, err = s.h.personTarget(ctx, a, rec, renewed); err != nil || renewed.OauthPerson != t.OauthPerson {
			return backend.Target{}, false
		}
	}
	renewed.Admit = t.Admit
	return renewed, true
}

// refreshOAuth refreshes the token of the service's sign-in (or of the person's own, personID
// set) under its row lock. A token another caller refreshed while this one waited is used as it
// is. With refused set (the access token a service refused), a token that looks valid is
// refreshed too, unless it is no longer that one.
func (s signIn) refreshOAuth(ctx context.Context, rec backend.ServiceRecord, personID, refused string) (backend.OAuthToken, error) {
	flow, err := s.oauthFlow()
	if err != nil {
		return backend.OAuthToken{}, err
	}
	clientField, tokenField, _, row := backend.OAuthFields(rec.ID, personID)
	var out backend.OAuthToken
	_, err = s.lockOAuth(ctx, rec.ID, personID, func(r backend.OAuthRecord) (backend.OAuthRecord, error) {
		if r.State != backend.OAuthStateConnected {
			return r, s.needsSignIn(ctx, rec, personID)
		}
		var tok backend.OAuthToken
		var c backend.ServiceOAuthClient
		if err := s.h.secrets.openJSON(tokenField, row, r.SealedToken, &tok); err != nil {
			return r, err
		}
		if err := s.h.secrets.openJSON(clientField, row, r.SealedClient, &c); err != nil {
			return r, err
		}
		if refused != "" && tok.AccessToken != refused || refused == "" && !tok.NeedsRefresh(s.h.clock()) {
			out = tok
			return r, nil
		}
		next, err := flow.Refresh(ctx, s.h.oauthService(rec), c, tok)
		if err != nil {
			s.h.log.Warn("service token refresh failed", "service_id", rec.ID, "person_id", personID, "err", oauthLogErr(err))
			r.State, r.LastError, r.SealedToken = backend.OAuthStateNeedsSignIn, "refresh failed", nil
			return r, nil
		}
		out = next
		return r, s.setToken(&r, next)
	})
	if err != nil {
		return backend.OAuthToken{}, err
	}
	if out.AccessToken == "" {
		return backend.OAuthToken{}, s.needsSignIn(ctx, rec, personID)
	}
	return out, nil
}

// setToken seals tok into r and marks it connected.
func (s signIn) setToken(r *backend.OAuthRecord, tok backend.OAuthToken) error {
	_, tokenField, _, row := backend.OAuthFields(r.ServiceID, r.PersonID)
	sealed, err := s.h.secrets.sealJSON(tokenField, row, tok)
	if err != nil {
		return err
	}
	r.SealedToken, r.State, r.LastError, r.ExpiresAt, r.Scopes = sealed, backend.OAuthStateConnected, "", tok.ExpiresAt, tok.Scopes()
	return nil
}

// needsSignIn is the refusal of a call whose sign-in is missing or lapsed: the service's one
// sign-in, or the calling person's own (personID set), which only they can make.
func (s signIn) needsSignIn(ctx context.Context, rec backend.ServiceRecord, personID string) *backend.Error {
	if personID == "" {
		return backend.Errorf(backend.CodeDownstreamAuth, "service %q needs a person to sign in", rec.Name).WithHint(backend.ConnectHint(rec.Name))
	}
	return ownSignInMissing(ctx, rec, "your own sign-in needs renewing")
}

// ownSignInMissing refuses a call to a service that takes each person's own sign-in when the
// caller has none that works: never another person's, never a shared one.
func ownSignInMissing(ctx context.Context, rec backend.ServiceRecord, why string) *backend.Error {
	return backend.Errorf(backend.CodeDownstreamAuth, "service %s takes each person's own sign-in, and %s",
		backend.QuoteClip(rec.Name), why).
		WithDetail("service_id", rec.ID).
		WithHint(backend.InWordsOf(ctx, "sign in with your own account: agent-deck service connect "+rec.Name,
			"ask your person to sign in with their own account: agent-deck service connect "+rec.Name))
}

// asOAuthError keeps a failed flow step's code and safe message and adds the connect hint.
func asOAuthError(err error, name string) error {
	var e *backend.Error
	if errors.As(err, &e) {
		c := *e
		if c.Hint == "" {
			c.Hint = backend.ConnectHint(name)
		}
		return &c
	}
	return backend.Errorf(backend.CodeDownstreamAuth, "could not sign in to %q", name).WithHint(backend.ConnectHint(name))
}

func hashState(state string) string {
	sum := sha256.Sum256([]byte(state))
	return hex.EncodeToString(sum[:])
}

// addOAuthBearer sends the service's OAuth access token (or the person's own, personID set),
// when it has a sign-in and no Authorization header of its own, and counts the token among the
// service's secrets. ok says a token was added.
func (s signIn) addOAuthBearer(ctx context.Context, rec backend.ServiceRecord, personID string, t *backend.Target) (ok bool, err error) {
	if rec.Type != backend.ServiceRemote {
		return false, nil
	}
	tok, err := s.oauthBearer(ctx, rec, personID)
	if err != nil || tok.AccessToken == "" {
		return false, err
	}
	withOAuthBearer(t, tok, personID)
	return true, nil
}

// withOAuthBearer puts tok on t: its access token as the Authorization header (unless t has one
// of its own) and among the secrets the proxy masks.
func withOAuthBearer(t *backend.Target, tok backend.OAuthToken, personID string) {
	if _, set := lookupFold(t.Headers, "Authorization"); !set {
		t.Headers["Authorization"] = "Bearer " + tok.AccessToken
	}
	t.OauthExpires, t.OauthAccess, t.OauthPerson = tok.ExpiresAt, tok.AccessToken, personID
	t.Secrets = append(slices.Clone(t.Secrets), tok.AccessToken)
	slices.Sort(t.Secrets)
}

// oauthLogErr is what a log line says of a failed sign-in step: its classified message (which
// names the OAuth error code), never the cause, whose text comes from the authorization server
// and may hold anything.
func oauthLogErr(err error) string { return backend.AsError(err).Message }

func preRegistered(in OAuthConnectInput) (backend.ServiceOAuthClient, error) {
	c := backend.ServiceOAuthClient{ID: strings.TrimSpace(in.ClientID), Secret: in.ClientSecret, AuthMethod: in.AuthMethod}
	switch {
	case c.Secret == "" && c.AuthMethod == "":
		c.AuthMethod = "none"
	case c.AuthMethod == "":
		c.AuthMethod = "client_secret_basic"
	case c.AuthMethod != "none" && c.AuthMethod != "client_secret_basic" && c.AuthMethod != "client_secret_post":
		return c, backend.Invalid("token_endpoint_auth_method", "none, client_secret_basic or client_secret_post, got %q", c.AuthMethod)
	}
	return c, nil
}

// signIn is the machinery of signing Agent Deck in to services that need OAuth: states,
// tokens, refresh and step-up. The use cases above are the Hub's; signIn keeps the rest off it.
type signIn struct{ h *Hub }

func (s *Hub) signIn() signIn { return signIn{s} }

// personalService reports whether a service takes each person's own secret and sign-in: it says
// so itself, or its credential does.
func (s *Hub) personalService(ctx context.Context, rec backend.ServiceRecord) (bool, error) {
	if rec.Personal || rec.CredentialID == "" {
		return rec.Personal, nil
	}
	c, err := s.store.GetCredential(ctx, rec.CredentialID)
	if backend.IsNotFound(err) {
		return false, nil
	}
	if err != nil {
		return false, backend.StoreErr("reading a credential", err)
	}
	return c.Personal, nil
}

// signInOf resolves the service a sign-in use case (connect, disconnect) is for and whose
// sign-in it touches: the caller's own (owner, their person id) on a service that takes each
// person's own, which any person may do for themselves; else the service's one sign-in (owner
// empty), which is an admin's. No request names another person: no one signs in over, or
// forgets, anyone else's sign-in.
func (s *Hub) signInOf(ctx context.Context, ref, what string) (rec backend.ServiceRecord, owner string, err error) {
	a, err := backend.RequirePerson(ctx, what)
	if err != nil {
		return rec, "", err
	}
	if rec, err = backend.ServiceByRef(ctx, s.store, ref); err != nil {
		return rec, "", err
	}
	personal, err := s.personalService(ctx, rec)
	if err != nil {
		return rec, "", err
	}
	if !personal {
		_, err := backend.RequireAdmin(ctx, what)
		return rec, "", err
	}
	if a.PersonID == "" {
		return rec, "", backend.Errorf(backend.CodeForbidden, "service %s takes each person's own sign-in, and this token acts for no person",
			backend.QuoteClip(rec.Name)).WithHint("use a token of your own: agent-deck token create NAME --scope admin")
	}
	return rec, a.PersonID, nil
}
