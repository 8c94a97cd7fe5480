package tests

import (
	"context"
	"io"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/mcp"

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

// discoverAs reads the service's whoami resource, gets its prompt and completes the prompt's
// argument through the person's MCP session bound to the shared deck, and returns the answers
// with the downstream users the requests reached the service as.
func (h *personalOAuthHub) discoverAs(t *testing.T, person string) (resource, prompt, completion string, seen []string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	c := h.sessions[person].c
	h.ds.TakeAnswered()
	rr, err := c.ReadResource(ctx, mcp.ReadResourceRequest{Params: mcp.ReadResourceParams{URI: whoamiHubURI}})
	if err != nil {
		t.Fatalf("%s's resources/read: %v", person, err)
	}
	for _, rc := range rr.Contents {
		if tc, ok := rc.(mcp.TextResourceContents); ok {
			resource += tc.Text
		}
	}
	gp, err := c.GetPrompt(ctx, mcp.GetPromptRequest{Params: mcp.GetPromptParams{Name: "notes__whoami"}})
	if err != nil {
		t.Fatalf("%s's prompts/get: %v", person, err)
	}
	for _, m := range gp.Messages {
		if tc, ok := m.Content.(mcp.TextContent); ok {
			prompt += tc.Text
		}
	}
	done, err := c.Complete(ctx, mcp.CompleteRequest{Params: mcp.CompleteParams{
		Ref: mcp.PromptReference{Type: "ref/prompt", Name: "notes__whoami"}, Argument: mcp.CompleteArgument{Name: "topic"}}})
	if err != nil {
		t.Fatalf("%s's completion/complete: %v", person, err)
	}
	return resource, prompt, strings.Join(done.Completion.Values, ","), h.ds.TakeAnswered()
}

// whoamiHubURI is the hub's name of the service's whoami resource.
var whoamiHubURI = "agentdeck://services/notes/resources/" + url.PathEscape(whoamiURI)

// TestPersonalOAuthDiscovery (issue 26): the resources, prompts and completions of a service that
// takes each person's own sign-in are read, got and completed with the asker's own sign-in, as
// its tools are called: through MCP sessions bound to a deck shared with everyone, alice's
// answers name alice's downstream user and bob's bob's, and the admin, who did not sign in, is
// refused with DOWNSTREAM_AUTH naming the command before the service is reached, never answered
// with someone else's data.
func TestPersonalOAuthDiscovery(t *testing.T) {
	h := startPersonalOAuthHub(t)
	h.signInByCLI(t, "alice", "alice@downstream")
	h.signInByDashboard(t, "bob", "bob@downstream")
	users := map[string]string{"alice": "alice@downstream", "bob": "bob@downstream"}

	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	list, err := h.sessions["alice"].c.ListResources(ctx, mcp.ListResourcesRequest{})
	if err != nil || !slices.ContainsFunc(list.Resources, func(r mcp.Resource) bool { return r.URI == whoamiHubURI }) {
		t.Fatalf("alice's resources/list does not offer %s: %+v, %v", whoamiHubURI, list, err)
	}
	prompts, err := h.sessions["bob"].c.ListPrompts(ctx, mcp.ListPromptsRequest{})
	if err != nil || !slices.ContainsFunc(prompts.Prompts, func(p mcp.Prompt) bool { return p.Name == "notes__whoami" }) {
		t.Fatalf("bob's prompts/list does not offer notes__whoami: %+v, %v", prompts, err)
	}

	// Interleaved, so that a connection or target kept for one person would show in the other's answer.
	for _, who := range []string{"alice", "bob", "alice", "bob"} {
		res, prompt, done, seen := h.discoverAs(t, who)
		if res != "resource read as "+users[who] || prompt != "prompt got as "+users[who] || done != "completed as "+users[who] {
			t.Errorf("%s read %q, got %q and completed %q, want answers as %s", who, res, prompt, done, users[who])
		}
		if len(seen) == 0 || slices.ContainsFunc(seen, func(u string) bool { return u != users[who] }) {
			t.Errorf("%s's requests reached the service as %q, want only %s", who, seen, users[who])
		}
	}

	// The admin has no sign-in of their own: each request is refused, naming the command, before
	// the service is reached; none answers with alice's or bob's data.
	c := h.sessions["admin"].c
	h.ds.TakeUsers()
	for what, ask := range map[string]func(context.Context) (any, error){
		"resources/read": func(ctx context.Context) (any, error) {
			return c.ReadResource(ctx, mcp.ReadResourceRequest{Params: mcp.ReadResourceParams{URI: whoamiHubURI}})
		},
		"prompts/get": func(ctx context.Context) (any, error) {
			return c.GetPrompt(ctx, mcp.GetPromptRequest{Params: mcp.GetPromptParams{Name: "notes__whoami"}})
		},
		"completion/complete": func(ctx context.Context) (any, error) {
			return c.Complete(ctx, mcp.CompleteRequest{Params: mcp.CompleteParams{
				Ref: mcp.PromptReference{Type: "ref/prompt", Name: "notes__whoami"}, Argument: mcp.CompleteArgument{Name: "topic"}}})
		},
	} {
		got, err := ask(ctx)
		if err == nil {
			t.Errorf("the admin's %s, without a sign-in of their own, answered %+v", what, got)
		} else if !strings.Contains(err.Error(), "DOWNSTREAM_AUTH") || !strings.Contains(err.Error(), "agent-deck service connect notes") ||
			strings.Contains(err.Error(), "@downstream") {
			t.Errorf("the admin's %s refusal: %v", what, err)
		}
		if seen := h.ds.TakeUsers(); len(seen) != 0 {
			t.Errorf("the admin's refused %s reached the service as %q", what, seen)
		}
	}
}
