package tests

import (
	"net/http"
	"slices"
	"strings"
	"testing"

	"github.com/agent-deck/agent-deck/backend"
	"github.com/agent-deck/agent-deck/backend/core"
)

// The core papercuts of issue 15: one named test per item, each against the real deck (Postgres,
// MCP endpoint, REST API) started by cli.Start.

// papercutDeck is a deck "pc" with a reachable peer service, a service nobody can reach, a
// credential and a playbook; agent is an MCP session bound to it.
type papercutDeck struct {
	stack *mcpStack
	fix   mcpFixture
	dead  backend.ServiceCard
	agent *mcpConn
}

func startPapercutDeck(t *testing.T) *papercutDeck {
	t.Helper()
	s := startMCPStack(t, mcpStackOptions{Profile: "standard"})
	d := &papercutDeck{stack: s, fix: s.seedDeck(t, "pc", startHTTPPeer(t))}
	var err error
	d.dead, err = s.svc.CreateService(s.adminCtx(), core.ServiceInput{Name: "pc-dead", Type: backend.ServiceRemote,
		URL: "http://127.0.0.1:1/mcp", Description: "never reached"})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.svc.LinkCard(s.adminCtx(), core.LinkCardInput{CardRef: core.CardRef{Deck: d.fix.Deck.ID,
		CardType: backend.CardService, CardID: d.dead.ID}}); err != nil {
		t.Fatal(err)
	}
	d.agent = s.connect(t, s.token(backend.ScopeAgent), nil, "")
	d.agent.ok("bind_workspace", map[string]any{"workspaceRoot": "/w/pc", "deckId": "pc"}, nil)
	return d
}

// rest sends one REST request with token (none when empty); body is nil, raw text or a value.
func (d *papercutDeck) rest(t *testing.T, token, method, path string, body any) restAnswer {
	t.Helper()
	return restRequest(t, d.stack.URL, token, method, path, body)
}

func TestPapercutsCore(t *testing.T) {
	d := startPapercutDeck(t)

	t.Run("05 tool counts are null with the health that explains them", func(t *testing.T) {
		check := func(t *testing.T, where string, services []map[string]any) {
			t.Helper()
			for _, sv := range services {
				if sv["id"] != d.dead.ID {
					continue
				}
				for _, k := range []string{"enabled_tool_count", "disabled_tool_count"} {
					v, present := sv[k]
					if !present || v != nil {
						t.Errorf("%s: %s = %v (present %v), want null", where, k, v, present)
					}
				}
				h, _ := sv["health"].(map[string]any)
				if h["status"] != string(backend.HealthUnknown) {
					t.Errorf("%s: health = %v, want status unknown", where, sv["health"])
				}
				return
			}
			t.Errorf("%s: the never-reached service is missing: %v", where, services)
		}
		var snap struct {
			Services []map[string]any `json:"services"`
		}
		d.agent.ok("get_bound_deck", nil, &snap)
		check(t, "get_bound_deck", snap.Services)
		var coll struct {
			Services []map[string]any `json:"services"`
		}
		d.agent.ok("list_collection", map[string]any{"card_type": "service"}, &coll)
		check(t, "list_collection", coll.Services)
	})

	t.Run("06 a string arguments that is not JSON says so, with the position", func(t *testing.T) {
		e := d.agent.fails("call_service_tool", map[string]any{"serviceId": d.fix.Service.ID, "toolName": "echo",
			"arguments": "{\"message\": \"hi\",\n  oops}"})
		if e.Code != "INVALID_ARGUMENT" || !strings.Contains(e.Message, "not valid JSON") ||
			!strings.Contains(e.Message, "line 2, column 3") || strings.Contains(e.Message, "got an object") {
			t.Errorf("error = %+v, want INVALID_ARGUMENT saying not valid JSON at line 2, column 3", e)
		}
	})

	t.Run("11 every INVALID_ARGUMENT has a hint", func(t *testing.T) {
		for _, c := range []struct {
			name string
			tool string
			args map[string]any
		}{
			{"bind_workspace empty workspaceRoot", "bind_workspace", map[string]any{"workspaceRoot": "", "deckId": "pc"}},
			{"register_service without url", "register_service", map[string]any{"name": "pc-nourl", "type": "mcp"}},
			{"link at position -1", "manage_deck_card", map[string]any{"action": "link", "card_type": "service",
				"card_id": d.fix.Service.ID, "position": -1}},
			{"create_deck empty name", "create_deck", map[string]any{"name": " "}},
			{"bad card type", "list_collection", map[string]any{"card_type": "key"}},
			{"update_playbook too many triggers", "update_playbook", map[string]any{"playbook_id": d.fix.Playbook.ID,
				"triggers": strings.Fields("a b c d e f g h i j k l m n o p q r")}},
			{"switch to an empty deck", "switch_bound_deck", map[string]any{"deckId": ""}},
		} {
			t.Run("mcp "+c.name, func(t *testing.T) {
				e := d.agent.fails(c.tool, c.args)
				if e.Code != "INVALID_ARGUMENT" || strings.TrimSpace(e.Hint) == "" {
					t.Errorf("%s: %+v, want INVALID_ARGUMENT with a hint", c.tool, e)
				}
			})
		}
		for _, c := range []struct {
			name, method, path string
			body               any
		}{
			{"deck without name", http.MethodPost, "/api/v1/decks", map[string]any{}},
			{"deck with unknown field", http.MethodPost, "/api/v1/decks", map[string]any{"name": "x", "colour": "red"}},
			{"deck body not JSON", http.MethodPost, "/api/v1/decks", "{nope"},
			{"deck empty name", http.MethodPost, "/api/v1/decks", map[string]any{"name": ""}},
			{"link at position -1", http.MethodPost, "/api/v1/decks/pc/cards", map[string]any{"card_type": "service",
				"card_id": d.fix.Service.ID, "position": -1}},
			{"service without url", http.MethodPost, "/api/v1/services", map[string]any{"name": "pc-nourl", "type": "mcp"}},
			{"unknown query parameter", http.MethodGet, "/api/v1/decks?colour=red", nil},
			{"wrong method", http.MethodPut, "/api/v1/decks", map[string]any{}},
			{"playbook version 0", http.MethodPost, "/api/v1/playbooks/" + d.fix.Playbook.ID + "/versions/0/restore", nil},
		} {
			t.Run("rest "+c.name, func(t *testing.T) {
				a := d.rest(t, d.stack.AdminToken, c.method, c.path, c.body)
				code, msg, details := a.Err()
				if code != backend.CodeInvalidArgument {
					t.Fatalf("%s %s: %d %s, want INVALID_ARGUMENT", c.method, c.path, a.Status, a.Body)
				}
				if h, _ := details["hint"].(string); strings.TrimSpace(h) == "" {
					t.Errorf("%s %s: %q has no hint: %s", c.method, c.path, msg, a.Body)
				}
			})
		}
	})
}

func TestPapercutsToolSettings(t *testing.T) {
	d := startPapercutDeck(t)
	t.Run("04 unknown disabled_tools are refused with the service's tools, closest first", func(t *testing.T) {
		e := d.agent.fails("update_service_tool_settings", map[string]any{"service_id": d.fix.Service.ID,
			"disabled_tools": []string{"ech0"}})
		if e.Code != "INVALID_ARGUMENT" || !strings.Contains(e.Message, `"ech0"`) ||
			!strings.Contains(e.Message, "closest first: echo") || e.Hint == "" {
			t.Errorf("error = %+v, want INVALID_ARGUMENT naming ech0 and listing echo first", e)
		}
		a := d.rest(t, d.stack.AdminToken, http.MethodPut, "/api/v1/services/"+d.fix.Service.ID+"/tool-settings",
			map[string]any{"disabled_tools": []string{"big", "ech0"}})
		if code, msg, _ := a.Err(); a.Status != http.StatusBadRequest || code != backend.CodeInvalidArgument ||
			!strings.Contains(msg, `"ech0"`) {
			t.Errorf("REST: %d %s, want 400 naming ech0", a.Status, a.Body)
		}
		var card struct {
			DisabledTools []string `json:"disabled_tools"`
		}
		d.agent.ok("update_service_tool_settings", map[string]any{"service_id": d.fix.Service.ID,
			"disabled_tools": []string{"big"}}, &card)
		if len(card.DisabledTools) != 1 || card.DisabledTools[0] != "big" {
			t.Errorf("disabled_tools = %v, want [big]", card.DisabledTools)
		}
	})
	t.Run("04 an unreachable service keeps the names with a warning", func(t *testing.T) {
		var res struct {
			DisabledTools []string       `json:"disabled_tools"`
			Warnings      []core.Warning `json:"warnings"`
		}
		d.agent.ok("update_service_tool_settings", map[string]any{"service_id": d.dead.ID,
			"disabled_tools": []string{"whatever"}}, &res)
		if len(res.DisabledTools) != 1 || len(res.Warnings) != 1 ||
			!strings.Contains(res.Warnings[0].Message, `"whatever"`) ||
			!strings.Contains(res.Warnings[0].Message, "cannot be reached") {
			t.Errorf("result = %+v, want the name kept and a warning naming it and why", res)
		}
	})
}

func TestPapercutsProfile(t *testing.T) {
	d := startPapercutDeck(t)
	rt := d.stack.connect(t, d.stack.token(backend.ScopeAgent), nil, "?profile=runtime")
	t.Run("07 a tool of a wider profile teaches which profile has it", func(t *testing.T) {
		if slices.Contains(rt.toolNames(), "create_deck") {
			t.Fatal("a runtime session lists create_deck")
		}
		e := rt.fails("create_deck", map[string]any{"name": "pc-sneaky"})
		if !strings.Contains(e.Message, "profile standard") || !strings.Contains(e.Hint, "?profile=standard") ||
			!strings.Contains(strings.ToLower(e.Hint), "x-agent-deck-profile") {
			t.Errorf("error = %+v, want it to name profile standard and how to connect with it", e)
		}
		if _, err := d.stack.svc.GetDeck(d.stack.adminCtx(), "pc-sneaky"); backend.ErrorCode(err) != backend.CodeNotFound {
			t.Errorf("the refused call created the deck: %v", err)
		}
	})
	t.Run("07 a tool no profile has is not found, with the session's tools", func(t *testing.T) {
		_, err := rt.callErr("no_such_tool", map[string]any{})
		if err == nil || !strings.Contains(err.Error(), "not found") ||
			!strings.Contains(err.Error(), "get_bound_deck") || strings.Contains(err.Error(), "create_deck") {
			t.Errorf("error = %v, want not found listing the runtime tools", err)
		}
	})
}

func TestPapercutsPlaybookDependencies(t *testing.T) {
	d := startPapercutDeck(t)
	cred := d.fix.Cred.ID
	type pb struct {
		ID       string   `json:"id"`
		Creds    []string `json:"depends_on_credential_ids"`
		Explicit []string `json:"explicit_credential_ids"`
	}

	t.Run("03 detected dependencies follow the text", func(t *testing.T) {
		var got pb
		d.agent.ok("update_playbook", map[string]any{"playbook_id": d.fix.Playbook.ID,
			"body": "# Release\nexport with " + cred}, &got)
		if !slices.Equal(got.Creds, []string{cred}) || len(got.Explicit) != 0 {
			t.Fatalf("after mentioning %s: %+v, want it detected, not explicit", cred, got)
		}
		d.agent.ok("update_playbook", map[string]any{"playbook_id": d.fix.Playbook.ID,
			"body": "# Release\nno key needed any more"}, &got)
		if len(got.Creds) != 0 {
			t.Errorf("after the text dropped %s: dependencies %v, want none", cred, got.Creds)
		}
		deps, err := d.stack.svc.Dependents(d.stack.adminCtx(), backend.CardCredential, cred)
		if err != nil || len(deps) != 0 {
			t.Errorf("dependents of %s = %v, %v; want none, so it can be deleted", cred, deps, err)
		}
	})
	t.Run("03 explicit dependencies stay until removed explicitly", func(t *testing.T) {
		var got pb
		d.agent.ok("update_playbook", map[string]any{"playbook_id": d.fix.Playbook.ID,
			"depends_on_credential_ids": []string{cred}}, &got)
		if !slices.Equal(got.Creds, []string{cred}) || !slices.Equal(got.Explicit, []string{cred}) {
			t.Fatalf("after naming %s: %+v, want it explicit", cred, got)
		}
		d.agent.ok("update_playbook", map[string]any{"playbook_id": d.fix.Playbook.ID,
			"body": "# Release\nstill no mention"}, &got)
		if !slices.Equal(got.Creds, []string{cred}) {
			t.Errorf("a body change dropped the explicit %s: %+v", cred, got)
		}
		d.agent.ok("update_playbook", map[string]any{"playbook_id": d.fix.Playbook.ID,
			"depends_on_credential_ids": []string{}}, &got)
		if len(got.Creds) != 0 || len(got.Explicit) != 0 {
			t.Errorf("after removing %s explicitly: %+v, want none", cred, got)
		}
		if err := d.stack.svc.DeleteCredential(d.stack.adminCtx(), cred); err != nil {
			t.Errorf("deleting %s once nothing depends on it: %v", cred, err)
		}
	})
}
