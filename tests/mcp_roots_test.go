package tests

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/client/transport"
	"github.com/mark3labs/mcp-go/mcp"

	"github.com/agent-deck/agent-deck/backend"
	"github.com/agent-deck/agent-deck/backend/core"
	"github.com/agent-deck/agent-deck/cli"
)

// rootsClient is an MCP client that declares the roots capability and answers roots/list with
// whatever roots it holds; hold makes it wait before answering.
type rootsClient struct {
	mu    sync.Mutex
	roots []string
	hold  chan struct{}
	asked chan struct{} // receives once per roots/list
}

func (r *rootsClient) ListRoots(ctx context.Context, _ mcp.ListRootsRequest) (*mcp.ListRootsResult, error) {
	select {
	case r.asked <- struct{}{}:
	default:
	}
	if r.hold != nil {
		select {
		case <-r.hold:
		case <-ctx.Done():
			return nil, ctx.Err()
		}
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	out := &mcp.ListRootsResult{Roots: []mcp.Root{}}
	for _, u := range r.roots {
		out.Roots = append(out.Roots, mcp.Root{URI: u})
	}
	return out, nil
}

func (r *rootsClient) set(roots ...string) {
	r.mu.Lock()
	r.roots = roots
	r.mu.Unlock()
}

// dialRoots opens a session whose client declares roots and keeps its GET stream open, the way
// Claude Code and the Inspector do.
func dialRoots(t *testing.T, s *mcpStack, token string, rc *rootsClient) *mcpConn {
	t.Helper()
	//lint:ignore SA1019 the deck speaks the session-based protocol versions, whose server requests travel on the GET stream
	tr, err := transport.NewStreamableHTTP(s.URL+"/mcp", transport.WithContinuousListening(),
		transport.WithHTTPHeaders(map[string]string{"Authorization": "Bearer " + token}))
	must(t, err)
	c := client.NewClient(tr, client.WithRootsHandler(rc))
	// The GET stream lives as long as Start's context: the client's whole life.
	must(t, c.Start(context.Background()))
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	t.Cleanup(func() { _ = c.Close() })
	req := mcp.InitializeRequest{}
	req.Params.ClientInfo = mcp.Implementation{Name: "roots-client", Version: "1"}
	req.Params.Capabilities.Roots = &struct {
		ListChanged bool `json:"listChanged,omitempty"`
	}{ListChanged: true}
	if _, err := c.Initialize(ctx, req); err != nil {
		t.Fatalf("initialize: %v", err)
	}
	return &mcpConn{t: t, c: c, tr: tr}
}

// boundDeck polls the session's binding until it names a deck or the deadline passes.
func boundDeck(t *testing.T, s *mcpStack, sessionID string) string {
	t.Helper()
	ctx := backend.WithActor(context.Background(), backend.Actor{Scope: backend.ScopeAgent, Kind: backend.ActorAgent})
	for deadline := time.Now().Add(20 * time.Second); time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
		b, err := s.svc.SessionBinding(ctx, sessionID)
		must(t, err)
		if b.Bound {
			return b.DeckName
		}
	}
	return ""
}

// waitLog polls the server's log until one line holds every part of want.
func waitLog(t *testing.T, s *mcpStack, want ...string) {
	t.Helper()
	for deadline := time.Now().Add(20 * time.Second); time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
		for _, line := range strings.Split(s.logs.String(), "\n") {
			if containsAll(line, want) {
				return
			}
		}
	}
	t.Fatalf("no log line said %q:\n%s", want, s.logs.String())
}

func containsAll(s string, parts []string) bool {
	for _, p := range parts {
		if !strings.Contains(s, p) {
			return false
		}
	}
	return true
}

func pinProject(t *testing.T, deck backend.Deck) string {
	t.Helper()
	dir := t.TempDir()
	must(t, os.MkdirAll(filepath.Join(dir, ".agent-deck"), 0o755))
	pin, _ := json.Marshal(map[string]string{"deck_id": deck.ID, "deck_name": deck.Name})
	must(t, os.WriteFile(filepath.Join(dir, filepath.FromSlash(core.WorkspacePinFile)), pin, 0o644))
	return dir
}

// TestMCPRootsBindWorkspace: a client that declares roots is bound at session start to
// the deck its workspace root names (issue 10 §1, MCP roots bind the workspace).
func TestMCPRootsBindWorkspace(t *testing.T) {
	s := startMCPStack(t, mcpStackOptions{Serve: func(c *cli.ServeConfig) { c.LogLevel = "debug" }})
	decks := map[string]backend.Deck{}
	for _, name := range []string{"pinned", "shared", "chosen"} {
		d, err := s.svc.CreateDeck(s.adminCtx(), core.DeckInput{Name: name})
		must(t, err)
		decks[name] = d
	}
	pinned := pinProject(t, decks["pinned"])
	tok := s.token(backend.ScopeAgent)

	t.Run("a root pinned with agent-deck use", func(t *testing.T) {
		m := dialRoots(t, s, tok, &rootsClient{roots: []string{"file://" + pinned}, asked: make(chan struct{}, 1)})
		if got := boundDeck(t, s, m.sessionID()); got != "pinned" {
			t.Fatalf("bound to %q, want pinned", got)
		}
		var b map[string]any
		m.ok("get_bound_deck", map[string]any{}, &b)
		// bind_workspace after the roots answer still moves the session.
		m.ok("bind_workspace", map[string]any{"workspaceRoot": pinned, "deckId": "chosen"}, nil)
		if got := boundDeck(t, s, m.sessionID()); got != "chosen" {
			t.Fatalf("after bind_workspace bound to %q, want chosen", got)
		}
	})
	t.Run("a root inside a workspace another session is bound to", func(t *testing.T) {
		ws := t.TempDir()
		other := s.connect(t, tok, nil, "")
		other.ok("bind_workspace", map[string]any{"workspaceRoot": ws, "deckId": "shared"}, nil)
		m := dialRoots(t, s, tok, &rootsClient{roots: []string{"file://" + ws + "/sub/dir"}, asked: make(chan struct{}, 1)})
		if got := boundDeck(t, s, m.sessionID()); got != "shared" {
			t.Fatalf("bound to %q, want shared", got)
		}
	})
	t.Run("relative and non-file roots are ignored", func(t *testing.T) {
		m := dialRoots(t, s, tok, &rootsClient{asked: make(chan struct{}, 1),
			roots: []string{"https://example.com/pinned", "file:relative/pinned", "file://" + pinned}})
		if got := boundDeck(t, s, m.sessionID()); got != "pinned" {
			t.Fatalf("bound to %q, want pinned (from the third root)", got)
		}
		waitLog(t, s, "ignoring a root", "session_id="+m.sessionID(), "uri=file:relative/pinned")
	})
	t.Run("bind_workspace wins over a later roots answer", func(t *testing.T) {
		rc := &rootsClient{roots: []string{"file://" + pinned}, hold: make(chan struct{}), asked: make(chan struct{}, 1)}
		m := dialRoots(t, s, tok, rc)
		<-rc.asked
		m.ok("bind_workspace", map[string]any{"workspaceRoot": t.TempDir(), "deckId": "chosen"}, nil)
		close(rc.hold)
		waitLog(t, s, "roots left the session as it was", "session_id="+m.sessionID(), "bound=true")
		if got := boundDeck(t, s, m.sessionID()); got != "chosen" {
			t.Fatalf("bound to %q, want chosen", got)
		}
	})
	t.Run("roots/list_changed binds a session its first roots did not", func(t *testing.T) {
		rc := &rootsClient{roots: []string{"file://" + t.TempDir()}, asked: make(chan struct{}, 1)}
		m := dialRoots(t, s, tok, rc)
		<-rc.asked
		waitLog(t, s, "roots left the session as it was", "session_id="+m.sessionID(), "bound=false")
		rc.set("file://" + pinned)
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		must(t, m.c.RootListChanges(ctx))
		if got := boundDeck(t, s, m.sessionID()); got != "pinned" {
			t.Fatalf("bound to %q after list_changed, want pinned", got)
		}
	})
}

// TestMCPRootsTypeScriptClient: the official TypeScript SDK, declaring roots, is bound to
// the deck its project is pinned to without calling bind_workspace.
func TestMCPRootsTypeScriptClient(t *testing.T) {
	s := startMCPStack(t, mcpStackOptions{})
	d, err := s.svc.CreateDeck(s.adminCtx(), core.DeckInput{Name: "pinned"})
	must(t, err)
	script, err := filepath.Abs(filepath.Join("testdata", "deckscope", "ts_roots.mjs"))
	must(t, err)
	out, err := mcpNode(t, 2*time.Minute, []string{
		"DECK_URL=" + s.URL + "/mcp", "DECK_TOKEN=" + s.token(backend.ScopeAgent), "DECK_ROOT=" + pinProject(t, d),
	}, script)
	if err != nil {
		t.Fatalf("TypeScript client: %v\n%s", err, out)
	}
	if !strings.Contains(out, "bound ◆ pinned") {
		t.Errorf("the TypeScript client was not bound from its roots:\n%s", out)
	}
}
