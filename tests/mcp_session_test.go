package tests

import (
	"io"
	"net/http"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/agent-deck/agent-deck/backend"
	"github.com/agent-deck/agent-deck/backend/core"
)

var mcpSummaryRE = regexp.MustCompile(`^◆ .+ · \d+ MCP · \d+ keys? · \d+ playbooks? · ⌘[a-z]+\d*$`)

// TestMCPBindingLifecycle walks a session from unbound to bound to another deck.
func TestMCPBindingLifecycle(t *testing.T) {
	s := startMCPStack(t, mcpStackOptions{})
	dev := s.seedDeck(t, "dev", "http://127.0.0.1:9/mcp")
	ops, err := s.svc.CreateDeck(s.adminCtx(), core.DeckInput{Name: "ops"})
	if err != nil {
		t.Fatal(err)
	}
	c := s.connect(t, s.token(backend.ScopeAgent), nil, "")

	var b core.Binding
	c.ok("get_session_binding", nil, &b)
	if b.Bound || b.DisplaySummary != core.UnboundSummary || b.Badge == "" || b.SessionID != c.sessionID() {
		t.Fatalf("new session binding = %+v", b)
	}
	badge := b.Badge

	e := c.fails("get_bound_deck", nil)
	if e.Code != "NOT_BOUND" || !strings.Contains(e.Hint, "bind_workspace") || !strings.Contains(e.Hint, "dev") {
		t.Errorf("get_bound_deck unbound = %+v", e)
	}

	var decks []backend.Deck
	c.ok("get_decks", nil, &decks)
	if len(decks) != 2 {
		t.Errorf("get_decks = %+v", decks)
	}

	c.ok("bind_workspace", map[string]any{"workspaceRoot": "/home/me/proj/", "deckId": "dev"}, &b)
	want := "◆ dev · 1 MCP · 1 key · 1 playbook · ⌘" + badge
	if !b.Bound || b.DeckID != dev.Deck.ID || b.WorkspaceRoot != "/home/me/proj" || b.DisplaySummary != want {
		t.Errorf("bind_workspace = %+v, want summary %q", b, want)
	}

	var deck core.BoundDeck
	c.ok("get_bound_deck", nil, &deck)
	if deck.ID != dev.Deck.ID || len(deck.Services) != 1 || len(deck.Credentials) != 1 || len(deck.Playbooks) != 1 ||
		deck.DisplaySummary != want || deck.Badge != badge {
		t.Errorf("get_bound_deck = %+v", deck)
	}
	if !deck.Credentials[0].HasSecret {
		t.Error("credential metadata lost has_secret")
	}

	c.ok("switch_bound_deck", map[string]any{"deckId": ops.ID}, &b)
	if b.DeckName != "ops" || b.WorkspaceRoot != "/home/me/proj" || b.DisplaySummary != "◆ ops · 0 MCP · 0 keys · 0 playbooks · ⌘"+badge {
		t.Errorf("switch_bound_deck = %+v", b)
	}

	var line core.DisplayLine
	mcpREST(t, s, s.AdminToken, http.MethodGet, "/api/v1/display?workspace=/home/me/proj/src/x", nil, &line)
	if !line.Bound || line.Badge != badge || line.DeckID != ops.ID {
		t.Errorf("display for a subfolder = %+v", line)
	}
	mcpREST(t, s, s.AdminToken, http.MethodGet, "/api/v1/display?workspace=/home/other", nil, &line)
	if line.Bound || line.Line != core.UnboundSummary {
		t.Errorf("display for an unbound folder = %+v", line)
	}
	var sessions []backend.MCPSession
	mcpREST(t, s, s.AdminToken, http.MethodGet, "/api/v1/sessions", nil, &sessions)
	if len(sessions) != 1 || sessions[0].Badge != badge || sessions[0].DeckName != "ops" || sessions[0].ClientName != "agent-deck-tests" {
		t.Errorf("sessions = %+v", sessions)
	}
}

// TestMCPBadgesUnique opens many sessions at once: every badge differs.
func TestMCPBadgesUnique(t *testing.T) {
	s := startMCPStack(t, mcpStackOptions{})
	tok := s.token(backend.ScopeAgent)
	const n = 24
	badges := make(chan string, n)
	done := make(chan struct{})
	for i := 0; i < n; i++ {
		go func() {
			defer func() { done <- struct{}{} }()
			c := s.connect(t, tok, nil, "")
			var b core.Binding
			c.ok("get_session_binding", nil, &b)
			badges <- b.Badge
		}()
	}
	for i := 0; i < n; i++ {
		<-done
	}
	close(badges)
	seen := map[string]bool{}
	for b := range badges {
		if seen[b] {
			t.Errorf("badge %q given twice", b)
		}
		seen[b] = true
	}
	if len(seen) != n {
		t.Errorf("%d distinct badges, want %d", len(seen), n)
	}
}

// TestMCPPreBinding: the deck header, and the configured default deck and workspace, bind new
// sessions at initialize.
func TestMCPPreBinding(t *testing.T) {
	s := startMCPStack(t, mcpStackOptions{Config: core.Config{DefaultDeck: "dev", DefaultWorkspace: "/srv/app"}})
	s.seedDeck(t, "dev", "http://127.0.0.1:9/mcp")
	ops := s.seedDeck(t, "ops", "http://127.0.0.1:9/mcp")
	tok := s.token(backend.ScopeAgent)
	tests := []struct {
		name    string
		headers map[string]string
		deck    string
	}{
		{"configured default", nil, "dev"},
		{"header by name", map[string]string{backend.HeaderDeckID: "ops"}, "ops"},
		{"header by id", map[string]string{backend.HeaderDeckID: ops.Deck.ID}, "ops"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := s.connect(t, tok, tt.headers, "")
			var b core.Binding
			c.ok("get_session_binding", nil, &b)
			if !b.Bound || b.DeckName != tt.deck || b.WorkspaceRoot != "/srv/app" || !mcpSummaryRE.MatchString(b.DisplaySummary) {
				t.Errorf("binding = %+v", b)
			}
		})
	}
	t.Run("unknown deck header fails initialize", func(t *testing.T) {
		status, body := mcpRaw(t, s, tok, map[string]string{backend.HeaderDeckID: "nope"}, "", mcpInitializeBody)
		if status != http.StatusOK || !strings.Contains(body, "NOT_FOUND") || !strings.Contains(body, "dev") {
			t.Errorf("initialize with an unknown deck: %d %s", status, body)
		}
	})
}

// TestMCPRestart: a bound session survives a restart of the deck; a terminated one is gone.
func TestMCPRestart(t *testing.T) {
	s := startMCPStack(t, mcpStackOptions{})
	s.seedDeck(t, "dev", "http://127.0.0.1:9/mcp")
	tok := s.token(backend.ScopeAgent)
	c := s.connect(t, tok, nil, "")
	var before core.Binding
	c.ok("bind_workspace", map[string]any{"workspaceRoot": "/w", "deckId": "dev"}, &before)
	id := c.sessionID()

	s.restart()

	resumed := dialMCP(t, s.URL+"/mcp", map[string]string{"Authorization": "Bearer " + tok}, id)
	var after core.Binding
	resumed.ok("get_session_binding", nil, &after)
	if diff := cmp.Diff(before, after); diff != "" {
		t.Errorf("binding changed across the restart (-before +after):\n%s", diff)
	}

	mcpDeleteSession(t, s, tok, id)
	status, _ := mcpRaw(t, s, tok, nil, id, mcpToolsListBody)
	if status != http.StatusNotFound {
		t.Errorf("terminated session: status %d, want 404", status)
	}
	status, _ = mcpRaw(t, s, tok, nil, "5f0c8a4e-3e0b-4d8a-9a57-0d1c2b3a4f5e", mcpToolsListBody)
	if status != http.StatusNotFound {
		t.Errorf("unknown session: status %d, want 404", status)
	}
	status, _ = mcpRaw(t, s, tok, nil, "not-a-session", mcpToolsListBody)
	if status != http.StatusNotFound {
		t.Errorf("malformed session id: status %d, want 404", status)
	}
	status, _ = mcpRaw(t, s, tok, nil, "", mcpToolsListBody)
	if status != http.StatusBadRequest {
		t.Errorf("no session id: status %d, want 400", status)
	}
}

// TestMCPSessionBelongsToItsToken: a session id is refused (404, as if unknown) with any token
// but the one that opened it, even a valid admin token, and still served with its own.
func TestMCPSessionBelongsToItsToken(t *testing.T) {
	s := startMCPStack(t, mcpStackOptions{})
	s.seedDeck(t, "dev", "http://127.0.0.1:9/mcp")
	owner, other := s.token(backend.ScopeAgent), s.token(backend.ScopeAgent)
	c := s.connect(t, owner, nil, "")
	c.ok("bind_workspace", map[string]any{"workspaceRoot": "/w", "deckId": "dev"}, nil)
	for name, tok := range map[string]string{"another agent token": other, "the admin token": s.AdminToken} {
		if status, _ := mcpRaw(t, s, tok, nil, c.sessionID(), mcpToolsListBody); status != http.StatusNotFound {
			t.Errorf("%s on someone else's session: status %d, want 404", name, status)
		}
	}
	if status, _ := mcpRaw(t, s, owner, nil, c.sessionID(), mcpToolsListBody); status != http.StatusOK {
		t.Errorf("the owner's own session: status %d, want 200", status)
	}
	var b core.Binding
	c.ok("get_session_binding", nil, &b)
	if !b.Bound || b.DeckName != "dev" {
		t.Errorf("binding after the refused attempts = %+v", b)
	}
}

// TestMCPReplicas: a session opened on one replica is served by another sharing the database,
// and ending it on one ends it everywhere.
func TestMCPReplicas(t *testing.T) {
	a := startMCPStack(t, mcpStackOptions{})
	b := startMCPReplica(t, a)
	a.seedDeck(t, "dev", "http://127.0.0.1:9/mcp")
	tok := a.token(backend.ScopeAgent)
	onA := a.connect(t, tok, nil, "")
	var bound core.Binding
	onA.ok("bind_workspace", map[string]any{"workspaceRoot": "/r", "deckId": "dev"}, &bound)

	onB := dialMCP(t, b.URL+"/mcp", map[string]string{"Authorization": "Bearer " + tok}, onA.sessionID())
	var deck core.BoundDeck
	onB.ok("get_bound_deck", nil, &deck)
	if deck.Name != "dev" || deck.Badge != bound.Badge {
		t.Errorf("replica B sees %+v, want deck dev with badge %s", deck, bound.Badge)
	}
	mcpDeleteSession(t, b, tok, onA.sessionID())
	if status, _ := mcpRaw(t, a, tok, nil, onA.sessionID(), mcpToolsListBody); status != http.StatusNotFound {
		t.Errorf("ended on B, still served by A: %d", status)
	}
}

// TestMCPIdleExpiry: a session unused for longer than the idle timeout is gone.
func TestMCPIdleExpiry(t *testing.T) {
	s := startMCPStack(t, mcpStackOptions{Config: core.Config{SessionIdleTimeout: 2 * time.Second}})
	tok := s.token(backend.ScopeAgent)
	c := s.connect(t, tok, nil, "")
	c.ok("get_decks", nil, nil)
	time.Sleep(1200 * time.Millisecond)
	c.ok("get_decks", nil, nil) // traffic keeps it alive
	time.Sleep(1200 * time.Millisecond)
	c.ok("get_decks", nil, nil)
	time.Sleep(2500 * time.Millisecond)
	if status, _ := mcpRaw(t, s, tok, nil, c.sessionID(), mcpToolsListBody); status != http.StatusNotFound {
		t.Errorf("idle session: status %d, want 404", status)
	}
}

// TestMCPAuth: no token or a revoked token gets 401 before anything else.
func TestMCPAuth(t *testing.T) {
	s := startMCPStack(t, mcpStackOptions{})
	for _, tok := range []string{"", "not-a-token"} {
		if status, _ := mcpRaw(t, s, tok, nil, "", mcpInitializeBody); status != http.StatusUnauthorized {
			t.Errorf("token %q: status %d, want 401", tok, status)
		}
	}
}

const (
	mcpInitializeBody = `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18",` +
		`"capabilities":{},"clientInfo":{"name":"raw","version":"1"}}}`
	mcpToolsListBody = `{"jsonrpc":"2.0","id":2,"method":"tools/list","params":{}}`
)

// mcpDeleteSession ends a session the way a client does, with DELETE /mcp.
func mcpDeleteSession(t testing.TB, s *mcpStack, token, id string) {
	t.Helper()
	req, _ := http.NewRequest(http.MethodDelete, s.URL+"/mcp", nil)
	req.Header.Set("Authorization", "Bearer "+token)
	req.Header.Set("Mcp-Session-Id", id)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("DELETE /mcp: %s", resp.Status)
	}
}

// mcpRaw posts one JSON-RPC message to /mcp and returns the status and body.
func mcpRaw(t testing.TB, s *mcpStack, token string, headers map[string]string, sessionID, body string) (int, string) {
	t.Helper()
	req, err := http.NewRequest(http.MethodPost, s.URL+"/mcp", strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	if sessionID != "" {
		req.Header.Set("Mcp-Session-Id", sessionID)
		req.Header.Set("Mcp-Protocol-Version", "2025-06-18")
	}
	for k, v := range headers {
		req.Header.Set(k, v)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(b)
}

// mcpREST calls the REST API, fails unless the answer is a 2xx, and decodes it into out.
func mcpREST(t testing.TB, s *mcpStack, token, method, path string, body, out any) int {
	t.Helper()
	a := s.api().Do(t, token, method, path, body)
	if a.Status/100 != 2 {
		t.Fatalf("%s %s: status %d %s", method, path, a.Status, a.Body)
	}
	if out != nil && len(a.Body) > 0 {
		a.Decode(t, out)
	}
	return a.Status
}
