package tests

import (
	"net/http"
	"strings"
	"testing"

	"github.com/agent-deck/agent-deck/backend"
	"github.com/agent-deck/agent-deck/backend/core"
)

// TestServiceToolSettingsUnknownNames holds issue 15 item 4: disabled_tools naming no tool of the
// service are refused over MCP and REST with the service's tools, closest first, unless the
// service cannot be reached, when the names are kept with a warning.
func TestServiceToolSettingsUnknownNames(t *testing.T) {
	d := startAgentDeck(t)
	t.Run("04 unknown disabled_tools are refused with the service's tools, closest first", func(t *testing.T) {
		e := d.agent.fails("update_service_tool_settings", map[string]any{"service_id": d.fix.Service.ID,
			"disabled_tools": []string{"ech0"}})
		if e.Code != "INVALID_ARGUMENT" || !strings.Contains(e.Message, `"ech0"`) ||
			!strings.Contains(e.Message, "closest first: echo") || e.Hint == "" {
			t.Errorf("error = %+v, want INVALID_ARGUMENT naming ech0 and listing echo first", e)
		}
		a := d.stack.api().Do(t, d.stack.AdminToken, http.MethodPut, "/api/v1/services/"+d.fix.Service.ID+"/tool-settings",
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
