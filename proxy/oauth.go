package proxy

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"mime"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/mark3labs/mcp-go/client/transport"
	"github.com/mark3labs/mcp-go/mcp"

	"github.com/agent-deck/agent-deck/backend"
)

// OAuthFlow signs Agent Deck in to remote services as an OAuth client, following the MCP
// authorization specification (2025-11-25): protected resource metadata (RFC 9728), then
// authorization server metadata (RFC 8414 with the OpenID Connect and 2025-03-26 fallbacks),
// dynamic client registration (RFC 7591) when no client is known, the authorization code grant
// with PKCE S256 and the resource parameter (RFC 8707), refresh and revocation (RFC 7009).
// Discovery, registration and the token requests are mcp-go's OAuthHandler; this is the glue
// that keeps no state between steps, so any replica can finish what another started.
//
// Every step reaches hosts under the service's host policy (backend.HostPolicy): the service's
// metadata names the authorization server and its endpoints, so an agent-registered service
// cannot send Agent Deck's requests to an address its URL could not name.
type OAuthFlow struct {
	// HTTP is the client of one step, set by with; nil on the flow NewOAuthFlow returns.
	HTTP       *http.Client
	ClientName string
	net        Network
	guard      *guard // the host policy of one step, set by with
}

var _ backend.OAuthFlow = OAuthFlow{}

// oauthTimeout bounds each request of a sign-in step.
const oauthTimeout = 30 * time.Second

// NewOAuthFlow returns a flow that reaches hosts through n (the zero Network: the system's).
func NewOAuthFlow(n Network) OAuthFlow {
	return OAuthFlow{ClientName: "Agent Deck", net: n.withDefaults(oauthTimeout)}
}

// with returns the flow for one step under the service's host policy; done closes its
// connections.
func (f OAuthFlow) with(hosts backend.HostPolicy) (OAuthFlow, func()) {
	f.guard = f.net.withDefaults(oauthTimeout).guard(hosts)
	tr := f.guard.transport(http.DefaultTransport.(*http.Transport))
	f.HTTP = &http.Client{Timeout: oauthTimeout, Transport: tr}
	return f, tr.CloseIdleConnections
}

// refusedHost returns the host policy's refusal of rawURL's host, nil when the policy lets the
// step reach it (or the name does not resolve: the request itself then fails and says so).
// Discovery falls back to other places when a metadata document cannot be read, so a refused
// one is named here, before the fallback hides why the sign-in failed.
func (f OAuthFlow) refusedHost(ctx context.Context, rawURL string) error {
	u, err := url.Parse(rawURL)
	if err != nil || f.guard == nil {
		return nil
	}
	addrs, err := f.guard.resolve(ctx, u.Hostname())
	if err != nil {
		return nil
	}
	return f.guard.check(u.Hostname(), addrs)
}

// challenge is what a service's 401 or 403 said about itself.
type challenge struct {
	resourceMetadata string
	scope            string
	err              string
}

// Begin discovers the service's authorization server, registers Agent Deck there when no client
// is known, and returns the authorization URL with the PKCE verifier and state kept aside.
func (f OAuthFlow) Begin(ctx context.Context, in backend.OAuthBegin) (backend.OAuthPending, error) {
	f, done := f.with(in.Hosts)
	defer done()
	ch, resp, answered := f.probe(ctx, in.URL)
	if ch.resourceMetadata != "" {
		if err := f.refusedHost(ctx, ch.resourceMetadata); err != nil {
			return backend.OAuthPending{}, oauthErr("read the service's protected resource metadata", err)
		}
	}
	scopes := in.Scopes
	if len(scopes) == 0 && ch.scope != "" {
		scopes = strings.Fields(ch.scope)
	}
	if len(scopes) == 0 {
		scopes = f.supportedScopes(ctx, in.URL, ch.resourceMetadata)
	}
	client := in.Client
	if ch.resourceMetadata == "" && client.AuthServerMetadata == "" {
		client.AuthServerMetadata = f.fallbackMetadata(ctx, in.URL)
		if answered && resp == nil && client.AuthServerMetadata == "" && !f.hasResourceMetadata(ctx, in.URL) {
			return backend.OAuthPending{}, noSignIn()
		}
	}
	h := f.handler(in.URL, in.RedirectURI, client, scopes, resp)
	if client.ID == "" && in.ClientMetadataURL != "" && f.supportsClientMetadata(ctx, h, client) {
		// A Client ID Metadata Document: the URL is the client_id, the server fetches the
		// document from it, and nothing is registered. A public client.
		client.ID, client.Secret, client.AuthMethod = in.ClientMetadataURL, "", "none"
		h = f.handler(in.URL, in.RedirectURI, client, scopes, resp)
	}
	if client.ID == "" {
		if err := h.RegisterClient(ctx, f.ClientName); err != nil {
			return backend.OAuthPending{}, oauthErr("register with the authorization server", err)
		}
		client.ID, client.Secret, client.AuthMethod = h.GetClientID(), h.GetClientSecret(), h.GetTokenEndpointAuthMethod()
	}
	if ch.resourceMetadata != "" && sameOrigin(ch.resourceMetadata, in.URL) {
		client.ResourceMetadata = ch.resourceMetadata
	}
	verifier, err := transport.GenerateCodeVerifier()
	if err != nil {
		return backend.OAuthPending{}, backend.Internal("generating a PKCE verifier", err)
	}
	state, err := transport.GenerateState()
	if err != nil {
		return backend.OAuthPending{}, backend.Internal("generating a state", err)
	}
	authURL, err := h.GetAuthorizationURL(ctx, state, transport.GenerateCodeChallenge(verifier))
	if err != nil {
		return backend.OAuthPending{}, oauthErr("build the authorization URL", err)
	}
	return backend.OAuthPending{ServiceID: in.ServiceID, State: state, Verifier: verifier, RedirectURI: in.RedirectURI,
		Scopes: scopes, Client: client, AuthURL: authURL}, nil
}

// Exchange trades the authorization code for tokens. The caller has checked the state.
func (f OAuthFlow) Exchange(ctx context.Context, svc backend.OAuthService, p backend.OAuthPending, code string) (backend.OAuthToken, error) {
	f, done := f.with(svc.Hosts)
	defer done()
	store := transport.NewMemoryTokenStore()
	h := f.handlerWith(svc.URL, p.RedirectURI, p.Client, p.Scopes, nil, store)
	h.SetExpectedState(p.State)
	if err := h.ProcessAuthorizationResponse(ctx, code, p.State, p.Verifier); err != nil {
		return backend.OAuthToken{}, oauthErr("exchange the authorization code", err)
	}
	return stored(ctx, store)
}

// Refresh gets a new token set with the refresh token. A server that rotates refresh tokens
// sends a new one; one that does not lets the old one stand.
func (f OAuthFlow) Refresh(ctx context.Context, svc backend.OAuthService, c backend.ServiceOAuthClient, t backend.OAuthToken) (backend.OAuthToken, error) {
	if t.RefreshToken == "" {
		return backend.OAuthToken{}, backend.Errorf(backend.CodeDownstreamAuth, "the sign-in has expired and cannot be renewed")
	}
	f, done := f.with(svc.Hosts)
	defer done()
	store := transport.NewMemoryTokenStore()
	h := f.handlerWith(svc.URL, "", c, strings.Fields(t.Scope), nil, store)
	if _, err := h.RefreshToken(ctx, t.RefreshToken); err != nil {
		return backend.OAuthToken{}, oauthErr("refresh the token", err)
	}
	out, err := stored(ctx, store)
	if err == nil && out.Scope == "" {
		out.Scope = t.Scope
	}
	return out, err
}

// Revoke asks the authorization server to forget the tokens (RFC 7009), when it offers
// revocation; a server without it is not an error, the tokens are forgotten locally anyway.
func (f OAuthFlow) Revoke(ctx context.Context, svc backend.OAuthService, c backend.ServiceOAuthClient, t backend.OAuthToken) error {
	f, done := f.with(svc.Hosts)
	defer done()
	h := f.handlerWith(svc.URL, "", c, nil, nil, nil)
	md, err := h.GetServerMetadata(ctx)
	if err != nil || md.RevocationEndpoint == "" {
		return nil
	}
	for _, tok := range []struct{ value, hint string }{{t.RefreshToken, "refresh_token"}, {t.AccessToken, "access_token"}} {
		if tok.value == "" {
			continue
		}
		form := url.Values{"token": {tok.value}, "token_type_hint": {tok.hint}}
		if c.AuthMethod != "client_secret_basic" {
			form.Set("client_id", c.ID)
			if c.Secret != "" {
				form.Set("client_secret", c.Secret)
			}
		}
		req, err := http.NewRequestWithContext(ctx, http.MethodPost, md.RevocationEndpoint, strings.NewReader(form.Encode()))
		if err != nil {
			return backend.Internal("building a revocation request", err)
		}
		req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
		if c.AuthMethod == "client_secret_basic" {
			req.SetBasicAuth(url.QueryEscape(c.ID), url.QueryEscape(c.Secret))
		}
		resp, err := f.HTTP.Do(req)
		if err != nil {
			return oauthErr("revoke the token", err)
		}
		_, _ = io.Copy(io.Discard, io.LimitReader(resp.Body, 1<<16))
		_ = resp.Body.Close()
	}
	return nil
}

func (f OAuthFlow) handler(serviceURL, redirect string, c backend.ServiceOAuthClient, scopes []string, resp *http.Response) *transport.OAuthHandler {
	return f.handlerWith(serviceURL, redirect, c, scopes, resp, nil)
}

// handlerWith builds mcp-go's handler for one step. The resource metadata URL a 401 named is
// taken only when it shares the service's origin (mcp-go checks it); else the well-known
// paths are tried.
func (f OAuthFlow) handlerWith(serviceURL, redirect string, c backend.ServiceOAuthClient, scopes []string, resp *http.Response, store transport.TokenStore) *transport.OAuthHandler {
	h := transport.NewOAuthHandler(transport.OAuthConfig{
		ClientID: c.ID, ClientSecret: c.Secret, TokenEndpointAuthMethod: c.AuthMethod, AuthServerMetadataURL: c.AuthServerMetadata,
		RedirectURI: redirect, Scopes: scopes, PKCEEnabled: true, TokenStore: store, HTTPClient: f.HTTP,
	})
	h.SetBaseURL(baseURL(serviceURL))
	if resp != nil {
		h.HandleUnauthorizedResponse(resp)
	} else if c.ResourceMetadata != "" && sameOrigin(c.ResourceMetadata, serviceURL) {
		h.SetProtectedResourceMetadataURL(c.ResourceMetadata)
	}
	return h
}

// supportsClientMetadata reports whether the service's authorization server says
// client_id_metadata_document_supported. mcp-go's metadata type leaves that field out, so the
// server's metadata is read again: from the URL the fallbacks found, else the issuer's RFC 8414
// and OpenID Connect discovery URLs.
func (f OAuthFlow) supportsClientMetadata(ctx context.Context, h *transport.OAuthHandler, c backend.ServiceOAuthClient) bool {
	var cands []string
	if c.AuthServerMetadata != "" {
		cands = append(cands, c.AuthServerMetadata)
	}
	if md, err := h.GetServerMetadata(ctx); err == nil && md.Issuer != "" {
		cands = append(cands, authServerMetadataURLs(md.Issuer)...)
	}
	for _, u := range cands {
		var md struct {
			Supported bool `json:"client_id_metadata_document_supported"`
		}
		if f.fetchOK(ctx, u, &md) {
			return md.Supported
		}
	}
	return false
}

// sameOrigin reports whether a and b share scheme and host: a resource metadata URL from a
// challenge is used only on the service's own origin.
func sameOrigin(a, b string) bool {
	ua, errA := url.Parse(a)
	ub, errB := url.Parse(b)
	return errA == nil && errB == nil && ua.Host != "" && strings.EqualFold(ua.Scheme, ub.Scheme) && strings.EqualFold(ua.Host, ub.Host)
}

// baseURL is the service URL without query or fragment: the resource Agent Deck addresses.
func baseURL(serviceURL string) string {
	u, err := url.Parse(serviceURL)
	if err != nil {
		return serviceURL
	}
	u.RawQuery, u.Fragment = "", ""
	return u.String()
}

// noSignIn is Connect on a service that answered without a challenge and publishes no OAuth
// metadata: there is nothing to sign in to, and registering somewhere would fail for that reason.
func noSignIn() error {
	return backend.Errorf(backend.CodeInvalidArgument,
		"this service does not ask for sign-in: it answered without asking for one and names no authorization server").
		WithDetail("field", "service").
		WithHint("call its tools as they are; if it needs a key, give the service a credential or a header instead")
}

// hasResourceMetadata reports whether the service publishes OAuth protected resource metadata
// (RFC 9728), at the path-suffixed or the root well-known address.
func (f OAuthFlow) hasResourceMetadata(ctx context.Context, serviceURL string) bool {
	u, err := url.Parse(baseURL(serviceURL))
	if err != nil || u.Host == "" {
		return false
	}
	origin := u.Scheme + "://" + u.Host
	if p := strings.TrimSuffix(u.Path, "/"); p != "" && f.fetchOK(ctx, origin+"/.well-known/oauth-protected-resource"+p, nil) {
		return true
	}
	return f.fetchOK(ctx, origin+"/.well-known/oauth-protected-resource", nil)
}

// probe sends an unauthenticated initialize, as the first request of a session would be, and
// returns what the service's challenge says (and the response, for mcp-go); answered says the
// service sent an HTTP answer at all.
func (f OAuthFlow) probe(ctx context.Context, serviceURL string) (challenge, *http.Response, bool) {
	body, _ := json.Marshal(mcp.JSONRPCRequest{JSONRPC: mcp.JSONRPC_VERSION, ID: mcp.NewRequestId(1),
		Request: mcp.Request{Method: string(mcp.MethodInitialize)},
		Params: mcp.InitializeParams{ProtocolVersion: mcp.LATEST_PROTOCOL_VERSION,
			ClientInfo: mcp.Implementation{Name: f.ClientName, Version: "probe"}}})
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, serviceURL, bytes.NewReader(body))
	if err != nil {
		return challenge{}, nil, false
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	resp, err := f.HTTP.Do(req)
	if err != nil {
		return challenge{}, nil, false
	}
	_, _ = io.Copy(io.Discard, io.LimitReader(resp.Body, 1<<16))
	_ = resp.Body.Close()
	if resp.StatusCode != http.StatusUnauthorized && resp.StatusCode != http.StatusForbidden {
		return challenge{}, nil, resp.StatusCode < 300
	}
	return parseChallenge(resp.Header.Values("WWW-Authenticate")), resp, true
}

// supportedScopes reads scopes_supported from the protected resource metadata, the spec's
// second choice when the challenge names no scope.
func (f OAuthFlow) supportedScopes(ctx context.Context, serviceURL, metadataURL string) []string {
	if metadataURL == "" {
		u, err := url.Parse(baseURL(serviceURL))
		if err != nil {
			return nil
		}
		u.Path = "/.well-known/oauth-protected-resource" + strings.TrimSuffix(u.Path, "/")
		metadataURL = u.String()
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, metadataURL, nil)
	if err != nil {
		return nil
	}
	req.Header.Set("Accept", "application/json")
	resp, err := f.HTTP.Do(req)
	if err != nil {
		return nil
	}
	defer func() { _ = resp.Body.Close() }()
	if resp.StatusCode != http.StatusOK || !isJSON(resp.Header.Get("Content-Type")) {
		return nil
	}
	var prm struct {
		ScopesSupported []string `json:"scopes_supported"`
	}
	if json.NewDecoder(io.LimitReader(resp.Body, 1<<20)).Decode(&prm) != nil {
		return nil
	}
	return prm.ScopesSupported
}

// parseChallenge reads the Bearer challenge's resource_metadata, scope and error parameters.
func parseChallenge(headers []string) challenge {
	var c challenge
	for _, h := range headers {
		for k, v := range authParams(h) {
			switch k {
			case "resource_metadata":
				if c.resourceMetadata == "" {
					c.resourceMetadata = v
				}
			case "scope":
				if c.scope == "" {
					c.scope = v
				}
			case "error":
				if c.err == "" {
					c.err = v
				}
			}
		}
	}
	return c
}

// authParams parses the auth-params of a WWW-Authenticate value (RFC 9110 §11.2): name=token or
// name="quoted string", names case-insensitive.
func authParams(h string) map[string]string {
	out := map[string]string{}
	i := 0
	for i < len(h) {
		for i < len(h) && (h[i] == ' ' || h[i] == ',' || h[i] == '\t') {
			i++
		}
		start := i
		for i < len(h) && h[i] != '=' && h[i] != ' ' && h[i] != ',' {
			i++
		}
		name := strings.ToLower(h[start:i])
		for i < len(h) && h[i] == ' ' {
			i++
		}
		if i >= len(h) || h[i] != '=' {
			continue
		}
		i++
		for i < len(h) && h[i] == ' ' {
			i++
		}
		var val strings.Builder
		if i < len(h) && h[i] == '"' {
			i++
			for i < len(h) && h[i] != '"' {
				if h[i] == '\\' && i+1 < len(h) {
					i++
				}
				val.WriteByte(h[i])
				i++
			}
			i++
		} else {
			for i < len(h) && h[i] != ',' && h[i] != ' ' {
				val.WriteByte(h[i])
				i++
			}
		}
		if _, seen := out[name]; !seen {
			out[name] = val.String()
		}
	}
	return out
}

func stored(ctx context.Context, store transport.TokenStore) (backend.OAuthToken, error) {
	t, err := store.GetToken(ctx)
	if err != nil {
		return backend.OAuthToken{}, backend.Internal("reading the new token", err)
	}
	if t.AccessToken == "" {
		return backend.OAuthToken{}, backend.Errorf(backend.CodeDownstreamAuth, "the authorization server sent no access token")
	}
	return backend.OAuthToken{AccessToken: t.AccessToken, TokenType: t.TokenType, RefreshToken: t.RefreshToken,
		Scope: t.Scope, ExpiresAt: t.ExpiresAt}, nil
}

// oauthErr is a failed step as DOWNSTREAM_AUTH: the OAuth error code the server named (never
// its description, which could echo anything), the cause kept for the log.
func oauthErr(step string, err error) error {
	if refused, ok := refusedDial(err); ok { // the service's host policy refused a host its metadata named
		refused.Message = "could not " + step + ": " + refused.Message
		return refused
	}
	var oe transport.OAuthError
	what := ""
	if errors.As(err, &oe) && oe.ErrorCode != "" {
		what = " (" + oauthErrorCode(oe.ErrorCode) + ")"
	}
	return &backend.Error{Code: backend.CodeDownstreamAuth, Message: fmt.Sprintf("could not %s%s", step, what), Err: err}
}

// oauthErrorCode keeps an OAuth error code to its RFC 6749 character set and a short length.
func oauthErrorCode(s string) string {
	if len(s) > 40 {
		s = s[:40]
	}
	return strings.Map(func(r rune) rune {
		if r >= 'a' && r <= 'z' || r == '_' {
			return r
		}
		return -1
	}, s)
}

// oauthChallenged reports whether a refusal came with an OAuth challenge naming the service's
// protected resource metadata: the service wants a sign-in, not a static key.
func oauthChallenged(err error) bool {
	var are *transport.AuthorizationRequiredError
	return errors.As(err, &are) && are.ResourceMetadataURL != ""
}

// fallbackMetadata finds the authorization server metadata of a service whose challenge named
// no resource metadata and that serves none at the path-suffixed well-known URL (which mcp-go
// tries itself): protected resource metadata at the root well-known URL naming an
// authorization server, else (the 2025-03-26 discovery) authorization server metadata at the
// service's origin. "" leaves discovery to mcp-go.
func (f OAuthFlow) fallbackMetadata(ctx context.Context, serviceURL string) string {
	u, err := url.Parse(baseURL(serviceURL))
	if err != nil || u.Host == "" {
		return ""
	}
	origin := u.Scheme + "://" + u.Host
	if p := strings.TrimSuffix(u.Path, "/"); p != "" && f.fetchOK(ctx, origin+"/.well-known/oauth-protected-resource"+p, nil) {
		return ""
	}
	var prm struct {
		Resource             string   `json:"resource"`
		AuthorizationServers []string `json:"authorization_servers"`
	}
	if f.fetchOK(ctx, origin+"/.well-known/oauth-protected-resource", &prm) && len(prm.AuthorizationServers) > 0 {
		for _, cand := range authServerMetadataURLs(prm.AuthorizationServers[0]) {
			if f.fetchOK(ctx, cand, nil) {
				return cand
			}
		}
		return ""
	}
	for _, cand := range []string{origin + "/.well-known/oauth-authorization-server", origin + "/.well-known/openid-configuration"} {
		if f.fetchOK(ctx, cand, nil) {
			return cand
		}
	}
	return ""
}

// authServerMetadataURLs are the RFC 8414 and OpenID Connect discovery URLs of an issuer, in
// the order the MCP specification gives.
func authServerMetadataURLs(issuer string) []string {
	u, err := url.Parse(issuer)
	if err != nil || u.Host == "" {
		return nil
	}
	origin, p := u.Scheme+"://"+u.Host, strings.Trim(u.Path, "/")
	if p == "" {
		return []string{origin + "/.well-known/oauth-authorization-server", origin + "/.well-known/openid-configuration"}
	}
	return []string{origin + "/.well-known/oauth-authorization-server/" + p, origin + "/.well-known/openid-configuration/" + p,
		origin + "/" + p + "/.well-known/openid-configuration"}
}

// isJSON accepts application/json and its +json kinds.
func isJSON(contentType string) bool {
	mt, _, err := mime.ParseMediaType(contentType)
	return err == nil && (mt == "application/json" || strings.HasSuffix(mt, "+json"))
}

// fetchOK GETs a metadata URL and reports whether it answered 200 with JSON (decoded into v).
func (f OAuthFlow) fetchOK(ctx context.Context, u string, v any) bool {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u, nil)
	if err != nil {
		return false
	}
	req.Header.Set("Accept", "application/json")
	resp, err := f.HTTP.Do(req)
	if err != nil {
		return false
	}
	defer func() { _ = resp.Body.Close() }()
	// Metadata is JSON; anything else is not read at all: an MCP server that answers every GET
	// with an event stream would otherwise hold the sign-in until the client's timeout.
	if resp.StatusCode != http.StatusOK || !isJSON(resp.Header.Get("Content-Type")) {
		return false
	}
	var sink map[string]any
	if v == nil {
		v = &sink
	}
	return json.NewDecoder(io.LimitReader(resp.Body, 1<<20)).Decode(v) == nil
}
