package dashboardapi

import (
	"encoding/json"
	"errors"
	"io"
	"log/slog"
	"net/http"
	"net/url"
	"strconv"

	"github.com/gin-gonic/gin"

	"github.com/agent-deck/agent-deck/backend"
	"github.com/agent-deck/agent-deck/backend/authserver"
)

var (
	oauthRegisterDoc = map[string]any{"type": "object", "description": "RFC 7591 client metadata: redirect_uris (loopback), client_name, grant_types, response_types, token_endpoint_auth_method none."}
	oauthClientDoc   = map[string]any{"type": "object", "description": `RFC 7591 registration response: client_id, client_name, redirect_uris, ...; errors are {"error","error_description"}.`}
	oauthTokenDoc    = map[string]any{"type": "object", "description": `RFC 6749 §5.1 token response (access_token, token_type Bearer, expires_in, refresh_token, scope); errors are {"error","error_description"} (§5.2). The request is application/x-www-form-urlencoded.`}
	oauthAuthorizeQ  = []queryParam{
		{name: "response_type", description: "code"},
		{name: "client_id", description: "a registered client id, or the https URL of the client's metadata document"},
		{name: "redirect_uri", description: "one of the client's redirect URIs (loopback)"},
		{name: "scope", description: "agent (default) or agent:read"},
		{name: "state", description: "the client's state, returned with the answer; required"},
		{name: "code_challenge", description: "PKCE S256 challenge"},
		{name: "code_challenge_method", description: "S256"},
		{name: "resource", description: "this server's /mcp URL (RFC 8707)"},
	}
)

// authServerRoutes are the OAuth authorization server's routes (issue 12 §2): discovery
// metadata, client registration, the authorization and token endpoints, and the consent
// screen's API. The OAuth endpoints answer in the RFCs' own shapes ({"error": ...}), not the
// API's coded errors, because OAuth clients read those.
func (a *api) authServerRoutes() []route {
	return []route{
		noBody(http.MethodGet, backend.ProtectedResourceMD, "OAuth protected resource metadata of /mcp (RFC 9728)", a.resourceMetadata).withPublic(),
		noBody(http.MethodGet, backend.ProtectedResourceMD+backend.OAuthResourcePath, "OAuth protected resource metadata of /mcp, path-suffixed form (RFC 9728)", a.mcpResourceMetadata).withPublic(),
		noBody(http.MethodGet, backend.AuthServerMD, "OAuth authorization server metadata (RFC 8414)", a.authServerMetadata).withPublic(),
		{method: http.MethodPost, path: backend.OAuthRegisterPath, summary: "OAuth Dynamic Client Registration (RFC 7591); public clients with loopback redirect URIs",
			op: "oauthRegister", public: true, status: http.StatusCreated, requestDoc: oauthRegisterDoc, responseDoc: oauthClientDoc, serve: a.oauthRegister},
		{method: http.MethodGet, path: backend.OAuthAuthorizePath, summary: "OAuth authorization endpoint: checks the request and redirects to the dashboard's consent screen",
			op: "oauthAuthorize", public: true, status: http.StatusFound, query: oauthAuthorizeQ, serve: a.oauthAuthorize},
		{method: http.MethodPost, path: backend.OAuthTokenPath, summary: "OAuth token endpoint: authorization_code (with PKCE) or refresh_token",
			op: "oauthToken", public: true, status: http.StatusOK, responseDoc: oauthTokenDoc, serve: a.oauthToken},
		noBody(http.MethodGet, v1+"/oauth/consent", "What the consent screen shows about an authorization request; admin", a.oauthConsentInfo).
			withQuery(oauthAuthorizeQ...).adminOnly(),
		withBody(http.MethodPost, v1+"/oauth/consent", "Allow or deny an authorization request; answers where the browser goes next; admin", http.StatusOK, a.oauthConsent).adminOnly(),
	}
}

func (a *api) resourceMetadata(c *gin.Context) (authserver.ProtectedResourceMetadata, error) {
	return authserver.ResourceMetadata(requestBase(c.Request)), nil
}

func (a *api) mcpResourceMetadata(c *gin.Context) (authserver.ProtectedResourceMetadata, error) {
	return a.resourceMetadata(c)
}

func (a *api) authServerMetadata(c *gin.Context) (authserver.Metadata, error) {
	return authserver.AuthorizationServerMetadata(requestBase(c.Request)), nil
}

// oauthRegister is Dynamic Client Registration.
func (a *api) oauthRegister(c *gin.Context) {
	body, err := io.ReadAll(http.MaxBytesReader(c.Writer, c.Request.Body, 64<<10))
	var in authserver.ClientInput
	if err == nil {
		err = json.Unmarshal(body, &in)
	}
	if err != nil {
		a.oauthError(c, &authserver.Error{Code: "invalid_client_metadata", Status: http.StatusBadRequest,
			Description: "the body must be a JSON object of client metadata (at most 64 KiB)"})
		return
	}
	out, err := a.opts.AuthServer.RegisterClient(ctx(c), in)
	if err != nil {
		a.oauthError(c, err)
		return
	}
	c.Header("Cache-Control", "no-store")
	c.Data(http.StatusCreated, jsonContentType, mustJSON(out))
}

// oauthAuthorize checks the request and sends the browser to the consent screen. A request
// whose client or redirect_uri cannot be trusted is answered here and never redirected (no
// open redirect); any other error goes back to the client's redirect_uri.
func (a *api) oauthAuthorize(c *gin.Context) {
	req := authorizeRequest(c.Request.URL.Query())
	base := requestBase(c.Request)
	info, err := a.opts.AuthServer.CheckAuthorization(ctx(c), base, req)
	if err != nil {
		oe := authserver.AsError(err)
		if oe.Redirect {
			c.Redirect(http.StatusFound, authserver.AuthorizationErrorURL(base, info.RedirectURI, req.State, oe))
			return
		}
		a.logOAuth(c, err, oe)
		c.Header("Cache-Control", "no-store")
		c.Data(oe.Status, "text/plain; charset=utf-8",
			[]byte("Agent Deck cannot sign this client in.\n\n"+oe.Code+": "+oe.Description+"\n"))
		return
	}
	c.Header("Cache-Control", "no-store")
	c.Redirect(http.StatusFound, "/#/consent?"+c.Request.URL.RawQuery)
}

func authorizeRequest(q url.Values) authserver.AuthorizeRequest {
	return authserver.AuthorizeRequest{
		ResponseType: q.Get("response_type"), ClientID: q.Get("client_id"), RedirectURI: q.Get("redirect_uri"),
		Scope: q.Get("scope"), State: q.Get("state"), CodeChallenge: q.Get("code_challenge"),
		CodeChallengeMethod: q.Get("code_challenge_method"), Resource: q.Get("resource"),
	}
}

// oauthToken is the token endpoint (form-encoded, RFC 6749 §3.2).
func (a *api) oauthToken(c *gin.Context) {
	c.Header("Cache-Control", "no-store")
	c.Header("Pragma", "no-cache")
	c.Request.Body = http.MaxBytesReader(c.Writer, c.Request.Body, 64<<10)
	if err := c.Request.ParseForm(); err != nil {
		a.oauthError(c, &authserver.Error{Code: "invalid_request", Status: http.StatusBadRequest,
			Description: "the body must be application/x-www-form-urlencoded (at most 64 KiB)"})
		return
	}
	f := c.Request.PostForm
	req := authserver.TokenRequest{
		GrantType: f.Get("grant_type"), Code: f.Get("code"), RedirectURI: f.Get("redirect_uri"),
		ClientID: f.Get("client_id"), CodeVerifier: f.Get("code_verifier"), RefreshToken: f.Get("refresh_token"),
		Resource: f.Get("resource"), Scope: f.Get("scope"),
	}
	if user, _, ok := c.Request.BasicAuth(); ok && req.ClientID == "" {
		req.ClientID, _ = url.QueryUnescape(user)
	}
	out, err := a.opts.AuthServer.ExchangeToken(ctx(c), requestBase(c.Request), req)
	if err != nil {
		a.oauthError(c, err)
		return
	}
	c.Data(http.StatusOK, jsonContentType, mustJSON(out))
}

// oauthError answers in the RFC 6749 §5.2 shape; a failure that is not an OAuth refusal is
// logged with the request id and shown without its cause.
func (a *api) oauthError(c *gin.Context, err error) {
	oe := authserver.AsError(err)
	a.logOAuth(c, err, oe)
	if oe.Status == http.StatusUnauthorized {
		c.Header("WWW-Authenticate", `Basic realm="agent-deck"`)
	}
	if oe.RetryAfter > 0 {
		c.Header("Retry-After", strconv.Itoa(oe.RetryAfter))
	}
	c.Data(oe.Status, jsonContentType, mustJSON(map[string]string{"error": oe.Code, "error_description": oe.Description}))
}

func (a *api) logOAuth(c *gin.Context, err error, oe *authserver.Error) {
	if _, ok := errors.AsType[*authserver.Error](err); ok {
		return
	}
	a.log.Log(c.Request.Context(), slog.LevelError, "oauth request failed", "request_id", requestID(c),
		"route", c.FullPath(), "code", oe.Code, "cause", err.Error())
}

// oauthConsentInfo tells the consent screen what it asks the person.
func (a *api) oauthConsentInfo(c *gin.Context) (authserver.ConsentInfo, error) {
	info, err := a.opts.AuthServer.CheckAuthorization(ctx(c), requestBase(c.Request), authorizeRequest(c.Request.URL.Query()))
	if err != nil {
		return authserver.ConsentInfo{}, consentError(err)
	}
	return info, nil
}

// oauthConsent records the person's Allow or Deny (the dashboard session's CSRF check applies).
func (a *api) oauthConsent(c *gin.Context, in authserver.ConsentInput) (authserver.ConsentDecision, error) {
	out, err := a.opts.AuthServer.DecideAuthorization(ctx(c), requestBase(c.Request), in)
	return out, consentError(err)
}

// consentError turns an OAuth refusal into the API's coded error for the consent screen.
func consentError(err error) error {
	if oe, ok := errors.AsType[*authserver.Error](err); ok {
		return backend.Errorf(backend.CodeInvalidArgument, "the sign-in request is not valid: %s", oe.Description).
			WithDetail("oauth_error", oe.Code).WithHint("start the sign-in again from the client")
	}
	return err
}

// requestBase is the scheme and host the request was sent to.
func requestBase(r *http.Request) string {
	scheme := "http://"
	if r.TLS != nil {
		scheme = "https://"
	}
	return scheme + r.Host
}

// oauthFieldDocs describe the consent request's fields in the OpenAPI document.
var oauthFieldDocs = map[string]string{
	"approve":               "true allows the client (a code goes to its redirect_uri); false answers access_denied",
	"response_type":         "code",
	"client_id":             "The OAuth client: a registered id, or the https URL of its metadata document",
	"redirect_uri":          "Where the answer goes: one of the client's registered (loopback) redirect URIs",
	"state":                 "The client's state, returned with the answer",
	"code_challenge":        "PKCE S256 challenge: base64url(SHA-256(code_verifier))",
	"code_challenge_method": "S256 (plain is refused)",
	"resource":              "This server's /mcp URL (RFC 8707); tokens are bound to it",
}

func init() {
	for k, v := range oauthFieldDocs {
		if _, taken := fieldDocs[k]; !taken {
			fieldDocs[k] = v
		}
	}
}
