package tests

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/agent-deck/agent-deck/backend"
	"github.com/agent-deck/agent-deck/backend/core"
)

// mcpToolsWorld is a deck server with everything the tool tests touch: deck dev (the peer, a
// dead service, one behind auth, one with a 1 s timeout, a key, two playbooks, one depending on
// the key), deck other (its own peer service and playbook), and three sessions: agent and
// reader bound to dev, and an unbound agent.
type mcpToolsWorld struct {
	s                 *mcpStack
	dev, other        mcpFixture
	dead, guard, slow backend.ServiceCard
	keyUser           core.PlaybookResult
	agent, reader     *mcpConn
	unbound           *mcpConn
}

func newMCPToolsWorld(t *testing.T) *mcpToolsWorld {
	t.Helper()
	s := startMCPStack(t, mcpStackOptions{Profile: "legacy"})
	peer := startHTTPPeer(t)
	guarded := startHTTPPeer(t, "PEER_REQUIRE_AUTHORIZATION=Bearer right")
	w := &mcpToolsWorld{s: s, dev: s.seedDeck(t, "dev", peer), other: s.seedDeck(t, "other", peer)}
	ctx := s.adminCtx()
	var err error
	mk := func(in core.ServiceInput) backend.ServiceCard {
		t.Helper()
		card, err := s.svc.CreateService(ctx, in)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := s.svc.LinkCard(ctx, core.LinkCardInput{CardRef: core.CardRef{Deck: w.dev.Deck.ID,
			CardType: backend.CardService, CardID: card.ID}}); err != nil {
			t.Fatal(err)
		}
		return card
	}
	w.dead = mk(core.ServiceInput{Name: "dead", Type: backend.ServiceRemote, URL: "http://127.0.0.1:9/mcp",
		Transport: backend.TransportStreamableHTTP})
	w.guard = mk(core.ServiceInput{Name: "guarded", Type: backend.ServiceRemote, URL: guarded})
	w.slow = mk(core.ServiceInput{Name: "slow", Type: backend.ServiceRemote, URL: peer, TimeoutSeconds: 1})
	w.keyUser, err = s.svc.CreatePlaybook(ctx, backend.PlaybookInput{Title: "uses the key",
		Body: "Run with " + w.dev.Cred.ID, DependsOnCredentialIDs: []string{w.dev.Cred.ID}})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.svc.LinkCard(ctx, core.LinkCardInput{CardRef: core.CardRef{Deck: w.dev.Deck.ID,
		CardType: backend.CardPlaybook, CardID: w.keyUser.ID}}); err != nil {
		t.Fatal(err)
	}
	w.agent = s.connect(t, s.token(backend.ScopeAgent), nil, "")
	w.reader = s.connect(t, s.token(backend.ScopeAgentRead), nil, "")
	w.unbound = s.connect(t, s.token(backend.ScopeAgent), nil, "")
	for _, c := range []*mcpConn{w.agent, w.reader} {
		c.ok("bind_workspace", map[string]any{"workspaceRoot": "/w", "deckId": "dev"}, nil)
	}
	return w
}

// mcpErrCase is one call that must fail with a code; contains lists text the message or hint
// must carry (what the caller should have sent instead).
type mcpErrCase struct {
	name     string
	conn     func(w *mcpToolsWorld) *mcpConn
	tool     string
	args     map[string]any
	code     string
	contains []string
}

func mcpAgentConn(w *mcpToolsWorld) *mcpConn   { return w.agent }
func mcpReaderConn(w *mcpToolsWorld) *mcpConn  { return w.reader }
func mcpUnboundConn(w *mcpToolsWorld) *mcpConn { return w.unbound }

func mcpRunErrCases(t *testing.T, w *mcpToolsWorld, cases []mcpErrCase) {
	t.Helper()
	for _, tc := range cases {
		t.Run(tc.tool+"/"+tc.name, func(t *testing.T) {
			e := tc.conn(w).fails(tc.tool, tc.args)
			if e.Code != tc.code {
				t.Fatalf("code %s, want %s: %+v", e.Code, tc.code, e)
			}
			text := e.Message + " " + e.Hint
			for _, want := range tc.contains {
				if !strings.Contains(text, want) {
					t.Errorf("%q does not mention %q", text, want)
				}
			}
		})
	}
}

func TestMCPToolErrors(t *testing.T) {
	w := newMCPToolsWorld(t)
	devSvc, otherSvc := w.dev.Service, w.other.Service
	mcpRunErrCases(t, w, []mcpErrCase{
		{"missing workspace", mcpAgentConn, "bind_workspace", map[string]any{"deckId": "dev"}, "INVALID_ARGUMENT", []string{"workspaceRoot"}},
		{"unknown parameter", mcpAgentConn, "bind_workspace", map[string]any{"workspaceRoot": "/w", "deckId": "dev", "deck": "x"}, "INVALID_ARGUMENT", []string{`"deck"`, "workspaceRoot (string, required)"}},
		{"wrong type", mcpAgentConn, "bind_workspace", map[string]any{"workspaceRoot": "/w", "deckId": 5}, "INVALID_ARGUMENT", []string{"deckId", "string"}},
		{"unknown deck", mcpAgentConn, "bind_workspace", map[string]any{"workspaceRoot": "/w", "deckId": "nope"}, "NOT_FOUND", []string{"dev", "other"}},
		{"unknown deck", mcpAgentConn, "switch_bound_deck", map[string]any{"deckId": "nope"}, "NOT_FOUND", []string{"dev"}},
		{"missing deck", mcpAgentConn, "switch_bound_deck", nil, "INVALID_ARGUMENT", []string{"deckId"}},
		{"unknown parameter", mcpAgentConn, "get_session_binding", map[string]any{"x": 1}, "INVALID_ARGUMENT", []string{"takes no parameters"}},
		{"unknown parameter", mcpAgentConn, "get_decks", map[string]any{"x": 1}, "INVALID_ARGUMENT", nil},
		{"unbound", mcpUnboundConn, "get_bound_deck", nil, "NOT_BOUND", []string{"bind_workspace", "dev"}},
		{"unbound", mcpUnboundConn, "get_playbook", map[string]any{"playbook_id": "x"}, "NOT_BOUND", nil},
		{"other deck", mcpAgentConn, "get_playbook", map[string]any{"playbook_id": w.other.Playbook.ID}, "NOT_ON_BOUND_DECK", []string{w.dev.Playbook.ID}},
		{"missing id", mcpAgentConn, "get_playbook", nil, "INVALID_ARGUMENT", []string{"playbook_id"}},
		{"unknown", mcpAgentConn, "update_playbook", map[string]any{"playbook_id": "pb_nope", "body": "x"}, "NOT_ON_BOUND_DECK", []string{w.dev.Playbook.ID}},
		{"other deck", mcpAgentConn, "update_playbook", map[string]any{"playbook_id": w.other.Playbook.ID, "body": "x"}, "NOT_ON_BOUND_DECK", []string{w.dev.Playbook.ID}},
		{"bad triggers", mcpAgentConn, "update_playbook", map[string]any{"playbook_id": w.dev.Playbook.ID, "triggers": "one"}, "INVALID_ARGUMENT", []string{"array of strings"}},
		{"read scope", mcpReaderConn, "update_playbook", map[string]any{"playbook_id": w.dev.Playbook.ID, "body": "x"}, "FORBIDDEN", []string{"agent:read"}},
		{"unbound", mcpUnboundConn, "list_service_tools", map[string]any{"serviceId": devSvc.ID}, "NOT_BOUND", nil},
		{"other deck", mcpAgentConn, "list_service_tools", map[string]any{"serviceId": otherSvc.ID}, "NOT_ON_BOUND_DECK", []string{devSvc.Name, "manage_deck_card"}},
		{"unreachable", mcpAgentConn, "list_service_tools", map[string]any{"serviceId": "dead"}, "DOWNSTREAM_UNREACHABLE", nil},
		{"auth", mcpAgentConn, "list_service_tools", map[string]any{"serviceId": "guarded"}, "DOWNSTREAM_AUTH", nil},
		{"neither service nor query", mcpAgentConn, "list_service_tools", nil, "INVALID_ARGUMENT", []string{"serviceId", "query"}},
		{"empty query", mcpAgentConn, "list_service_tools", map[string]any{"query": "  "}, "INVALID_ARGUMENT", []string{"query"}},
		{"limit out of range", mcpAgentConn, "list_service_tools", map[string]any{"query": "echo", "limit": 99}, "INVALID_ARGUMENT", []string{"limit", "20"}},
		{"unbound search", mcpUnboundConn, "list_service_tools", map[string]any{"query": "echo"}, "NOT_BOUND", []string{"bind_workspace"}},
		{"unbound", mcpUnboundConn, "call_service_tool", map[string]any{"serviceId": devSvc.ID, "toolName": "echo"}, "NOT_BOUND", nil},
		{"other deck", mcpAgentConn, "call_service_tool", map[string]any{"serviceId": otherSvc.Name, "toolName": "echo"}, "NOT_ON_BOUND_DECK", []string{devSvc.Name}},
		{"unknown tool", mcpAgentConn, "call_service_tool", map[string]any{"serviceId": devSvc.ID, "toolName": "ech"}, "NOT_FOUND", []string{"echo"}},
		{"schema", mcpAgentConn, "call_service_tool", map[string]any{"serviceId": devSvc.ID, "toolName": "echo", "arguments": map[string]any{"count": 1}}, "INVALID_ARGUMENT", []string{"message"}},
		{"arguments not an object", mcpAgentConn, "call_service_tool", map[string]any{"serviceId": devSvc.ID, "toolName": "echo", "arguments": "[1,2]"}, "INVALID_ARGUMENT", []string{"arguments"}},
		{"unreachable", mcpAgentConn, "call_service_tool", map[string]any{"serviceId": "dead", "toolName": "echo"}, "DOWNSTREAM_UNREACHABLE", nil},
		{"auth", mcpAgentConn, "call_service_tool", map[string]any{"serviceId": "guarded", "toolName": "echo"}, "DOWNSTREAM_AUTH", nil},
		{"timeout", mcpAgentConn, "call_service_tool", map[string]any{"serviceId": "slow", "toolName": "sleep", "arguments": map[string]any{"ms": 3000}}, "DOWNSTREAM_TIMEOUT", nil},
		{"read scope, write tool", mcpReaderConn, "call_service_tool", map[string]any{"serviceId": devSvc.ID, "toolName": "fail"}, "FORBIDDEN", nil},
		{"read scope, unannotated tool", mcpReaderConn, "call_service_tool", map[string]any{"serviceId": devSvc.ID, "toolName": "write_note"}, "FORBIDDEN", nil},
		{"bad action", mcpAgentConn, "manage_deck_card", map[string]any{"action": "add", "card_type": "service", "card_id": "x"}, "INVALID_ARGUMENT", []string{"link", "unlink", "reorder"}},
		{"bad card type", mcpAgentConn, "manage_deck_card", map[string]any{"action": "link", "card_type": "server", "card_id": "x"}, "INVALID_ARGUMENT", []string{"service", "credential", "playbook"}},
		{"missing card", mcpAgentConn, "manage_deck_card", map[string]any{"action": "link", "card_type": "service"}, "INVALID_ARGUMENT", []string{"card_id"}},
		{"unknown card", mcpAgentConn, "manage_deck_card", map[string]any{"action": "link", "card_type": "service", "card_id": "nope"}, "NOT_FOUND", []string{otherSvc.Name}},
		{"not on deck", mcpAgentConn, "manage_deck_card", map[string]any{"action": "unlink", "card_type": "service", "card_id": otherSvc.ID}, "NOT_ON_BOUND_DECK", []string{devSvc.Name}},
		{"incomplete order", mcpAgentConn, "manage_deck_card", map[string]any{"action": "reorder", "card_type": "service", "ordered_card_ids": []string{devSvc.ID}}, "INVALID_ARGUMENT", []string{w.dead.ID}},
		{"read scope", mcpReaderConn, "manage_deck_card", map[string]any{"action": "link", "card_type": "service", "card_id": otherSvc.ID}, "FORBIDDEN", nil},
		{"unbound", mcpUnboundConn, "manage_deck_card", map[string]any{"action": "link", "card_type": "service", "card_id": otherSvc.ID}, "NOT_BOUND", nil},
		{"bad card type", mcpAgentConn, "list_collection", map[string]any{"card_type": "key"}, "INVALID_ARGUMENT", []string{"credential"}},
		{"duplicate", mcpAgentConn, "create_deck", map[string]any{"name": "DEV"}, "CONFLICT", nil},
		{"empty", mcpAgentConn, "create_deck", map[string]any{"name": " "}, "INVALID_ARGUMENT", []string{"name"}},
		{"read scope", mcpReaderConn, "create_deck", map[string]any{"name": "new"}, "FORBIDDEN", nil},
		{"duplicate", mcpAgentConn, "register_service", map[string]any{"name": devSvc.Name, "type": "mcp", "url": "http://127.0.0.1:9/mcp"}, "CONFLICT", nil},
		{"no url", mcpAgentConn, "register_service", map[string]any{"name": "x", "type": "mcp"}, "INVALID_ARGUMENT", []string{"url"}},
		{"bad type", mcpAgentConn, "register_service", map[string]any{"name": "x", "type": "http"}, "INVALID_ARGUMENT", []string{"mcp", "local-mcp"}},
		{"local command needs admin", mcpAgentConn, "register_service", map[string]any{"name": "x", "type": "local-mcp", "localCommand": "/bin/true"}, "FORBIDDEN", []string{"admin"}},
		{"credential needs admin", mcpAgentConn, "register_service", map[string]any{"name": "x", "type": "mcp", "url": "http://127.0.0.1:9/mcp", "credentialId": w.dev.Cred.ID}, "FORBIDDEN", []string{"admin"}},
		{"unbound but asked to link", mcpUnboundConn, "register_service", map[string]any{"name": "x", "type": "mcp", "url": "http://127.0.0.1:9/mcp", "add_to_bound_deck": true}, "NOT_BOUND", nil},
		{"read scope", mcpReaderConn, "register_service", map[string]any{"name": "x", "type": "mcp", "url": "http://127.0.0.1:9/mcp"}, "FORBIDDEN", nil},
		{"unknown", mcpAgentConn, "update_service", map[string]any{"service_id": "nope", "description": "x"}, "NOT_FOUND", []string{devSvc.Name}},
		{"credential needs admin", mcpAgentConn, "update_service", map[string]any{"service_id": devSvc.ID, "credentialId": w.dev.Cred.ID}, "FORBIDDEN", nil},
		{"bad url", mcpAgentConn, "update_service", map[string]any{"service_id": devSvc.ID, "url": "ftp://x"}, "INVALID_ARGUMENT", []string{"url"}},
		{"unknown", mcpAgentConn, "update_service_tool_settings", map[string]any{"service_id": "nope", "disabled_tools": []string{}}, "NOT_FOUND", nil},
		{"read scope", mcpReaderConn, "update_service_tool_settings", map[string]any{"service_id": devSvc.ID, "disabled_tools": []string{}}, "FORBIDDEN", nil},
		{"duplicate", mcpAgentConn, "register_playbook", map[string]any{"title": w.dev.Playbook.Title, "body": "x"}, "CONFLICT", nil},
		{"missing body", mcpAgentConn, "register_playbook", map[string]any{"title": "x"}, "INVALID_ARGUMENT", []string{"body"}},
		{"unbound but asked to link", mcpUnboundConn, "register_playbook", map[string]any{"title": "x", "body": "y", "add_to_bound_deck": true}, "NOT_BOUND", nil},
		{"read scope", mcpReaderConn, "register_playbook", map[string]any{"title": "x", "body": "y"}, "FORBIDDEN", nil},
		{"alias unknown card", mcpAgentConn, "add_service_to_bound_deck", map[string]any{"service_id": "nope"}, "NOT_FOUND", nil},
		{"alias not on deck", mcpAgentConn, "remove_playbook_from_bound_deck", map[string]any{"playbook_id": w.other.Playbook.ID}, "NOT_ON_BOUND_DECK", nil},
	})
}

func TestMCPToolsHappyPaths(t *testing.T) {
	w := newMCPToolsWorld(t)
	a, dev := w.agent, w.dev

	t.Run("get_playbook by title and id", func(t *testing.T) {
		for _, ref := range []string{dev.Playbook.ID, dev.Playbook.Title} {
			var p backend.Playbook
			a.ok("get_playbook", map[string]any{"playbook_id": ref}, &p)
			if p.ID != dev.Playbook.ID || p.Body != dev.Playbook.Body {
				t.Errorf("get_playbook(%q) = %+v", ref, p)
			}
		}
	})
	t.Run("update_playbook", func(t *testing.T) {
		var p core.PlaybookResult
		a.ok("update_playbook", map[string]any{"playbook_id": dev.Playbook.ID, "body": "# Release v2",
			"triggers": []string{"ship it", "release dev"}}, &p)
		if p.Body != "# Release v2" || len(p.Triggers) != 2 || p.Title != dev.Playbook.Title {
			t.Errorf("update_playbook = %+v", p)
		}
		versions, err := w.s.svc.ListPlaybookVersions(w.s.adminCtx(), dev.Playbook.ID)
		if err != nil || len(versions) != 1 || versions[0].Actor != backend.ActorAgent {
			t.Errorf("versions after an agent update = %+v, %v", versions, err)
		}
	})
	t.Run("list_service_tools", func(t *testing.T) {
		for _, ref := range []string{dev.Service.ID, dev.Service.Name} {
			var tools []core.ToolInfo
			a.ok("list_service_tools", map[string]any{"serviceId": ref}, &tools)
			if !mcpHasTool(tools, "echo") {
				t.Errorf("list_service_tools(%q) has no echo: %+v", ref, tools)
			}
		}
	})
	t.Run("call_service_tool passes the result through", func(t *testing.T) {
		for name, args := range map[string]any{
			"object": map[string]any{"message": "hi"},
			"string": `{"message":"hi"}`,
		} {
			res := a.call("call_service_tool", map[string]any{"serviceId": dev.Service.ID, "toolName": "echo", "arguments": args})
			if res.IsError || mcpText(res) != `{"message":"hi"}` {
				t.Errorf("%s arguments: %+v", name, res)
			}
			if sc, _ := json.Marshal(res.StructuredContent); string(sc) != `{"message":"hi"}` {
				t.Errorf("%s arguments: structuredContent %s", name, sc)
			}
		}
	})
	t.Run("call_service_tool keeps the downstream isError", func(t *testing.T) {
		res := a.call("call_service_tool", map[string]any{"serviceId": dev.Service.ID, "toolName": "fail",
			"arguments": map[string]any{"message": "boom"}})
		if !res.IsError || mcpText(res) != "boom" {
			t.Errorf("fail: %+v", res)
		}
	})
	t.Run("call_service_tool read scope reaches read-only tools", func(t *testing.T) {
		res := w.reader.call("call_service_tool", map[string]any{"serviceId": dev.Service.ID, "toolName": "echo",
			"arguments": map[string]any{"message": "ro"}})
		if res.IsError {
			t.Errorf("reader echo: %s", mcpText(res))
		}
	})
	t.Run("update_service_tool_settings hides a tool", func(t *testing.T) {
		var card backend.ServiceCard
		a.ok("update_service_tool_settings", map[string]any{"service_id": dev.Service.ID, "disabled_tools": []string{"big"}}, &card)
		if len(card.DisabledTools) != 1 || card.DisabledTools[0] != "big" {
			t.Errorf("disabled = %v", card.DisabledTools)
		}
		e := a.fails("call_service_tool", map[string]any{"serviceId": dev.Service.ID, "toolName": "big",
			"arguments": map[string]any{"bytes": 1}})
		if e.Code != "TOOL_DISABLED" {
			t.Errorf("disabled tool call: %+v", e)
		}
		var tools []core.ToolInfo
		a.ok("list_service_tools", map[string]any{"serviceId": dev.Service.ID}, &tools)
		if mcpHasTool(tools, "big") {
			t.Error("a disabled tool is still listed to agents")
		}
		a.ok("update_service_tool_settings", map[string]any{"service_id": dev.Service.ID, "disabled_tools": []string{}}, nil)
	})
	t.Run("manage_deck_card", func(t *testing.T) {
		var res core.CardsResult
		a.ok("manage_deck_card", map[string]any{"action": "link", "card_type": "service", "card_id": w.other.Service.Name, "position": 0}, &res)
		if res.CardIDs[0] != w.other.Service.ID {
			t.Errorf("link at 0: %v", res.CardIDs)
		}
		order := append(append([]string{}, res.CardIDs[1:]...), res.CardIDs[0])
		a.ok("manage_deck_card", map[string]any{"action": "reorder", "card_type": "service", "ordered_card_ids": order}, &res)
		if strings.Join(res.CardIDs, ",") != strings.Join(order, ",") {
			t.Errorf("reorder: %v, want %v", res.CardIDs, order)
		}
		a.ok("manage_deck_card", map[string]any{"action": "unlink", "card_type": "service", "card_id": w.other.Service.ID}, &res)
		a.ok("manage_deck_card", map[string]any{"action": "unlink", "card_type": "credential", "card_id": dev.Cred.ID}, &res)
		if len(res.Warnings) != 1 || res.Warnings[0].Code != "PLAYBOOK_DEPENDENCY" || res.Warnings[0].Playbooks[0] != w.keyUser.ID {
			t.Errorf("unlinking a key a playbook needs: warnings %+v", res.Warnings)
		}
		a.ok("manage_deck_card", map[string]any{"action": "link", "card_type": "credential", "card_id": dev.Cred.Label}, nil)
	})
	t.Run("list_collection", func(t *testing.T) {
		res := a.call("list_collection", nil)
		text := mcpText(res)
		if res.IsError || strings.Contains(text, `"body"`) || strings.Contains(text, "secret-") {
			t.Fatalf("list_collection leaks bodies or secrets: %s", text)
		}
		var all struct {
			Services    []core.DeckService        `json:"services"`
			Credentials []backend.Credential      `json:"credentials"`
			Playbooks   []backend.PlaybookSummary `json:"playbooks"`
		}
		_ = json.Unmarshal([]byte(text), &all)
		if len(all.Services) != 5 || len(all.Credentials) != 2 || len(all.Playbooks) != 3 {
			t.Errorf("collection counts %d/%d/%d", len(all.Services), len(all.Credentials), len(all.Playbooks))
		}
		var creds map[string]json.RawMessage
		a.ok("list_collection", map[string]any{"card_type": "credential"}, &creds)
		if len(creds) != 1 || creds["credentials"] == nil {
			t.Errorf("card_type=credential gave %v", creds)
		}
	})
	t.Run("create_deck", func(t *testing.T) {
		var d backend.Deck
		a.ok("create_deck", map[string]any{"name": "fresh"}, &d)
		if d.Name != "fresh" || d.ID == "" {
			t.Errorf("create_deck = %+v", d)
		}
	})
	t.Run("register_service links to the bound deck", func(t *testing.T) {
		var r core.RegisteredService
		a.ok("register_service", map[string]any{"name": "new-peer", "type": "mcp", "url": dev.Service.URL,
			"description": "added by an agent", "headers": map[string]string{"X-Team": "a"}, "position": 0}, &r)
		if r.LinkedDeckID != dev.Deck.ID || r.Name != "new-peer" {
			t.Errorf("register_service = %+v", r)
		}
		var deck core.BoundDeck
		a.ok("get_bound_deck", nil, &deck)
		if deck.Services[0].ID != r.ID {
			t.Errorf("the new service is not first on the deck: %+v", deck.Services)
		}
		r = core.RegisteredService{}
		a.ok("register_service", map[string]any{"name": "loose", "type": "mcp", "url": dev.Service.URL,
			"add_to_bound_deck": false}, &r)
		if r.LinkedDeckID != "" {
			t.Errorf("add_to_bound_deck=false linked it: %+v", r)
		}
		r = core.RegisteredService{}
		w.unbound.ok("register_service", map[string]any{"name": "loose2", "type": "mcp", "url": dev.Service.URL}, &r)
		if r.LinkedDeckID != "" {
			t.Errorf("an unbound session linked it: %+v", r)
		}
	})
	t.Run("update_service", func(t *testing.T) {
		var card backend.ServiceCard
		a.ok("update_service", map[string]any{"service_id": "new-peer", "description": "changed"}, &card)
		if card.Description != "changed" {
			t.Errorf("update_service = %+v", card)
		}
	})
	t.Run("register_playbook", func(t *testing.T) {
		var r core.RegisteredPlaybook
		a.ok("register_playbook", map[string]any{"title": "Deploy dev", "body": "Use " + dev.Cred.ID,
			"triggers": []string{"deploy dev"}}, &r)
		if r.LinkedDeckID != dev.Deck.ID || r.ID != "pb_deploy_dev" && r.ID == "" || len(r.DependsOnCredentialIDs) != 1 {
			t.Errorf("register_playbook = %+v", r)
		}
		a.ok("get_playbook", map[string]any{"playbook_id": r.ID}, nil)
	})
}

func TestMCPAliases(t *testing.T) {
	w := newMCPToolsWorld(t)
	a := w.agent
	var canonical, alias core.BoundDeck
	a.ok("get_bound_deck", nil, &canonical)
	a.ok("get_active_deck", nil, &alias)
	if alias.ID != canonical.ID || alias.DisplaySummary != canonical.DisplaySummary {
		t.Errorf("get_active_deck differs from get_bound_deck")
	}
	for _, tc := range []struct {
		tool string
		n    int
	}{
		{"list_bound_deck_services", len(canonical.Services)},
		{"list_active_deck_services", len(canonical.Services)},
		{"list_bound_deck_credentials", len(canonical.Credentials)},
		{"list_active_deck_credentials", len(canonical.Credentials)},
		{"list_playbooks", len(canonical.Playbooks)},
	} {
		var items []json.RawMessage
		a.ok(tc.tool, nil, &items)
		if len(items) != tc.n {
			t.Errorf("%s: %d items, want %d", tc.tool, len(items), tc.n)
		}
	}
	for _, tc := range []struct{ tool, key string }{
		{"list_collection_services", "services"}, {"list_collection_credentials", "credentials"},
		{"list_collection_playbooks", "playbooks"},
	} {
		var got map[string]json.RawMessage
		a.ok(tc.tool, nil, &got)
		if len(got) != 1 || got[tc.key] == nil {
			t.Errorf("%s = %v", tc.tool, got)
		}
	}
	for _, tc := range []struct{ typ, id string }{
		{"service", w.other.Service.ID}, {"credential", w.other.Cred.ID}, {"playbook", w.other.Playbook.ID},
	} {
		var res core.CardsResult
		a.ok("add_"+tc.typ+"_to_bound_deck", map[string]any{tc.typ + "_id": tc.id, "position": 0}, &res)
		if res.CardIDs[0] != tc.id || string(res.CardType) != tc.typ {
			t.Errorf("add_%s_to_bound_deck: %+v", tc.typ, res)
		}
		a.ok("remove_"+tc.typ+"_from_bound_deck", map[string]any{tc.typ + "_id": tc.id}, &res)
		for _, id := range res.CardIDs {
			if id == tc.id {
				t.Errorf("remove_%s_from_bound_deck left it: %+v", tc.typ, res)
			}
		}
	}
}

func mcpHasTool(tools []core.ToolInfo, name string) bool {
	for _, tl := range tools {
		if tl.Name == name {
			return true
		}
	}
	return false
}
