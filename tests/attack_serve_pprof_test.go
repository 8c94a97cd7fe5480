package tests

import (
	"fmt"
	"net/http"
	"strings"
	"testing"

	"github.com/agent-deck/agent-deck/backend/postgres/pgtest"
)

// pprofPaths are the profile paths an attacker asks for: the index, a heap dump, the process's
// command line and a CPU profile.
var pprofPaths = []string{"/debug/pprof/", "/debug/pprof/heap?debug=1", "/debug/pprof/cmdline",
	"/debug/pprof/goroutine?debug=2", "/debug/pprof/profile?seconds=1"}

// attackPprofOffByDefault: a server started without --pprof has no /debug/pprof at all, even for
// the admin token.
func attackPprofOffByDefault(t *testing.T) {
	s := startMCPStack(t, mcpStackOptions{})
	for _, p := range pprofPaths {
		if a := s.api().Do(t, s.AdminToken, http.MethodGet, p, nil); a.Status != http.StatusNotFound {
			t.Errorf("GET %s without --pprof: %d, want 404\n%s", p, a.Status, clipProfile(a.Body))
		}
	}
}

// attackPprofAgentToken: with AGENT_DECK_PPROF on the real binary, an agent token and a request
// without a token read no profile; only the admin token does.
func attackPprofAgentToken(t *testing.T) {
	srv := startServeBench(t, "AGENT_DECK_DATABASE_URL="+pgtest.NewDB(t), "AGENT_DECK_PPROF=true")
	var tok struct{ Secret string }
	srv.rest(t, http.StatusCreated, "POST", "/api/v1/tokens", `{"name":"agent","scope":"agent"}`, &tok)
	for _, p := range pprofPaths {
		for _, c := range []struct {
			who, token string
			want       int
		}{{"no token", "", http.StatusUnauthorized}, {"agent token", tok.Secret, http.StatusForbidden}} {
			a := srv.api().Do(t, c.token, http.MethodGet, p, nil)
			if a.Status != c.want || !strings.Contains(string(a.Body), `"code"`) {
				t.Errorf("GET %s with %s: %d, want %d with an error body\n%s", p, c.who, a.Status, c.want, clipProfile(a.Body))
			}
		}
	}
	for _, p := range []string{"/debug/pprof/", "/debug/pprof/heap?debug=1", "/debug/pprof/cmdline"} {
		if a := srv.api().Do(t, srv.token, http.MethodGet, p, nil); a.Status != http.StatusOK || len(a.Body) == 0 {
			t.Errorf("GET %s as admin with --pprof: %d, want 200 and a profile\n%s", p, a.Status, clipProfile(a.Body))
		}
	}
	if a := srv.api().Do(t, srv.token, http.MethodGet, "/debug/pprof/heap?debug=1", nil); !strings.Contains(string(a.Body), "heap profile") {
		t.Errorf("GET /debug/pprof/heap as admin: not a heap profile\n%s", clipProfile(a.Body))
	}
}

// clip shortens a body for a failure message.
func clipProfile(b []byte) string {
	if len(b) > 300 {
		return fmt.Sprintf("%s… (%d bytes)", b[:300], len(b))
	}
	return string(b)
}
