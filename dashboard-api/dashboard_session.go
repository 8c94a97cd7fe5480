package dashboardapi

import (
	"net/http"
	"strings"
	"time"

	"github.com/gin-gonic/gin"

	"github.com/agent-deck/agent-deck/backend"
	"github.com/agent-deck/agent-deck/backend/core"
)

// SessionCookie holds a dashboard session's secret: HttpOnly (no script reads it),
// SameSite=Strict (no other site's page sends it), Secure when served over TLS.
const SessionCookie = "agent_deck_session"

const sessionSecretKey = "agent-deck.session-secret"

// SignInInput is the one-time code a browser exchanges for a dashboard session.
type SignInInput struct {
	Code string `json:"code"`
}

// DashboardSessionInfo is what the dashboard page learns about its own session: its person
// and role too, so the page shows what that person may do.
type DashboardSessionInfo struct {
	ID        string       `json:"id"`
	CSRFToken string       `json:"csrf_token"`
	Person    string       `json:"person,omitempty"`
	Role      backend.Role `json:"role,omitempty"`
}

// createSignInCode makes a one-time sign-in code (the CLI or the sign-in page holding a
// pasted token): for the caller, or for ?person= when an admin asks.
func (a *api) createSignInCode(c *gin.Context) (core.SignInCode, error) {
	return a.svc.CreateSignInCodeFor(ctx(c), c.Query("person"))
}

// signIn exchanges a one-time code for a dashboard session and sets its cookie.
func (a *api) signIn(c *gin.Context, in SignInInput) (DashboardSessionInfo, error) {
	s, err := a.svc.StartDashboardSession(ctx(c), in.Code)
	if err != nil {
		return DashboardSessionInfo{}, err
	}
	setSessionCookie(c, s)
	return DashboardSessionInfo{ID: s.ID, CSRFToken: s.CSRF, Person: s.Person, Role: s.Role}, nil
}

// dashboardSession tells the page its session and CSRF token (cookie sign-in only).
func (a *api) dashboardSession(c *gin.Context) (DashboardSessionInfo, error) {
	secret := c.GetString(sessionSecretKey)
	if secret == "" {
		return DashboardSessionInfo{}, backend.Errorf(backend.CodeInvalidArgument,
			"this request was not made with a dashboard session cookie").
			WithHint("sign in to the dashboard at / (agent-deck dashboard opens it)")
	}
	actor, _ := backend.ActorFrom(ctx(c))
	return DashboardSessionInfo{ID: actor.TokenID, CSRFToken: core.DashboardCSRF(secret),
		Person: actor.PersonName, Role: actor.Role}, nil
}

// signOut revokes the cookie's session and clears the cookie.
func (a *api) signOut(c *gin.Context) error {
	info, err := a.dashboardSession(c)
	if err != nil {
		return err
	}
	http.SetCookie(c.Writer, &http.Cookie{Name: SessionCookie, Value: "", Path: "/", HttpOnly: true,
		SameSite: http.SameSiteStrictMode, Secure: c.Request.TLS != nil, MaxAge: -1})
	return a.svc.RevokeToken(ctx(c), info.ID)
}

// authenticateCookie turns the dashboard session cookie into the request's Actor. A request
// that changes state must come from the server's own origin and carry the session's CSRF token,
// so no other page — not even another local one — can act with the cookie.
func (a *api) authenticateCookie(c *gin.Context, secret string) error {
	actor, err := a.svc.AuthenticateDashboard(c.Request.Context(), secret)
	if err != nil {
		if backend.ErrorCode(err) == backend.CodeUnauthenticated {
			err = backend.Errorf(backend.CodeUnauthenticated, "the dashboard session is not valid: signed out, revoked or expired").
				WithHint("sign in again with: agent-deck dashboard")
		}
		return err
	}
	switch c.Request.Method {
	case http.MethodGet, http.MethodHead, http.MethodOptions:
	default:
		if origin := c.GetHeader("Origin"); !sameOrigin(c.Request, origin) {
			return backend.Errorf(backend.CodeForbidden,
				"a dashboard request that changes state must come from this server's own page").
				WithHint("use the dashboard served at / ; other pages may call the API with a bearer token only")
		}
		if err := core.CheckDashboardCSRF(secret, c.GetHeader(core.HeaderCSRF)); err != nil {
			return err
		}
	}
	c.Set(tokenIDKey, actor.TokenID)
	c.Set(sessionSecretKey, secret)
	c.Request = c.Request.WithContext(backend.WithActor(c.Request.Context(), actor))
	return nil
}

// sameOrigin reports whether origin is the origin the request was sent to.
func sameOrigin(r *http.Request, origin string) bool {
	scheme := "http://"
	if r.TLS != nil {
		scheme = "https://"
	}
	return origin != "" && strings.EqualFold(origin, scheme+r.Host)
}

// setSessionCookie hands a new dashboard session to the browser.
func setSessionCookie(c *gin.Context, s core.DashboardSession) {
	http.SetCookie(c.Writer, &http.Cookie{
		Name: SessionCookie, Value: s.Secret, Path: "/", HttpOnly: true, SameSite: http.SameSiteStrictMode,
		Secure: c.Request.TLS != nil, Expires: *s.ExpiresAt, MaxAge: int(time.Until(*s.ExpiresAt).Seconds()),
	})
}
