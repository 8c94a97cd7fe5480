package tests

import (
	"context"
	"encoding/json"
	"net/url"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/client/transport"
	"github.com/mark3labs/mcp-go/mcp"

	"github.com/agent-deck/agent-deck/backend"
	"github.com/agent-deck/agent-deck/backend/core"
)

// listener is an MCP session that keeps its GET stream open and collects the notifications it
// is sent.
type listener struct {
	*mcpConn
	mu   sync.Mutex
	got  []string
	news chan struct{}
}

func (s *mcpStack) listen(t *testing.T, token, query string) *listener {
	t.Helper()
	headers := transport.WithHTTPHeaders(map[string]string{"Authorization": "Bearer " + token})
	//lint:ignore SA1019 the deck speaks the session-based protocol versions, whose notifications travel on the GET stream
	tr, err := transport.NewStreamableHTTP(s.URL+"/mcp"+query, headers, transport.WithContinuousListening())
	if err != nil {
		t.Fatal(err)
	}
	c := client.NewClient(tr)
	l := &listener{mcpConn: &mcpConn{t: t, c: c, tr: tr}, news: make(chan struct{}, 64)}
	c.OnNotification(func(n mcp.JSONRPCNotification) {
		l.mu.Lock()
		l.got = append(l.got, n.Method)
		l.mu.Unlock()
		l.news <- struct{}{}
	})
	// The GET stream lives as long as Start's context: the session's whole life.
	if err := c.Start(context.Background()); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = c.Close() })
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	req := mcp.InitializeRequest{}
	req.Params.ClientInfo = mcp.Implementation{Name: "agent-deck-tests", Version: "1"}
	if _, err := c.Initialize(ctx, req); err != nil {
		t.Fatalf("initialize: %v", err)
	}
	return l
}

// await waits until the session was sent method (since the last await of it), failing after a
// generous deadline: the notification comes from the server's own loop, not from the request.
func (l *listener) await(t *testing.T, method, after string) {
	t.Helper()
	deadline := time.After(20 * time.Second)
	for {
		l.mu.Lock()
		i := slices.Index(l.got, method)
		if i >= 0 {
			l.got = slices.Delete(l.got, i, i+1)
		}
		l.mu.Unlock()
		if i >= 0 {
			return
		}
		select {
		case <-l.news:
		case <-deadline:
			t.Fatalf("no %s after %s", method, after)
		}
	}
}

// drain forgets the notifications received so far.
func (l *listener) drain() {
	l.mu.Lock()
	l.got = nil
	l.mu.Unlock()
}

// projectedNames are the tools the session lists beyond its profile's, in order.
func projectedNames(t *testing.T, m *mcpConn) []string {
	t.Helper()
	var out []string
	for _, n := range m.toolNames() {
		if strings.Contains(n, "__") {
			out = append(out, n)
		}
	}
	return out
}

// TestProjectedTools: with projection on, a bound session lists the deck's tools after its
// profile's own, is told to list again on bind and on every change to the deck's services, tool
// settings and projection, and calls a projected tool exactly as call_service_tool: same answer,
// same audit row. agent:read projects read-only tools only; a cap stops the list with a word.
func TestProjectedTools(t *testing.T) {
	s := startMCPStack(t, mcpStackOptions{})
	f := s.seedDeck(t, "proj", startHTTPPeer(t))
	ctx := s.adminCtx()
	if _, err := s.svc.SetDeckProjection(ctx, "proj", core.DeckProjectionInput{Enabled: true}); err != nil {
		t.Fatal(err)
	}
	tok, err := s.svc.CreateToken(ctx, core.TokenInput{Name: "proj-agent", Scope: backend.ScopeAgent})
	must(t, err)
	l := s.listen(t, tok.Secret, "")
	before := l.toolNames()
	if len(projectedNames(t, l.mcpConn)) != 0 {
		t.Fatalf("an unbound session lists projected tools: %v", before)
	}

	var b core.Binding
	l.ok("bind_workspace", map[string]any{"workspaceRoot": "/w/proj", "deckId": "proj"}, &b)
	l.await(t, string(mcp.MethodNotificationToolsListChanged), "bind")
	names := l.toolNames()
	if !slices.Equal(names[:len(before)], before) {
		t.Errorf("the profile's own tools do not come first: %v", names)
	}
	projected := projectedNames(t, l.mcpConn)
	if !slices.Contains(projected, "proj_peer__echo") || len(names) != len(before)+len(projected) {
		t.Fatalf("projected tools: %v", projected)
	}
	if b.ProjectedTools == nil || b.ProjectedTools.Tools != len(projected) || b.ProjectedTools.Capped != "" {
		t.Errorf("the binding says of the projection: %+v", b.ProjectedTools)
	}

	t.Run("a projected call is a call_service_tool", func(t *testing.T) {
		args := map[string]any{"message": "typed", "count": 2}
		direct := l.call("call_service_tool", map[string]any{"serviceId": f.Service.Name, "toolName": "echo", "arguments": args})
		via := l.call("proj_peer__echo", args)
		if via.IsError || mcpText(via) != mcpText(direct) {
			t.Errorf("projected answer %s, call_service_tool's %s", mcpText(via), mcpText(direct))
		}
		bad := l.call("proj_peer__echo", map[string]any{"count": "two"})
		badDirect := l.call("call_service_tool", map[string]any{"serviceId": f.Service.Name, "toolName": "echo",
			"arguments": map[string]any{"count": "two"}})
		if !bad.IsError || mcpText(bad) != mcpText(badDirect) {
			t.Errorf("a bad projected call answered %s, call_service_tool %s", mcpText(bad), mcpText(badDirect))
		}
		calls := auditCalls(t, s, url.Values{"deck": {"proj"}}, 4)
		for _, pair := range [][2]int{{0, 1}, {2, 3}} {
			a, b := calls[pair[0]], calls[pair[1]]
			a.ID, a.At, a.Duration, a.DurationMS = 0, time.Time{}, 0, 0
			b.ID, b.At, b.Duration, b.DurationMS = 0, time.Time{}, 0, 0
			if ja, jb := mustMarshal(t, a), mustMarshal(t, b); ja != jb {
				t.Errorf("audit rows differ:\n%s\n%s", ja, jb)
			}
		}
		if res, err := l.callErr("proj_peer__nope", nil); err == nil && !res.IsError {
			t.Errorf("an unknown projected tool answered %s", mcpText(res))
		}
	})

	t.Run("changes to the deck are news", func(t *testing.T) {
		l.drain()
		other, err := s.svc.CreateService(ctx, core.ServiceInput{Name: "Second Peer", Type: backend.ServiceRemote, URL: startHTTPPeer(t)})
		must(t, err)
		_, err = s.svc.LinkCard(ctx, core.LinkCardInput{CardRef: core.CardRef{Deck: f.Deck.ID, CardType: backend.CardService, CardID: other.ID}})
		must(t, err)
		l.await(t, string(mcp.MethodNotificationToolsListChanged), "a service was linked")
		if got := projectedNames(t, l.mcpConn); !slices.Contains(got, "second_peer__echo") {
			t.Errorf("after linking: %v", got)
		}
		_, err = s.svc.UpdateServiceToolSettings(ctx, "Second Peer", core.ToolSettingsInput{DisabledTools: []string{"echo"}})
		must(t, err)
		l.await(t, string(mcp.MethodNotificationToolsListChanged), "a tool was disabled")
		if got := projectedNames(t, l.mcpConn); slices.Contains(got, "second_peer__echo") {
			t.Errorf("a disabled tool is still projected: %v", got)
		}
		_, err = s.svc.SetDeckProjection(ctx, "proj", core.DeckProjectionInput{Enabled: true, MaxTools: 3})
		must(t, err)
		l.await(t, string(mcp.MethodNotificationToolsListChanged), "the cap changed")
		if got := projectedNames(t, l.mcpConn); len(got) != 3 {
			t.Errorf("with a cap of 3: %v", got)
		}
		var now core.Binding
		l.ok("get_session_binding", nil, &now)
		if now.ProjectedTools == nil || !strings.Contains(now.ProjectedTools.Capped, "cap of 3 projected tools") {
			t.Errorf("the binding does not say the cap was reached: %+v", now.ProjectedTools)
		}
		_, err = s.svc.SetDeckProjection(ctx, "proj", core.DeckProjectionInput{Enabled: false})
		must(t, err)
		l.await(t, string(mcp.MethodNotificationToolsListChanged), "projection was turned off")
		if got := projectedNames(t, l.mcpConn); len(got) != 0 {
			t.Errorf("projection off still lists %v", got)
		}
		if res, err := l.callErr("proj_peer__echo", map[string]any{"message": "x"}); err == nil && !res.IsError {
			t.Errorf("a projected tool is callable with projection off: %s", mcpText(res))
		}
	})

	t.Run("agent:read projects read-only tools", func(t *testing.T) {
		_, err := s.svc.SetDeckProjection(ctx, "proj", core.DeckProjectionInput{Enabled: true, MaxTools: 100})
		must(t, err)
		r := s.connect(t, s.token(backend.ScopeAgentRead), nil, "")
		r.ok("bind_workspace", map[string]any{"workspaceRoot": "/w/proj", "deckId": "proj"}, nil)
		got := projectedNames(t, r)
		if !slices.Contains(got, "proj_peer__echo") || slices.Contains(got, "proj_peer__fail") || slices.Contains(got, "proj_peer__crash") {
			t.Errorf("agent:read projects %v", got)
		}
	})
}

func mustMarshal(t *testing.T, v any) string {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// TestProjectedToolsTypeScript: the official TypeScript SDK, with projection on, hears
// tools/list_changed after bind and after a person links a service, lists again, and calls a
// projected tool with typed arguments; its audit row is call_service_tool's.
func TestProjectedToolsTypeScript(t *testing.T) {
	s := startMCPStack(t, mcpStackOptions{})
	f := s.seedDeck(t, "tsproj", startHTTPPeer(t))
	ctx := s.adminCtx()
	_, err := s.svc.SetDeckProjection(ctx, "tsproj", core.DeckProjectionInput{Enabled: true})
	must(t, err)
	later, err := s.svc.CreateService(ctx, core.ServiceInput{Name: "Later Peer", Type: backend.ServiceRemote, URL: startHTTPPeer(t)})
	must(t, err)
	script, err := filepath.Abs(filepath.Join("testdata", "mcp", "ts_projection.mjs"))
	must(t, err)
	out, err := mcpNode(t, 2*time.Minute, []string{"DECK_URL=" + s.URL + "/mcp", "DECK_TOKEN=" + s.token("agent"),
		"DECK_NAME=tsproj", "DECK_PREFIX=tsproj_peer", "DECK_SERVICE=" + f.Service.Name, "DECK_API=" + s.URL + "/api/v1",
		"DECK_ADMIN=" + s.AdminToken, "DECK_LINK_SERVICE=" + later.ID, "DECK_LINK_PREFIX=later_peer"}, script)
	if err != nil {
		t.Fatalf("TypeScript client: %v\n%s\n%s", err, out, s.logs.String())
	}
	for _, want := range []string{
		"listChanged true", "unbound 0", "bound true", "after bind true", `projected tsproj_peer__echo {"type":"integer"`,
		"linked 200", "after link true", "relisted true", "call true true", `text "{\"count\":2,\"message\":\"typed\"}"`,
	} {
		if !strings.Contains(out, want) {
			t.Errorf("TypeScript client output lacks %q:\n%s", want, out)
		}
	}
	calls := auditCalls(t, s, url.Values{"deck": {"tsproj"}}, 2)
	a, b := calls[0], calls[1]
	a.ID, a.At, a.Duration, a.DurationMS = 0, time.Time{}, 0, 0
	b.ID, b.At, b.Duration, b.DurationMS = 0, time.Time{}, 0, 0
	if ja, jb := mustMarshal(t, a), mustMarshal(t, b); ja != jb {
		t.Errorf("the projected call's audit row differs from call_service_tool's:\n%s\n%s", ja, jb)
	}
}
