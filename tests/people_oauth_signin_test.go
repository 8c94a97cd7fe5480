package tests

import (
	"context"
	"io"
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/agent-deck/agent-deck/backend"
	"github.com/agent-deck/agent-deck/backend/core"
	"github.com/agent-deck/agent-deck/cli"
	"github.com/agent-deck/agent-deck/tests/oauthas"
	"github.com/agent-deck/agent-deck/tests/resttest"
)

// personalOAuthHub is a team hub with a remote service behind OAuth ("notes") that takes each
// person's own sign-in, on a deck shared with everyone, and an MCP session of each person's
// agent bound to that deck.
type personalOAuthHub struct {
	*teamHub
	ds       *oauthas.Server
	sessions map[string]*mcpConn
	// rest are REST clients of each person's own token, kept so their answers can be scanned.
	rest map[string]*resttest.Client
}

func startPersonalOAuthHub(t *testing.T) *personalOAuthHub {
	t.Helper()
	// The downstream starts first, so that it stops after the hub, which keeps streams open to it.
	ds := newOAuthService(t, oauthas.Options{Scope: "mcp:read"})
	h := &personalOAuthHub{teamHub: startTeamHub(t, mcpStackOptions{}), ds: ds, sessions: map[string]*mcpConn{},
		rest: map[string]*resttest.Client{}}
	admin := h.s.api()
	admin.Must(t, http.StatusCreated, "POST", "/api/v1/services", core.ServiceInput{Name: "notes", Type: backend.ServiceRemote,
		URL: h.ds.MCPURL(), Personal: true}, nil)
	admin.Must(t, http.StatusCreated, "POST", "/api/v1/decks", core.DeckInput{Name: "team"}, nil)
	admin.Must(t, http.StatusOK, "POST", "/api/v1/decks/team/cards", core.CardRef{CardType: backend.CardService, CardID: "notes"}, nil)
	admin.Must(t, http.StatusOK, "PUT", "/api/v1/decks/team/sharing", core.DeckSharingInput{Sharing: backend.ShareEveryone}, nil)
	for _, who := range []string{"alice", "bob", "admin"} {
		h.rest[who] = h.as(h.person[who])
		h.sessions[who] = h.s.connect(t, h.agent[who], nil, "")
		h.sessions[who].ok("bind_workspace", map[string]any{"workspaceRoot": "/w/" + who, "deckId": "team"}, nil)
	}
	return h
}

// signInByCLI runs `service connect notes` with a person's own token and consents, as the
// downstream user, in the "browser" the printed URL is opened in.
func (h *personalOAuthHub) signInByCLI(t *testing.T, person, user string) string {
	t.Helper()
	stderr := &syncBuffer{}
	var stdout strings.Builder
	done := make(chan int, 1)
	go func() {
		argv := []string{"agent-deck", "--home", t.TempDir(), "--server", h.s.URL, "--token", h.person[person],
			"service", "connect", "notes", "--no-open", "--wait", "1m"}
		done <- cli.Run(context.Background(), argv, strings.NewReader(""), &stdout, stderr)
	}()
	var authURL string
	for deadline := time.Now().Add(30 * time.Second); authURL == "" && time.Now().Before(deadline); {
		if authURL = authURLRE.FindString(stderr.String()); authURL == "" {
			time.Sleep(20 * time.Millisecond)
		}
	}
	if authURL == "" {
		t.Fatalf("%s's connect printed no authorization URL:\n%s", person, stderr.String())
	}
	page := browse(t, oauthas.AsUser(authURL, user))
	if code := <-done; code != 0 || !strings.Contains(stdout.String(), "Connected to notes") {
		t.Fatalf("%s's connect exited %d\nstdout: %s\nstderr: %s", person, code, stdout.String(), stderr.String())
	}
	return page + stdout.String() + stderr.String()
}

// signInByDashboard presses Connect on the dashboard as the signed-in person and consents as the
// downstream user.
func (h *personalOAuthHub) signInByDashboard(t *testing.T, person, user string) string {
	t.Helper()
	var started core.OAuthConnect
	h.dashboard(t, person).Must(t, http.StatusOK, "POST", "/api/v1/services/notes/connect", map[string]any{}, &started)
	return browse(t, oauthas.AsUser(started.AuthURL, user))
}

// browse opens a URL as a browser does, following redirects (to the deck server's callback), and
// returns the page it ends on, which must say the sign-in finished.
func browse(t *testing.T, u string) string {
	t.Helper()
	resp, err := http.Get(u)
	if err != nil {
		t.Fatalf("browser: %v", err)
	}
	body, _ := io.ReadAll(resp.Body)
	_ = resp.Body.Close()
	if resp.StatusCode != http.StatusOK || !strings.Contains(string(body), "signed in to notes") {
		t.Fatalf("callback page %d: %s", resp.StatusCode, body)
	}
	return string(body)
}

var notesEcho = map[string]any{"serviceId": "notes", "toolName": "echo", "arguments": map[string]any{"text": "hi"}}

// callAs makes one MCP call as the person's agent and checks every request the downstream
// served for it carried the downstream user's own token.
func (h *personalOAuthHub) callAs(t *testing.T, person, user string) {
	t.Helper()
	h.ds.TakeUsers()
	if txt := mcpText(h.sessions[person].call("call_service_tool", notesEcho)); !strings.Contains(txt, "echo: hi") {
		t.Fatalf("%s's call: %s", person, txt)
	}
	seen := h.ds.TakeUsers()
	if len(seen) == 0 || slices.ContainsFunc(seen, func(u string) bool { return u != user }) {
		t.Errorf("%s's call reached the service as %q, want only %s", person, seen, user)
	}
}

// ownSignInStatus is the sign-in state a person's own token reads for notes.
func (h *personalOAuthHub) ownSignInStatus(t *testing.T, person string) core.OAuthStatus {
	t.Helper()
	var st core.OAuthStatus
	h.rest[person].Must(t, http.StatusOK, "GET", "/api/v1/services/notes/auth", nil, &st)
	return st
}

// TestPersonalOAuthSignIn (issue 26): on a service that takes each person's own sign-in, alice
// signs in with the CLI and bob with the dashboard's Connect, as different downstream users; the
// downstream sees alice's token on alice's calls and bob's on bob's (MCP and REST), each
// refreshed for its own person; the admin, who did not sign in, gets DOWNSTREAM_AUTH naming the
// command; bob's disconnect forgets his sign-in and no one else's; no token shows anywhere.
func TestPersonalOAuthSignIn(t *testing.T) {
	h := startPersonalOAuthHub(t)
	var seen []string
	seen = append(seen, h.signInByCLI(t, "alice", "alice@downstream"))
	seen = append(seen, h.signInByDashboard(t, "bob", "bob@downstream"))
	for who, want := range map[string]backend.OAuthState{"alice": backend.OAuthStateConnected, "bob": backend.OAuthStateConnected,
		"admin": backend.OAuthStateNone} {
		if st := h.ownSignInStatus(t, who); st.State != want {
			t.Errorf("%s reads their own sign-in as %+v, want %s", who, st, want)
		}
	}
	users := map[string]string{"alice": "alice@downstream", "bob": "bob@downstream"}
	// Interleaved, so that a connection or target kept for one person would show in the other's call.
	for _, who := range []string{"alice", "bob", "alice", "bob"} {
		h.callAs(t, who, users[who])
	}
	for _, who := range []string{"alice", "bob"} {
		h.ds.TakeUsers()
		a := h.as(h.agent[who]).Must(t, http.StatusOK, "POST", "/api/v1/services/notes/call",
			core.CallInput{ToolName: "echo", Deck: "team", Arguments: []byte(`{"text":"rest"}`)}, nil)
		seen = append(seen, string(a.Body))
		if got := h.ds.TakeUsers(); len(got) == 0 || slices.ContainsFunc(got, func(u string) bool { return u != users[who] }) {
			t.Errorf("%s's REST call reached the service as %q", who, got)
		}
	}

	e := h.sessions["admin"].fails("call_service_tool", notesEcho)
	if e.Code != "DOWNSTREAM_AUTH" || !strings.Contains(e.Hint, "agent-deck service connect notes") {
		t.Errorf("the admin's call without a sign-in of their own: %+v", e)
	}
	if got := h.ds.TakeUsers(); len(got) != 0 {
		t.Errorf("the admin's refused call reached the service as %q", got)
	}

	// Tokens the service stops taking are refreshed per person: each person's own refresh token.
	h.ds.ExpireAccessTokens()
	before := h.ds.Counts().Refreshes
	for _, who := range []string{"alice", "bob"} {
		h.callAs(t, who, users[who])
	}
	if n := h.ds.Counts().Refreshes - before; n != 2 || h.ds.Counts().RefreshReuse != 0 {
		t.Errorf("refreshes after the tokens expired: %d (reuse %d), want one per person", n, h.ds.Counts().RefreshReuse)
	}

	h.cli(t, h.person["bob"], "service", "disconnect", "notes", "--yes").wantCode(t, 0)
	if e := h.sessions["bob"].fails("call_service_tool", notesEcho); e.Code != "DOWNSTREAM_AUTH" {
		t.Errorf("bob's call after his disconnect: %+v", e)
	}
	h.callAs(t, "alice", users["alice"])
	if st := h.ownSignInStatus(t, "alice"); st.State != backend.OAuthStateConnected {
		t.Errorf("alice's sign-in after bob's disconnect: %+v", st)
	}

	for _, c := range h.rest {
		for _, b := range c.Bodies() {
			seen = append(seen, string(b))
		}
	}
	seen = append(seen, h.s.logs.String())
	for _, tok := range h.ds.Issued() {
		for _, s := range seen {
			if strings.Contains(s, tok) {
				t.Fatalf("a downstream token shows in an answer, output or log line: %.200s", s)
			}
		}
	}
}
