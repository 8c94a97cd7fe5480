package tests

import (
	"encoding/json"
	"fmt"
	"strings"
	"sync"
	"testing"

	"github.com/agent-deck/agent-deck/backend"
	"github.com/agent-deck/agent-deck/backend/core"
	"github.com/agent-deck/agent-deck/mcptools"
)

// TestMCPHotPath is what an agent does every chat: bind, read the deck, find a tool, call it,
// read a playbook — against a local (stdio) peer started by the proxy.
func TestMCPHotPath(t *testing.T) {
	s := startMCPStack(t, mcpStackOptions{})
	ctx := s.adminCtx()
	deck, err := s.svc.CreateDeck(ctx, core.DeckInput{Name: "work"})
	if err != nil {
		t.Fatal(err)
	}
	svc, err := s.svc.CreateService(ctx, core.ServiceInput{Name: "local-peer", Type: backend.ServiceLocal,
		LocalCommand: mcpPeerBinary(t), LocalArgs: []string{"-transport", "stdio"}})
	if err != nil {
		t.Fatal(err)
	}
	pb, err := s.svc.CreatePlaybook(ctx, backend.PlaybookInput{Title: "Greet", Body: "Call echo with hello.",
		Triggers: []string{"say hello"}})
	if err != nil {
		t.Fatal(err)
	}
	for _, l := range []core.LinkCardInput{
		{CardRef: core.CardRef{Deck: deck.ID, CardType: backend.CardService, CardID: svc.ID}},
		{CardRef: core.CardRef{Deck: deck.ID, CardType: backend.CardPlaybook, CardID: pb.ID}},
	} {
		if _, err := s.svc.LinkCard(ctx, l); err != nil {
			t.Fatal(err)
		}
	}

	c := s.connect(t, s.token(backend.ScopeAgent), nil, "")
	var b core.Binding
	c.ok("bind_workspace", map[string]any{"workspaceRoot": "/home/me/work", "deckId": "work"}, &b)
	if !mcpSummaryRE.MatchString(b.DisplaySummary) || !strings.HasPrefix(b.DisplaySummary, "◆ work · 1 MCP · 0 keys · 1 playbook") {
		t.Errorf("display_summary %q", b.DisplaySummary)
	}
	var d core.BoundDeck
	c.ok("get_bound_deck", nil, &d)
	if len(d.Services) != 1 || d.Services[0].Name != "local-peer" || len(d.Playbooks) != 1 || d.Playbooks[0].Triggers[0] != "say hello" {
		t.Fatalf("get_bound_deck = %+v", d)
	}
	var tools []core.ToolInfo
	c.ok("list_service_tools", map[string]any{"serviceId": d.Services[0].ID}, &tools)
	if !mcpHasTool(tools, "echo") {
		t.Fatalf("no echo in %+v", tools)
	}
	for _, tl := range tools {
		if tl.Name == "echo" && !strings.Contains(string(tl.Tool), `"x-peer-extension":{"kept":true}`) {
			t.Errorf("the downstream schema was altered: %s", tl.Tool)
		}
	}
	res := c.call("call_service_tool", map[string]any{"serviceId": "local-peer", "toolName": "echo",
		"arguments": map[string]any{"message": "hello"}})
	if res.IsError || mcpText(res) != `{"message":"hello"}` {
		t.Errorf("call_service_tool = %+v", res)
	}
	var p backend.Playbook
	c.ok("get_playbook", map[string]any{"playbook_id": d.Playbooks[0].ID}, &p)
	if p.Body != "Call echo with hello." {
		t.Errorf("get_playbook = %+v", p)
	}
}

// TestMCPInstructions: initialize tells the agent the hot path.
func TestMCPInstructions(t *testing.T) {
	s := startMCPStack(t, mcpStackOptions{})
	status, body := mcpRaw(t, s, s.token(backend.ScopeAgent), nil, "", mcpInitializeBody)
	if status != 200 {
		t.Fatalf("initialize: %d %s", status, body)
	}
	for _, want := range []string{"bind_workspace", "get_bound_deck", "call_service_tool", "get_playbook", "display_summary"} {
		if !strings.Contains(body, want) {
			t.Errorf("instructions do not mention %s: %s", want, body)
		}
	}
	if !strings.Contains(body, strings.ReplaceAll(mcptools.Instructions[:40], "\n", `\n`)) {
		t.Errorf("instructions missing from %s", body)
	}
}

// TestMCPConcurrentSessions: 50 sessions bound to 50 decks call at once; each only ever sees
// its own deck, service and badge.
func TestMCPConcurrentSessions(t *testing.T) {
	const n = 50
	s := startMCPStack(t, mcpStackOptions{})
	peer := startHTTPPeer(t)
	ctx := s.adminCtx()
	tok := s.token(backend.ScopeAgent)
	type sess struct {
		conn    *mcpConn
		deck    string
		service string
		badge   string
	}
	sessions := make([]sess, n)
	for i := range sessions {
		d, err := s.svc.CreateDeck(ctx, core.DeckInput{Name: fmt.Sprintf("deck-%02d", i)})
		if err != nil {
			t.Fatal(err)
		}
		sv, err := s.svc.CreateService(ctx, core.ServiceInput{Name: fmt.Sprintf("svc-%02d", i),
			Type: backend.ServiceRemote, URL: peer})
		if err != nil {
			t.Fatal(err)
		}
		if _, err := s.svc.LinkCard(ctx, core.LinkCardInput{CardRef: core.CardRef{Deck: d.ID,
			CardType: backend.CardService, CardID: sv.ID}}); err != nil {
			t.Fatal(err)
		}
		c := s.connect(t, tok, nil, "")
		var b core.Binding
		c.ok("bind_workspace", map[string]any{"workspaceRoot": "/shared/folder", "deckId": d.Name}, &b)
		sessions[i] = sess{conn: c, deck: d.ID, service: sv.Name, badge: b.Badge}
	}
	var wg sync.WaitGroup
	errs := make(chan error, n*8)
	for i := range sessions {
		wg.Add(1)
		go func(i int) {
			defer wg.Done()
			me, other := sessions[i], sessions[(i+1)%n]
			for round := 0; round < 4; round++ {
				if err := mcpCheckOwnDeck(me.conn, me.deck, me.service, me.badge); err != nil {
					errs <- fmt.Errorf("session %d: %w", i, err)
					return
				}
				msg := fmt.Sprintf("from %d round %d", i, round)
				res, err := me.conn.callErr("call_service_tool", map[string]any{"serviceId": me.service,
					"toolName": "echo", "arguments": map[string]any{"message": msg}})
				if err != nil || res.IsError || !strings.Contains(mcpText(res), msg) {
					errs <- fmt.Errorf("session %d echo: %v %v", i, err, res)
					return
				}
				res, err = me.conn.callErr("call_service_tool", map[string]any{"serviceId": other.service,
					"toolName": "echo", "arguments": map[string]any{"message": "x"}})
				if err != nil || !res.IsError || !strings.Contains(mcpText(res), "NOT_ON_BOUND_DECK") {
					errs <- fmt.Errorf("session %d reached another deck's service: %v %v", i, err, res)
					return
				}
			}
		}(i)
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
}

func mcpCheckOwnDeck(c *mcpConn, deckID, service, badge string) error {
	res, err := c.callErr("get_bound_deck", nil)
	if err != nil {
		return err
	}
	var d core.BoundDeck
	if err := json.Unmarshal([]byte(mcpText(res)), &d); err != nil {
		return err
	}
	if d.ID != deckID || len(d.Services) != 1 || d.Services[0].Name != service || d.Badge != badge ||
		!strings.HasSuffix(d.DisplaySummary, "⌘"+badge) {
		return fmt.Errorf("saw deck %s services %+v badge %s, want %s %s %s", d.ID, d.Services, d.Badge, deckID, service, badge)
	}
	return nil
}
