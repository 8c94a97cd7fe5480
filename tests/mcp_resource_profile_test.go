package tests

import (
	"encoding/json"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/client/transport"
	"github.com/mark3labs/mcp-go/mcp"

	"github.com/agent-deck/agent-deck/backend"
	"github.com/agent-deck/agent-deck/mcptools"
)

// resourceParityStep is one operation done through a canonical tool on a standard server and
// through its resource action on a resource server, identically seeded: the result texts
// (errors included) and the database states must match.
type resourceParityStep struct {
	name      string
	reader    bool // run on the agent:read sessions
	tool      string
	args      map[string]any
	resource  string
	action    map[string]any
	wantError bool
}

// resourceResultText is a result made comparable across the two servers: JSON text with
// generated ids named, the bound session's badge dropped (it is per session), and the words
// that differ by design dropped: the profile a session reports and the hint of an error, which
// names the tools of the session's own profile (TestMCPHintsSpeakTheSessionsProfile).
func resourceResultText(t *testing.T, s *mcpStack, res *mcp.CallToolResult) any {
	t.Helper()
	b, err := json.Marshal(res)
	if err != nil {
		t.Fatal(err)
	}
	var whole map[string]any
	if err := json.Unmarshal(b, &whole); err != nil {
		t.Fatal(err)
	}
	// Generated ids differ between the two servers; messages list them.
	if text := resourceUUIDRE.ReplaceAllString(mcpText(res), "<id>"); json.Valid([]byte(text)) {
		var v any
		_ = json.Unmarshal([]byte(text), &v)
		if m, ok := v.(map[string]any); ok {
			delete(m, "badge")
			delete(m, "display_summary")
			delete(m, "profile")
			if e, ok := m["error"].(map[string]any); ok {
				delete(e, "hint")
			}
			if sess, ok := m["session"].(map[string]any); ok {
				delete(sess, "id")
			}
		}
		whole["content"] = v
	}
	return mcpNormalize(t, s, whole)
}

var resourceUUIDRE = regexp.MustCompile(`[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}`)

func TestResourceProfileParity(t *testing.T) {
	peer := startHTTPPeer(t)
	canon := startMCPStack(t, mcpStackOptions{Profile: "standard"})
	res := startMCPStack(t, mcpStackOptions{Profile: "resource"})
	for _, s := range []*mcpStack{canon, res} {
		s.seedDeck(t, "dev", peer)
		s.seedDeck(t, "other", peer)
	}
	canonAgent := canon.connect(t, canon.token(backend.ScopeAgent), nil, "")
	resAgent := res.connect(t, res.token(backend.ScopeAgent), nil, "")
	canonReader := canon.connect(t, canon.token(backend.ScopeAgentRead), nil, "")
	resReader := res.connect(t, res.token(backend.ScopeAgentRead), nil, "")
	canonReader.ok("bind_workspace", map[string]any{"workspaceRoot": "/r", "deckId": "dev"}, nil)
	resReader.ok("session", map[string]any{"action": "bind", "id": "dev", "fields": map[string]any{"workspaceRoot": "/r"}}, nil)

	act := func(action, id string, fields map[string]any) map[string]any {
		m := map[string]any{"action": action}
		if id != "" {
			m["id"] = id
		}
		if fields != nil {
			m["fields"] = fields
		}
		return m
	}
	steps := []resourceParityStep{
		{name: "session get unbound", tool: "get_session_binding", resource: "session", action: act("get", "", nil)},
		{name: "session bind", tool: "bind_workspace", args: map[string]any{"workspaceRoot": "/w", "deckId": "dev"},
			resource: "session", action: act("bind", "dev", map[string]any{"workspaceRoot": "/w"})},
		{name: "session bind unknown deck", tool: "bind_workspace", args: map[string]any{"workspaceRoot": "/w", "deckId": "nope"},
			resource: "session", action: act("bind", "nope", map[string]any{"workspaceRoot": "/w"}), wantError: true},
		{name: "session get", tool: "get_session_binding", resource: "session", action: act("get", "", nil)},
		{name: "deck list", tool: "get_decks", resource: "deck", action: act("list", "", nil)},
		{name: "deck get", tool: "get_bound_deck", args: map[string]any{"card_type": "service"},
			resource: "deck", action: act("get", "", map[string]any{"card_type": "service"})},
		{name: "deck collection", tool: "list_collection", args: map[string]any{"card_type": "playbook"},
			resource: "deck", action: act("collection", "", map[string]any{"card_type": "playbook"})},
		{name: "deck create", tool: "create_deck", args: map[string]any{"name": "beta"},
			resource: "deck", action: act("create", "", map[string]any{"name": "beta"})},
		{name: "deck create taken", tool: "create_deck", args: map[string]any{"name": "beta"},
			resource: "deck", action: act("create", "", map[string]any{"name": "beta"}), wantError: true},
		{name: "deck link", tool: "manage_deck_card",
			args:     map[string]any{"action": "link", "card_type": "service", "card_id": "other-peer", "position": 0},
			resource: "deck", action: act("link", "", map[string]any{"card_type": "service", "card_id": "other-peer", "position": 0})},
		{name: "deck link unknown card", tool: "manage_deck_card",
			args:     map[string]any{"action": "link", "card_type": "service", "card_id": "ghost"},
			resource: "deck", action: act("link", "", map[string]any{"card_type": "service", "card_id": "ghost"}), wantError: true},
		{name: "deck reorder", tool: "manage_deck_card",
			args:     map[string]any{"action": "reorder", "card_type": "service", "ordered_card_ids": []string{"dev-peer", "other-peer"}},
			resource: "deck", action: act("reorder", "", map[string]any{"card_type": "service", "ordered_card_ids": []string{"dev-peer", "other-peer"}})},
		{name: "deck unlink", tool: "manage_deck_card",
			args:     map[string]any{"action": "unlink", "card_type": "credential", "card_id": "cred_dev_key"},
			resource: "deck", action: act("unlink", "", map[string]any{"card_type": "credential", "card_id": "cred_dev_key"})},
		{name: "service tools", tool: "list_service_tools", args: map[string]any{"serviceId": "dev-peer"},
			resource: "service", action: act("tools", "dev-peer", nil)},
		{name: "service call", tool: "call_service_tool",
			args:     map[string]any{"serviceId": "dev-peer", "toolName": "echo", "arguments": map[string]any{"message": "same"}},
			resource: "service", action: act("call", "dev-peer", map[string]any{"toolName": "echo", "arguments": map[string]any{"message": "same"}})},
		{name: "service call failing tool", tool: "call_service_tool",
			args:     map[string]any{"serviceId": "dev-peer", "toolName": "fail", "arguments": map[string]any{}},
			resource: "service", action: act("call", "dev-peer", map[string]any{"toolName": "fail", "arguments": map[string]any{}}), wantError: true},
		{name: "service call unknown service", tool: "call_service_tool",
			args:     map[string]any{"serviceId": "ghost", "toolName": "echo"},
			resource: "service", action: act("call", "ghost", map[string]any{"toolName": "echo"}), wantError: true},
		{name: "service register", tool: "register_service",
			args:     map[string]any{"name": "third", "type": "mcp", "url": peer, "description": "d"},
			resource: "service", action: act("register", "", map[string]any{"name": "third", "type": "mcp", "url": peer, "description": "d"})},
		{name: "service update", tool: "update_service",
			args:     map[string]any{"service_id": "dev-peer", "description": "changed", "headers": map[string]string{"X-A": "1"}},
			resource: "service", action: act("update", "dev-peer", map[string]any{"description": "changed", "headers": map[string]string{"X-A": "1"}})},
		{name: "service disable tools", tool: "update_service_tool_settings",
			args:     map[string]any{"service_id": "dev-peer", "disabled_tools": []string{"big", "crash"}},
			resource: "service", action: act("disable_tools", "dev-peer", map[string]any{"disabled_tools": []string{"big", "crash"}})},
		{name: "playbook get", tool: "get_playbook", args: map[string]any{"playbook_id": "pb_dev_release"},
			resource: "playbook", action: act("get", "pb_dev_release", nil)},
		{name: "playbook get unknown", tool: "get_playbook", args: map[string]any{"playbook_id": "pb_ghost"},
			resource: "playbook", action: act("get", "pb_ghost", nil), wantError: true},
		{name: "playbook register", tool: "register_playbook",
			args:     map[string]any{"title": "Ship third", "body": "uses third", "triggers": []string{"ship third"}},
			resource: "playbook", action: act("register", "", map[string]any{"title": "Ship third", "body": "uses third", "triggers": []string{"ship third"}})},
		{name: "playbook update", tool: "update_playbook",
			args:     map[string]any{"playbook_id": "pb_dev_release", "body": "v2", "triggers": []string{"ship dev"}},
			resource: "playbook", action: act("update", "pb_dev_release", map[string]any{"body": "v2", "triggers": []string{"ship dev"}})},
		{name: "playbook propose", tool: "propose_playbook_patch",
			args: map[string]any{"kind": "update", "playbook_id": "pb_dev_release", "rationale": "a step was missing",
				"ops": []any{map[string]any{"op": "add_item", "section": "Checks", "text": "run the tests"}}},
			resource: "playbook", action: act("propose", "pb_dev_release", map[string]any{"kind": "update", "rationale": "a step was missing",
				"ops": []any{map[string]any{"op": "add_item", "section": "Checks", "text": "run the tests"}}})},
		{name: "playbook propose that does not apply", tool: "propose_playbook_patch",
			args: map[string]any{"kind": "update", "playbook_id": "pb_dev_release", "rationale": "r",
				"ops": []any{map[string]any{"op": "remove_item", "section": "Nowhere", "anchor": "x"}}},
			resource: "playbook", action: act("propose", "pb_dev_release", map[string]any{"kind": "update", "rationale": "r",
				"ops": []any{map[string]any{"op": "remove_item", "section": "Nowhere", "anchor": "x"}}}), wantError: true},
		{name: "session switch", tool: "switch_bound_deck", args: map[string]any{"deckId": "other"},
			resource: "session", action: act("switch", "other", nil)},
		{name: "reader deck get", reader: true, tool: "get_bound_deck",
			resource: "deck", action: act("get", "", nil)},
		{name: "reader service call", reader: true, tool: "call_service_tool",
			args:     map[string]any{"serviceId": "dev-peer", "toolName": "echo", "arguments": map[string]any{"message": "r"}},
			resource: "service", action: act("call", "dev-peer", map[string]any{"toolName": "echo", "arguments": map[string]any{"message": "r"}})},
		{name: "reader write refused", reader: true, tool: "create_deck", args: map[string]any{"name": "gamma"},
			resource: "deck", action: act("create", "", map[string]any{"name": "gamma"}), wantError: true},
		{name: "reader playbook update refused", reader: true, tool: "update_playbook",
			args:     map[string]any{"playbook_id": "pb_dev_release", "body": "v3"},
			resource: "playbook", action: act("update", "pb_dev_release", map[string]any{"body": "v3"}), wantError: true},
	}
	for _, st := range steps {
		t.Run(st.name, func(t *testing.T) {
			ca, ra := canonAgent, resAgent
			if st.reader {
				ca, ra = canonReader, resReader
			}
			want := ca.call(st.tool, st.args)
			got := ra.call(st.resource, st.action)
			if want.IsError != st.wantError || got.IsError != st.wantError {
				t.Fatalf("isError: canonical %v (%s), resource %v (%s), want %v", want.IsError, mcpText(want),
					got.IsError, mcpText(got), st.wantError)
			}
			if diff := cmp.Diff(resourceResultText(t, canon, want), resourceResultText(t, res, got)); diff != "" {
				t.Errorf("results differ (-%s +%s %s):\n%s", st.tool, st.resource, st.action["action"], diff)
			}
			if diff := cmp.Diff(mcpNormalize(t, canon, mcpSnapshotAll(t, canon)), mcpNormalize(t, res, mcpSnapshotAll(t, res))); diff != "" {
				t.Errorf("database states differ (-canonical +resource):\n%s", diff)
			}
		})
	}
}

// TestResourceProfileTeaches: requiredness per action, unknown actions and unknown fields are
// refused with what is expected, before anything runs; agent:read lists only read actions.
func TestResourceProfileTeaches(t *testing.T) {
	peer := startHTTPPeer(t)
	s := startMCPStack(t, mcpStackOptions{Profile: "resource"})
	s.seedDeck(t, "dev", peer)
	agent := s.connect(t, s.token(backend.ScopeAgent), nil, "")
	agent.ok("session", map[string]any{"action": "bind", "id": "dev", "fields": map[string]any{"workspaceRoot": "/w"}}, nil)
	before := mcpNormalize(t, s, mcpSnapshotAll(t, s))
	tests := []struct {
		name, tool string
		args       map[string]any
		want       string
	}{
		{"link needs card fields", "deck", map[string]any{"action": "link"},
			`deck: action "link" needs card_type and card_id`},
		{"unknown action lists the valid ones", "service", map[string]any{"action": "delete", "id": "dev-peer"},
			`service: unknown action "delete" — it has: tools, call, register, update, disable_tools`},
		{"get needs id", "playbook", map[string]any{"action": "get"}, `playbook: action "get" needs id`},
		{"unknown field lists the accepted ones", "deck",
			map[string]any{"action": "create", "fields": map[string]any{"name": "x", "vendor": "y"}},
			`deck: unknown field "vendor" for action "create" — it accepts: name`},
		{"id where none is taken", "deck", map[string]any{"action": "list", "id": "dev"},
			`deck: action "list" takes no id`},
		{"field of the wrong type", "deck",
			map[string]any{"action": "link", "fields": map[string]any{"card_type": "service", "card_id": "x", "position": "first"}},
			`parameter "position" must be`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e := agent.fails(tt.tool, tt.args)
			if e.Code != string(backend.CodeInvalidArgument) || !strings.Contains(e.Message, tt.want) {
				t.Errorf("error %s %q, want INVALID_ARGUMENT containing %q", e.Code, e.Message, tt.want)
			}
		})
	}
	if diff := cmp.Diff(before, mcpNormalize(t, s, mcpSnapshotAll(t, s))); diff != "" {
		t.Errorf("a refused call changed the database:\n%s", diff)
	}

	reader := s.connect(t, s.token(backend.ScopeAgentRead), nil, "")
	ctx := t.Context()
	list, err := reader.c.ListTools(ctx, mcp.ListToolsRequest{})
	if err != nil {
		t.Fatal(err)
	}
	enums := map[string][]string{}
	for _, tl := range list.Tools {
		var schema struct {
			InputSchema struct {
				Properties struct {
					Action struct {
						Enum []string `json:"enum"`
					} `json:"action"`
				} `json:"properties"`
			} `json:"inputSchema"`
		}
		b, _ := json.Marshal(tl)
		if err := json.Unmarshal(b, &schema); err != nil {
			t.Fatal(err)
		}
		enums[tl.Name] = schema.InputSchema.Properties.Action.Enum
	}
	want := map[string][]string{"session": {"bind", "switch", "get"}, "deck": {"list", "get", "collection"},
		"service": {"tools", "call"}, "playbook": {"get"}}
	if diff := cmp.Diff(want, enums); diff != "" {
		t.Errorf("agent:read action enums (-want +got):\n%s", diff)
	}
	if names := agent.toolNames(); !slices.Equal(names, []string{"deck", "playbook", "service", "session"}) {
		t.Errorf("agent tools = %v", names)
	}
}

// TestResourceProfileInstructions: initialize on the resource profile (the server's, or asked
// for on a standard server) tells the shorter hot path that names session action bind.
func TestResourceProfileInstructions(t *testing.T) {
	s := startMCPStack(t, mcpStackOptions{Profile: "standard"})
	tok := s.token(backend.ScopeAgent)
	for _, tt := range []struct{ name, query, want string }{
		{"standard", "", mcptools.Instructions},
		{"asked for resource", "?profile=resource", mcptools.ResourceInstructions},
	} {
		t.Run(tt.name, func(t *testing.T) {
			tr, err := transport.NewStreamableHTTP(s.URL+"/mcp"+tt.query,
				transport.WithHTTPHeaders(map[string]string{"Authorization": "Bearer " + tok}))
			if err != nil {
				t.Fatal(err)
			}
			c := client.NewClient(tr)
			t.Cleanup(func() { _ = c.Close() })
			if err := c.Start(t.Context()); err != nil {
				t.Fatal(err)
			}
			req := mcp.InitializeRequest{}
			req.Params.ClientInfo = mcp.Implementation{Name: "agent-deck-tests", Version: "1"}
			res, err := c.Initialize(t.Context(), req)
			if err != nil {
				t.Fatal(err)
			}
			if res.Instructions != tt.want {
				t.Errorf("instructions = %q, want %q", res.Instructions, tt.want)
			}
			conn := &mcpConn{t: t, c: c, tr: tr}
			if tt.query != "" && !slices.Equal(conn.toolNames(), []string{"deck", "playbook", "service", "session"}) {
				t.Errorf("tools = %v", conn.toolNames())
			}
		})
	}
}

// TestResourceProfileTypeScriptClient: the official TypeScript SDK runs the agent hot path on
// the resource profile — bind, get the deck, call a downstream tool, read a playbook.
func TestResourceProfileTypeScriptClient(t *testing.T) {
	s := startMCPStack(t, mcpStackOptions{Profile: "resource"})
	f := s.seedDeck(t, "dev", startHTTPPeer(t))
	script, err := filepath.Abs(filepath.Join("testdata", "mcp", "ts_client_resource.mjs"))
	if err != nil {
		t.Fatal(err)
	}
	out, err := mcpNode(t, 2*time.Minute, []string{
		"DECK_URL=" + s.URL + "/mcp", "DECK_TOKEN=" + s.token("agent"), "DECK_SERVICE=" + f.Service.Name,
	}, script)
	if err != nil {
		t.Fatalf("TypeScript client: %v\n%s", err, out)
	}
	for _, want := range []string{"tools deck,playbook,service,session", "bound ◆ dev · 1 MCP · 1 key · 1 playbook",
		"deck dev-peer " + f.Playbook.ID, `echo {"message":"from typescript"}`, `playbook "# Release\n1. echo it"`,
		`teach deck: action "link" needs card_type and card_id`, "session action bind"} {
		if !strings.Contains(out, want) {
			t.Errorf("TypeScript client output lacks %q:\n%s", want, out)
		}
	}
}

// TestResourceProfileReadScope: under agent:read every write action, called anyway with valid
// arguments, is refused and changes nothing; read actions still work.
func TestResourceProfileReadScope(t *testing.T) {
	peer := startHTTPPeer(t)
	s := startMCPStack(t, mcpStackOptions{Profile: "resource"})
	dev := s.seedDeck(t, "dev", peer)
	other := s.seedDeck(t, "other", peer)
	reader := s.connect(t, s.token(backend.ScopeAgentRead), nil, "")
	reader.ok("session", map[string]any{"action": "bind", "id": "dev", "fields": map[string]any{"workspaceRoot": "/r"}}, nil)
	before := mcpSnapshotAll(t, s)
	writes := map[string]map[string]any{
		"deck create":           {"fields": map[string]any{"name": "x"}},
		"deck link":             {"fields": map[string]any{"card_type": "service", "card_id": other.Service.Name}},
		"deck unlink":           {"fields": map[string]any{"card_type": "service", "card_id": dev.Service.Name}},
		"deck reorder":          {"fields": map[string]any{"card_type": "service", "ordered_card_ids": []string{dev.Service.Name}}},
		"service register":      {"fields": map[string]any{"name": "x", "type": "mcp", "url": "http://127.0.0.1:9/mcp"}},
		"service update":        {"id": dev.Service.Name, "fields": map[string]any{"description": "x"}},
		"service disable_tools": {"id": dev.Service.Name, "fields": map[string]any{"disabled_tools": []string{"echo"}}},
		"playbook register":     {"fields": map[string]any{"title": "x", "body": "y"}},
		"playbook update":       {"id": dev.Playbook.ID, "fields": map[string]any{"body": "x"}},
		"playbook propose": {"id": dev.Playbook.ID, "fields": map[string]any{"kind": "update", "rationale": "x",
			"ops": []any{map[string]any{"op": "add_item", "section": "Notes", "text": "x"}}}},
	}
	for _, spec := range mcptools.Tools() {
		if spec.Tier != mcptools.TierResource {
			continue
		}
		for _, action := range mcptools.ResourceActions(spec.Name, true) {
			key := spec.Name + " " + action
			args, ok := writes[key]
			if !ok {
				t.Errorf("no read-scope case for write action %s", key)
				continue
			}
			t.Run(key, func(t *testing.T) {
				call := map[string]any{"action": action}
				for k, v := range args {
					call[k] = v
				}
				if e := reader.fails(spec.Name, call); e.Code != "FORBIDDEN" {
					t.Errorf("code %s: %+v", e.Code, e)
				}
			})
		}
	}
	if diff := cmp.Diff(before, mcpSnapshotAll(t, s)); diff != "" {
		t.Errorf("the read-only token changed the database (-before +after):\n%s", diff)
	}
	reader.ok("playbook", map[string]any{"action": "get", "id": dev.Playbook.ID}, nil)
}
