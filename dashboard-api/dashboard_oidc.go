package dashboardapi

import (
	"context"
	"crypto/rand"
	"crypto/subtle"
	"errors"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"time"

	"github.com/coreos/go-oidc/v3/oidc"
	"github.com/gin-gonic/gin"
	"golang.org/x/oauth2"

	"github.com/agent-deck/agent-deck/backend"
	"github.com/agent-deck/agent-deck/backend/core"
)

// OIDCOptions turn on dashboard sign-in through an OpenID Connect provider (serve --oidc-issuer):
// a person signs in at the provider, and the verified subject or e-mail maps to a person of the
// hub (core.StartOIDCSession).
type OIDCOptions struct {
	Issuer       string
	ClientID     string
	ClientSecret string
	// RedirectURL is registered at the provider; empty is this server's own
	// /api/v1/dashboard/oidc/callback as the request reached it.
	RedirectURL string
}

// Paths of the OpenID Connect sign-in.
const (
	oidcStartPath    = v1 + "/dashboard/oidc/start"
	oidcCallbackPath = v1 + "/dashboard/oidc/callback"
	// oidcCookie carries the sign-in's state, nonce and PKCE verifier from start to callback.
	// SameSite=Lax: the provider sends the browser back with a top-level cross-site GET.
	oidcCookie = "agent_deck_oidc"
	oidcTTL    = 10 * time.Minute
)

// oidcSignIn discovers the provider on first use and keeps it.
type oidcSignIn struct {
	opts   OIDCOptions
	client *http.Client
	mu     sync.Mutex
	prov   *oidc.Provider
}

func (o *oidcSignIn) provider(ctx context.Context) (*oidc.Provider, error) {
	o.mu.Lock()
	defer o.mu.Unlock()
	if o.prov != nil {
		return o.prov, nil
	}
	p, err := oidc.NewProvider(oidc.ClientContext(ctx, o.client), o.opts.Issuer)
	if err != nil {
		return nil, &backend.Error{Code: backend.CodeUnavailable, Message: "the OpenID Connect provider cannot be reached", Err: err}
	}
	o.prov = p
	return p, nil
}

func (o *oidcSignIn) config(p *oidc.Provider, r *http.Request) oauth2.Config {
	redirect := o.opts.RedirectURL
	if redirect == "" {
		redirect = requestBase(r) + oidcCallbackPath
	}
	return oauth2.Config{ClientID: o.opts.ClientID, ClientSecret: o.opts.ClientSecret, Endpoint: p.Endpoint(),
		RedirectURL: redirect, Scopes: []string{oidc.ScopeOpenID, "email", "profile"}}
}

// SignInOptions tells the sign-in page which ways in there are.
type SignInOptions struct {
	OIDC bool `json:"oidc"`
	// OIDCStart is where the browser goes to sign in with the provider.
	OIDCStart string `json:"oidc_start,omitempty"`
}

// oidcRoutes are the routes of the OpenID Connect sign-in: the options are always there (the
// sign-in page asks), the flow only when a provider is configured.
func (a *api) oidcRoutes() []route {
	rows := []route{noBody(http.MethodGet, v1+"/dashboard/signin-options", "The ways to sign in to the dashboard", a.signInOptions).withPublic()}
	if a.oidc == nil {
		return rows
	}
	page := map[string]any{"type": "string", "description": "A redirect (302) to the provider, or back to the dashboard"}
	return append(rows,
		route{method: http.MethodGet, path: oidcStartPath, summary: "Start signing in to the dashboard with the OpenID Connect provider (a redirect)",
			op: "oidcStart", public: true, status: http.StatusFound, responseDoc: page, contentType: "text/html", serve: a.oidcStart},
		route{method: http.MethodGet, path: oidcCallbackPath, summary: "Where the OpenID Connect provider sends the person back; signs the dashboard in",
			op: "oidcCallback", public: true, status: http.StatusFound, responseDoc: page, contentType: "text/html",
			query: []queryParam{{name: "state", description: "the sign-in's state"}, {name: "code", description: "the authorization code"},
				{name: "error", description: "the provider's refusal"}, {name: "error_description", description: "why"},
				{name: "iss", description: "the provider (RFC 9207)"}},
			serve: a.oidcCallback})
}

func (a *api) signInOptions(*gin.Context) (SignInOptions, error) {
	if a.oidc == nil {
		return SignInOptions{}, nil
	}
	return SignInOptions{OIDC: true, OIDCStart: oidcStartPath}, nil
}

// oidcStart sends the browser to the provider with a fresh state, nonce and PKCE challenge.
func (a *api) oidcStart(c *gin.Context) {
	p, err := a.oidc.provider(c.Request.Context())
	if err != nil {
		a.oidcFail(c, err)
		return
	}
	state, nonce, verifier := rand.Text(), rand.Text(), oauth2.GenerateVerifier()
	http.SetCookie(c.Writer, &http.Cookie{Name: oidcCookie, Value: state + "." + nonce + "." + verifier,
		Path: v1 + "/dashboard/oidc", HttpOnly: true, SameSite: http.SameSiteLaxMode, Secure: c.Request.TLS != nil,
		MaxAge: int(oidcTTL.Seconds())})
	cfg := a.oidc.config(p, c.Request)
	c.Header("Cache-Control", "no-store")
	c.Redirect(http.StatusFound, cfg.AuthCodeURL(state, oidc.Nonce(nonce), oauth2.S256ChallengeOption(verifier)))
}

// oidcCallback checks the state, exchanges the code, verifies the ID token and its nonce, and
// opens a dashboard session for the person the verified identity maps to.
func (a *api) oidcCallback(c *gin.Context) {
	state, nonce, verifier, err := a.oidcPending(c)
	if err == nil {
		var id core.OIDCIdentity
		if id, err = a.oidcIdentity(c, state, nonce, verifier); err == nil {
			var s core.DashboardSession
			if s, err = a.svc.StartOIDCSession(ctx(c), id); err == nil {
				setSessionCookie(c, s)
				c.Header("Cache-Control", "no-store")
				c.Redirect(http.StatusFound, "/#/collection")
				return
			}
		}
	}
	a.oidcFail(c, err)
}

// oidcPending reads and forgets the cookie of the sign-in in progress, and checks that the
// provider answered that sign-in (the state), so no one else's answer signs this browser in.
func (a *api) oidcPending(c *gin.Context) (state, nonce, verifier string, err error) {
	ck, cerr := c.Request.Cookie(oidcCookie)
	http.SetCookie(c.Writer, &http.Cookie{Name: oidcCookie, Path: v1 + "/dashboard/oidc", MaxAge: -1, HttpOnly: true})
	parts := []string{}
	if cerr == nil {
		parts = strings.Split(ck.Value, ".")
	}
	got := c.Query("state")
	if len(parts) != 3 || got == "" || subtle.ConstantTimeCompare([]byte(parts[0]), []byte(got)) != 1 {
		return "", "", "", backend.Errorf(backend.CodeUnauthenticated, "this sign-in was not started here, or took too long").
			WithHint("start again from the sign-in page")
	}
	if e := c.Query("error"); e != "" {
		return "", "", "", backend.Errorf(backend.CodeUnauthenticated, "the provider refused the sign-in: %s", backend.Clip(e, 100)).
			WithHint("try again, or ask the provider's administrator")
	}
	return parts[0], parts[1], parts[2], nil
}

// oidcIdentity exchanges the code and reads who signed in from the verified ID token, and from
// the user info endpoint when the token carries no e-mail.
func (a *api) oidcIdentity(c *gin.Context, _, nonce, verifier string) (core.OIDCIdentity, error) {
	rctx := oidc.ClientContext(c.Request.Context(), a.oidc.client)
	p, err := a.oidc.provider(rctx)
	if err != nil {
		return core.OIDCIdentity{}, err
	}
	cfg := a.oidc.config(p, c.Request)
	tok, err := cfg.Exchange(rctx, c.Query("code"), oauth2.VerifierOption(verifier))
	if err != nil {
		return core.OIDCIdentity{}, refused("the provider did not accept the sign-in's code", err)
	}
	raw, _ := tok.Extra("id_token").(string)
	idt, err := p.Verifier(&oidc.Config{ClientID: a.oidc.opts.ClientID}).Verify(rctx, raw)
	if err != nil {
		return core.OIDCIdentity{}, refused("the provider's ID token did not verify", err)
	}
	if subtle.ConstantTimeCompare([]byte(idt.Nonce), []byte(nonce)) != 1 {
		return core.OIDCIdentity{}, refused("the ID token was not issued for this sign-in", errors.New("nonce mismatch"))
	}
	var claims struct {
		Email         string `json:"email"`
		EmailVerified bool   `json:"email_verified"`
	}
	if err := idt.Claims(&claims); err != nil {
		return core.OIDCIdentity{}, refused("the ID token's claims are not readable", err)
	}
	id := core.OIDCIdentity{Issuer: idt.Issuer, Subject: idt.Subject, Email: claims.Email, EmailVerified: claims.EmailVerified}
	if id.Email == "" {
		ui, err := p.UserInfo(rctx, oauth2.StaticTokenSource(tok))
		if err == nil && ui.Subject == idt.Subject {
			id.Email, id.EmailVerified = ui.Email, ui.EmailVerified
		}
	}
	return id, nil
}

func refused(msg string, err error) error {
	return &backend.Error{Code: backend.CodeUnauthenticated, Message: msg, Hint: "start again from the sign-in page", Err: err}
}

// oidcFail sends the browser back to the sign-in page with the refusal's public message.
func (a *api) oidcFail(c *gin.Context, err error) {
	p := backend.Public(err, requestID(c))
	if p.Code == backend.CodeInternal || p.Code == backend.CodeUnavailable {
		a.log.Error("OpenID Connect sign-in failed", "request_id", requestID(c), "error", err)
	}
	msg := p.Message
	if p.Hint != "" {
		msg += ". " + p.Hint
	}
	c.Header("Cache-Control", "no-store")
	c.Redirect(http.StatusFound, "/signin?"+url.Values{"error": {msg}}.Encode())
}
