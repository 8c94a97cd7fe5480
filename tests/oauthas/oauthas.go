// Package oauthas is a small OAuth 2.1 authorization server in front of an MCP endpoint, for
// tests of Agent Deck as an OAuth client: protected resource metadata (RFC 9728), authorization
// server metadata (RFC 8414), dynamic client registration (RFC 7591), the authorization code
// grant with PKCE S256 and the resource parameter (RFC 8707), refresh with rotation, and
// revocation (RFC 7009). Its authorize endpoint approves at once, as a person clicking Allow
// would, as the downstream user the authorization URL names (AsUser; "person" when none). It
// checks everything a strict server checks, counts what it saw, and records the user of every
// token that reached the MCP endpoint.
package oauthas

import (
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync"
	"time"
)

// Options shape the server.
type Options struct {
	// Scope is the scope the 401 challenge names; empty leaves it out.
	Scope string
	// TokenTTL is the access token lifetime (default an hour).
	TokenTTL time.Duration
	// ConfidentialClients makes registration issue a secret sent with client_secret_basic.
	ConfidentialClients bool
	// RefreshDelay holds each refresh request this long before answering, so that concurrent
	// refreshes overlap.
	RefreshDelay time.Duration
	// ClientIDMetadataDocuments advertises client_id_metadata_document_supported and accepts
	// an https client_id as a public client whose document lists the redirect URIs given in
	// ClientMetadataRedirects (the document is not fetched: tests serve none over https).
	ClientIDMetadataDocuments bool
	ClientMetadataRedirects   []string
}

// UserHeader is the request header the MCP endpoint's handler reads the downstream user of the
// request's token from; the server sets it on each request it lets through, over any a client sent.
const UserHeader = "X-Oauthas-User"

// Server is the running authorization server and protected MCP endpoint (at /mcp).
type Server struct {
	*httptest.Server
	opts Options
	mcp  http.Handler

	mu       sync.Mutex
	clients  map[string]client
	codes    map[string]grant
	access   map[string]time.Time // access token → expiry
	users    map[string]string    // access token → the user it acts for
	refresh  map[string]refresh   // live refresh token → its grant
	spent    map[string]bool      // refresh tokens already used
	seen     []string             // the user of each request the MCP endpoint served
	answered []string             // the user each answer of the service's own handlers was given as
	counts   Counts
	lastAuth url.Values
	issued   []string
}

// Counts are what the server saw.
type Counts struct {
	Registrations, Authorizations, CodeExchanges, Refreshes, RefreshReuse, Revocations, Unauthorized int
}

type client struct {
	secret, method string
	redirects      []string
}

type grant struct {
	client, redirect, challenge, resource, scope, user string
}

type refresh struct{ scope, user string }

// New starts the server in front of mcp.
func New(mcp http.Handler, opts Options) *Server {
	if opts.TokenTTL == 0 {
		opts.TokenTTL = time.Hour
	}
	s := &Server{opts: opts, mcp: mcp, clients: map[string]client{}, codes: map[string]grant{},
		access: map[string]time.Time{}, users: map[string]string{}, refresh: map[string]refresh{}, spent: map[string]bool{}}
	mux := http.NewServeMux()
	mux.HandleFunc("/mcp", s.protected)
	mux.HandleFunc("GET /.well-known/oauth-protected-resource/mcp", s.resourceMetadata)
	mux.HandleFunc("GET /.well-known/oauth-authorization-server", s.serverMetadata)
	mux.HandleFunc("POST /register", s.register)
	mux.HandleFunc("GET /authorize", s.authorize)
	mux.HandleFunc("POST /token", s.token)
	mux.HandleFunc("POST /revoke", s.revoke)
	s.Server = httptest.NewServer(mux)
	return s
}

// MCPURL is the protected MCP endpoint.
func (s *Server) MCPURL() string { return s.URL + "/mcp" }

// Counts returns what the server saw so far.
func (s *Server) Counts() Counts {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.counts
}

// LastAuthorize is the query of the last authorization request.
func (s *Server) LastAuthorize() url.Values {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.lastAuth
}

// Issued lists every access and refresh token issued so far, for scans that no secret leaked.
func (s *Server) Issued() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]string(nil), s.issued...)
}

// SetTokenTTL changes the lifetime of the tokens issued from now on.
func (s *Server) SetTokenTTL(d time.Duration) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.opts.TokenTTL = d
}

// SetClientMetadataRedirects changes the redirect URIs a Client ID Metadata Document lists.
func (s *Server) SetClientMetadataRedirects(uris []string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.opts.ClientMetadataRedirects = uris
}

// TakeUsers returns the user of each request the MCP endpoint served since the last take: whose
// token each request carried.
func (s *Server) TakeUsers() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := s.seen
	s.seen = nil
	return out
}

// Answered notes that one of the protected service's handlers answered as user. Unlike
// TakeUsers, which counts every request the endpoint served (a client's background requests
// too: its event stream, list refreshes), it names only the requests a handler answered.
func (s *Server) Answered(user string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.answered = append(s.answered, user)
}

// TakeAnswered returns the users noted by Answered since the last take.
func (s *Server) TakeAnswered() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := s.answered
	s.answered = nil
	return out
}

// AsUser is an authorization URL whose consent is given as user: the account a person picks on
// the authorization server's page.
func AsUser(authURL, user string) string {
	u, err := url.Parse(authURL)
	if err != nil {
		return authURL
	}
	q := u.Query()
	q.Set("user", user)
	u.RawQuery = q.Encode()
	return u.String()
}

// ExpireAccessTokens makes every access token issued so far invalid, as if time had passed.
func (s *Server) ExpireAccessTokens() {
	s.mu.Lock()
	defer s.mu.Unlock()
	clear(s.access)
}

func (s *Server) protected(w http.ResponseWriter, r *http.Request) {
	tok, ok := strings.CutPrefix(r.Header.Get("Authorization"), "Bearer ")
	s.mu.Lock()
	exp, known := s.access[tok]
	valid := ok && known && time.Now().Before(exp)
	user := s.users[tok]
	if !valid {
		s.counts.Unauthorized++
	} else {
		s.seen = append(s.seen, user)
	}
	s.mu.Unlock()
	if !valid {
		ch := fmt.Sprintf(`Bearer resource_metadata="%s/.well-known/oauth-protected-resource/mcp"`, s.URL)
		if s.opts.Scope != "" {
			ch += fmt.Sprintf(`, scope="%s"`, s.opts.Scope)
		}
		w.Header().Set("WWW-Authenticate", ch)
		http.Error(w, "unauthorized", http.StatusUnauthorized)
		return
	}
	r.Header.Set(UserHeader, user)
	s.mcp.ServeHTTP(w, r)
}

func (s *Server) resourceMetadata(w http.ResponseWriter, _ *http.Request) {
	writeJSON(w, http.StatusOK, map[string]any{"resource": s.MCPURL(), "authorization_servers": []string{s.URL},
		"scopes_supported": []string{"mcp:read", "mcp:write"}})
}

func (s *Server) serverMetadata(w http.ResponseWriter, _ *http.Request) {
	writeJSON(w, http.StatusOK, map[string]any{
		"issuer": s.URL, "authorization_endpoint": s.URL + "/authorize", "token_endpoint": s.URL + "/token",
		"registration_endpoint": s.URL + "/register", "revocation_endpoint": s.URL + "/revoke",
		"response_types_supported": []string{"code"}, "code_challenge_methods_supported": []string{"S256"},
		"grant_types_supported":                 []string{"authorization_code", "refresh_token"},
		"token_endpoint_auth_methods_supported": []string{"none", "client_secret_basic"},
		"client_id_metadata_document_supported": s.opts.ClientIDMetadataDocuments,
	})
}

// client finds a registered client, or the public client a Client ID Metadata Document URL
// names; the caller holds mu.
func (s *Server) client(id string) (client, bool) {
	if c, ok := s.clients[id]; ok {
		return c, true
	}
	if s.opts.ClientIDMetadataDocuments && strings.HasPrefix(id, "https://") {
		return client{method: "none", redirects: s.opts.ClientMetadataRedirects}, true
	}
	return client{}, false
}

func (s *Server) register(w http.ResponseWriter, r *http.Request) {
	var req struct {
		RedirectURIs []string `json:"redirect_uris"`
	}
	if json.NewDecoder(r.Body).Decode(&req) != nil || len(req.RedirectURIs) == 0 {
		oauthError(w, http.StatusBadRequest, "invalid_client_metadata")
		return
	}
	c := client{method: "none", redirects: req.RedirectURIs}
	resp := map[string]any{"client_id": random(), "redirect_uris": req.RedirectURIs}
	if s.opts.ConfidentialClients {
		c.secret, c.method = random(), "client_secret_basic"
		resp["client_secret"] = c.secret
	}
	resp["token_endpoint_auth_method"] = c.method
	s.mu.Lock()
	s.clients[resp["client_id"].(string)] = c
	s.counts.Registrations++
	s.mu.Unlock()
	writeJSON(w, http.StatusCreated, resp)
}

func (s *Server) authorize(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	s.mu.Lock()
	defer s.mu.Unlock()
	s.lastAuth = q
	c, ok := s.client(q.Get("client_id"))
	if !ok || !contains(c.redirects, q.Get("redirect_uri")) {
		http.Error(w, "unknown client or redirect_uri", http.StatusBadRequest)
		return
	}
	if q.Get("response_type") != "code" || q.Get("code_challenge_method") != "S256" || q.Get("code_challenge") == "" ||
		q.Get("state") == "" || q.Get("resource") != s.MCPURL() {
		http.Error(w, "invalid_request", http.StatusBadRequest)
		return
	}
	code, user := random(), q.Get("user")
	if user == "" {
		user = "person"
	}
	s.codes[code] = grant{client: q.Get("client_id"), redirect: q.Get("redirect_uri"), challenge: q.Get("code_challenge"),
		resource: q.Get("resource"), scope: q.Get("scope"), user: user}
	s.counts.Authorizations++
	back, _ := url.Parse(q.Get("redirect_uri"))
	bq := back.Query()
	bq.Set("code", code)
	bq.Set("state", q.Get("state"))
	back.RawQuery = bq.Encode()
	http.Redirect(w, r, back.String(), http.StatusFound)
}

func (s *Server) token(w http.ResponseWriter, r *http.Request) {
	if r.ParseForm() != nil {
		oauthError(w, http.StatusBadRequest, "invalid_request")
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	id, ok := s.authenticate(r)
	if !ok {
		oauthError(w, http.StatusUnauthorized, "invalid_client")
		return
	}
	switch r.PostForm.Get("grant_type") {
	case "authorization_code":
		g, ok := s.codes[r.PostForm.Get("code")]
		delete(s.codes, r.PostForm.Get("code"))
		sum := sha256.Sum256([]byte(r.PostForm.Get("code_verifier")))
		if !ok || g.client != id || g.redirect != r.PostForm.Get("redirect_uri") || g.resource != r.PostForm.Get("resource") ||
			base64.RawURLEncoding.EncodeToString(sum[:]) != g.challenge {
			oauthError(w, http.StatusBadRequest, "invalid_grant")
			return
		}
		s.counts.CodeExchanges++
		s.issue(w, refresh{scope: g.scope, user: g.user})
	case "refresh_token":
		s.mu.Unlock()
		time.Sleep(s.opts.RefreshDelay)
		s.mu.Lock()
		rt := r.PostForm.Get("refresh_token")
		g, live := s.refresh[rt]
		if !live {
			if s.spent[rt] {
				s.counts.RefreshReuse++
			}
			oauthError(w, http.StatusBadRequest, "invalid_grant")
			return
		}
		delete(s.refresh, rt)
		s.spent[rt] = true
		s.counts.Refreshes++
		s.issue(w, g)
	default:
		oauthError(w, http.StatusBadRequest, "unsupported_grant_type")
	}
}

// authenticate checks the client's authentication as registered; the caller holds mu.
func (s *Server) authenticate(r *http.Request) (string, bool) {
	if user, pass, ok := r.BasicAuth(); ok {
		id, _ := url.QueryUnescape(user)
		secret, _ := url.QueryUnescape(pass)
		c, known := s.clients[id]
		return id, known && c.method == "client_secret_basic" && c.secret == secret
	}
	id := r.PostForm.Get("client_id")
	c, known := s.client(id)
	return id, known && c.method == "none"
}

// issue writes a new token set of a grant; the caller holds mu.
func (s *Server) issue(w http.ResponseWriter, g refresh) {
	at, rt := random(), random()
	s.access[at] = time.Now().Add(s.opts.TokenTTL)
	s.users[at] = g.user
	s.refresh[rt] = g
	s.issued = append(s.issued, at, rt)
	writeJSON(w, http.StatusOK, map[string]any{"access_token": at, "token_type": "Bearer", "refresh_token": rt,
		"expires_in": int(s.opts.TokenTTL.Seconds()), "scope": g.scope})
}

func (s *Server) revoke(w http.ResponseWriter, r *http.Request) {
	_ = r.ParseForm()
	s.mu.Lock()
	defer s.mu.Unlock()
	tok := r.PostForm.Get("token")
	delete(s.access, tok)
	delete(s.refresh, tok)
	s.counts.Revocations++
	w.WriteHeader(http.StatusOK)
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Cache-Control", "no-store")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(v)
}

func oauthError(w http.ResponseWriter, status int, code string) {
	writeJSON(w, status, map[string]string{"error": code})
}

func random() string {
	b := make([]byte, 18)
	_, _ = rand.Read(b)
	return base64.RawURLEncoding.EncodeToString(b)
}

func contains(list []string, s string) bool {
	for _, v := range list {
		if v == s {
			return true
		}
	}
	return false
}

// Consent opens an authorization URL as a person's browser would (this server approves at
// once) and returns the code and state of the redirect back, without following it.
func Consent(authURL string) (code, state string, err error) {
	c := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	resp, err := c.Get(authURL)
	if err != nil {
		return "", "", fmt.Errorf("authorize: %w", err)
	}
	_ = resp.Body.Close()
	loc, err := url.Parse(resp.Header.Get("Location"))
	if err != nil || resp.StatusCode != http.StatusFound {
		return "", "", fmt.Errorf("authorize answered %d %q, want a redirect", resp.StatusCode, resp.Header.Get("Location"))
	}
	return loc.Query().Get("code"), loc.Query().Get("state"), nil
}
