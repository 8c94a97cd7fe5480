package tests

import (
	"net/http"
	"net/url"
	"testing"

	"github.com/agent-deck/agent-deck/backend"
	"github.com/agent-deck/agent-deck/backend/core"
	dashboardapi "github.com/agent-deck/agent-deck/dashboard-api"
	"github.com/agent-deck/agent-deck/tests/resttest"
)

// teamHub is a hub with three people (issue 26): the first admin, and alice and bob, members.
// Each has a person token (scope admin: their CLI and REST) and an agent token.
type teamHub struct {
	s      *mcpStack
	person map[string]string // person name → their own admin-scope token
	agent  map[string]string // person name → an agent token of theirs
}

func startTeamHub(t *testing.T, opts mcpStackOptions) *teamHub {
	t.Helper()
	return newTeamHub(t, startMCPStack(t, opts))
}

// newTeamHub adds alice and bob to the stack and makes everyone's tokens, through REST.
func newTeamHub(t *testing.T, s *mcpStack) *teamHub {
	t.Helper()
	h := &teamHub{s: s, person: map[string]string{"admin": s.AdminToken}, agent: map[string]string{}}
	for _, name := range []string{"alice", "bob"} {
		s.api().Must(t, http.StatusCreated, "POST", "/api/v1/people",
			core.PersonInput{Name: name, Role: backend.RoleMember, Email: name + "@example.com"}, nil)
	}
	for _, name := range []string{"admin", "alice", "bob"} {
		if name != "admin" {
			h.person[name] = h.newToken(t, name, backend.ScopeAdmin)
		}
		h.agent[name] = h.newToken(t, name, backend.ScopeAgent)
	}
	return h
}

// newToken makes a token for a person, as the admin does with token create --person.
func (h *teamHub) newToken(t *testing.T, person string, scope backend.Scope) string {
	t.Helper()
	var tok core.NewToken
	h.s.api().Must(t, http.StatusCreated, "POST", "/api/v1/tokens",
		core.TokenInput{Name: person + " " + string(scope), Scope: scope, Person: person}, &tok)
	if tok.Person != person {
		t.Fatalf("token for %s acts for %q", person, tok.Person)
	}
	return tok.Secret
}

// as is a REST client with a token.
func (h *teamHub) as(token string) *resttest.Client { return resttest.New(h.s.URL, token) }

// dashboard signs a person in to the dashboard with a one-time code an admin made for them,
// and returns a client that sends the session cookie and CSRF token, as the page does.
func (h *teamHub) dashboard(t *testing.T, person string) *resttest.Client {
	t.Helper()
	var code core.SignInCode
	h.s.api().Must(t, http.StatusOK, "POST", "/api/v1/dashboard/signin-codes?person="+url.QueryEscape(person), nil, &code)
	c := resttest.New(h.s.URL, "")
	a := c.Do(t, "", "POST", "/api/v1/dashboard/session", map[string]string{"code": code.Code},
		"Origin", h.s.URL)
	if a.Status != http.StatusCreated {
		t.Fatalf("dashboard sign-in for %s: %d %s", person, a.Status, a.Body)
	}
	var info dashboardapi.DashboardSessionInfo
	a.Decode(t, &info)
	if info.Person != person {
		t.Fatalf("the dashboard session is %q's, want %s's", info.Person, person)
	}
	var cookie string
	for _, ck := range (&http.Response{Header: a.Header}).Cookies() {
		if ck.Name == dashboardapi.SessionCookie {
			cookie = ck.Value
		}
	}
	c.Header = http.Header{"Cookie": {dashboardapi.SessionCookie + "=" + cookie},
		"X-Agent-Deck-Csrf": {info.CSRFToken}, "Origin": {h.s.URL}}
	return c
}

// cli runs the CLI against the hub with a person's token.
func (h *teamHub) cli(t *testing.T, token string, args ...string) cliResult {
	t.Helper()
	return runCLI(t.TempDir(), nil, append([]string{"--server", h.s.URL, "--token", token}, args...)...)
}
