package tests

import (
	"net/http"
	"strings"
	"testing"

	"github.com/agent-deck/agent-deck/backend"
)

// TestExplainedAnswers holds issue 15 items 5, 6 and 11 against the real deck (Postgres, MCP
// endpoint, REST API) started by cli.Start: a service never reached shows null tool counts with
// the health that explains them, arguments that are not JSON are refused with the position, and
// every INVALID_ARGUMENT over MCP and REST carries a hint.
func TestExplainedAnswers(t *testing.T) {
	d := startAgentDeck(t)

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
				a := d.stack.api().Do(t, d.stack.AdminToken, c.method, c.path, c.body)
				p := a.Problem()
				if p.Code != backend.CodeInvalidArgument {
					t.Fatalf("%s %s: %d %s, want INVALID_ARGUMENT", c.method, c.path, a.Status, a.Body)
				}
				if strings.TrimSpace(p.Hint) == "" {
					t.Errorf("%s %s: %q has no hint: %s", c.method, c.path, p.Detail, a.Body)
				}
			})
		}
	})
}
