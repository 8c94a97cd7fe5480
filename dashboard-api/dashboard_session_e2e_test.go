package dashboardapi

import (
	"net/http"
	"strings"
	"testing"

	"github.com/agent-deck/agent-deck/backend/core"
)

// dashboardSessionSteps exercise the sign-in routes as the route scenario's admin (bearer): a
// code, its exchange, and the cookie-only routes refusing a bearer caller. The cookie itself
// is tested end to end in tests/ (TestAttacksREST).
func dashboardSessionSteps(ok, created []int) []step {
	bad := []int{http.StatusBadRequest}
	code := &signInBody{}
	return []step{
		{"dashboard sign-in code", "POST", "/api/v1/dashboard/signin-codes", nil, ok,
			func(t *testing.T, r response, _ map[string]string) {
				c := decode[core.SignInCode](t, r)
				if !strings.HasPrefix(c.Code, core.SignInCodePrefix) || c.ExpiresAt.IsZero() {
					t.Errorf("code %+v", c)
				}
				code.Code = c.Code
			}},
		{"dashboard sign-in", "POST", "/api/v1/dashboard/session", code, created,
			func(t *testing.T, r response, _ map[string]string) {
				if !strings.Contains(r.header.Get("Set-Cookie"), SessionCookie+"=") {
					t.Errorf("no session cookie set: %v", r.header)
				}
				if s := decode[DashboardSessionInfo](t, r); s.CSRFToken == "" || s.ID == "" {
					t.Errorf("session %+v", s)
				}
			}},
		{"dashboard session needs the cookie", "GET", "/api/v1/dashboard/session", nil, bad, nil},
		{"dashboard sign-out needs the cookie", "DELETE", "/api/v1/dashboard/session", nil, bad, nil},
	}
}

// signInBody is filled by the code step and sent by the exchange step.
type signInBody struct {
	Code string `json:"code"`
}
