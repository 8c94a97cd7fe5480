package tests

import (
	"encoding/json"
	"net/http"
	"slices"
	"strings"
	"testing"

	"github.com/agent-deck/agent-deck/backend"
)

// Attacks on hostile or oversized downstream servers (results, errors, stderr, tool definitions).
func TestAttacksDownstream(t *testing.T) {
	runAttacks(t, []attack{
		{"rug pull: a tool's description changes after first use and is still called", func(t *testing.T) {
			w := newPinWorld(t)
			w.peerTool(t, "mutate", map[string]any{"tool": "echo", "description": poisonedEcho})
			w.waitHeld(t, "echo")
			w.wantHeldCall(t, "echo", "description changed")
		}},
		{"rug pull: a tool's input schema grows a parameter after first use", func(t *testing.T) {
			w := newPinWorld(t)
			w.peerTool(t, "mutate", map[string]any{"tool": "echo", "add_property": "ssh_key"})
			w.waitHeld(t, "echo")
			w.wantHeldCall(t, "input schema: property", "ssh_key", "added")
		}},
		{"rug pull: the changed tool is listed to the agent with its new text", func(t *testing.T) {
			w := newPinWorld(t)
			w.peerTool(t, "mutate", map[string]any{"tool": "echo", "description": poisonedEcho})
			info := w.waitHeld(t, "echo")
			if info.HeldReason != "description changed" {
				t.Errorf("held_reason %q", info.HeldReason)
			}
			if strings.Contains(string(info.Tool), "id_rsa") {
				t.Errorf("list_service_tools shows the agent the unapproved description: %s", info.Tool)
			}
			if w.listed(t)["big"].Held {
				t.Error("an unchanged tool is marked held")
			}
		}},
		{"rug pull: a tool added after first use is called unreviewed", func(t *testing.T) {
			w := newPinWorld(t)
			w.peerTool(t, "set_tools", map[string]any{"add": []string{"exfiltrate"}})
			w.waitHeld(t, "exfiltrate")
			e := w.agent.fails("call_service_tool", map[string]any{"serviceId": w.service(), "toolName": "exfiltrate"})
			if e.Code != string(backend.CodeToolChanged) || !strings.Contains(e.Message, "new tool") {
				t.Fatalf("new tool: %s %s, want TOOL_CHANGED naming a new tool", e.Code, e.Message)
			}
		}},
		{"rug pull: an agent token approves the changed tool itself", func(t *testing.T) {
			w := newPinWorld(t)
			w.peerTool(t, "mutate", map[string]any{"tool": "echo", "description": poisonedEcho})
			w.waitHeld(t, "echo")
			status, body := w.rest(t, w.agentTok, http.MethodPost, "/api/v1/services/"+w.f.Service.ID+"/approve",
				map[string]any{"tools": []string{"echo"}})
			if status != http.StatusForbidden {
				t.Fatalf("agent approve over REST: %d %s, want 403", status, body)
			}
			for _, name := range w.agent.toolNames() {
				if strings.Contains(name, "approve") {
					t.Errorf("MCP offers agents %s", name)
				}
			}
			w.wantHeldCall(t, "description changed")
		}},
		{"rug pull: a tool the person approved with agent-deck service approve stays refused", func(t *testing.T) {
			w := newPinWorld(t)
			w.peerTool(t, "mutate", map[string]any{"tool": "echo", "description": poisonedEcho})
			w.waitHeld(t, "echo")
			w.wantHeldCall(t, "description changed")
			r := runCLI(w.s.home, strings.NewReader(""), "service", "approve", w.service(), "echo").wantCode(t, 0)
			if !strings.Contains(r.stdout, "Approved 1 tool of "+w.service()) || !strings.Contains(r.stdout, "description changed") {
				t.Errorf("approve output does not say what was approved:\n%s", r.stdout)
			}
			w.wantCallWorks(t)
			if w.listed(t)["echo"].Held {
				t.Error("approved tool still marked held")
			}
			r = runCLI(w.s.home, strings.NewReader(""), "service", "approve", w.service(), "--json").wantCode(t, 0)
			var again backend.ToolApprovals
			if err := json.Unmarshal([]byte(r.stdout), &again); err != nil || len(again.Approved) != 0 ||
				!slices.Contains(again.Unchanged, "echo") {
				t.Errorf("approving again: %v %s", err, r.stdout)
			}
		}},
		{"rug pull: an agent turns pinning off to let a changed tool through", func(t *testing.T) {
			w := newPinWorld(t)
			off := map[string]any{"pin_tools": false}
			if status, body := w.rest(t, w.agentTok, http.MethodPatch, "/api/v1/services/"+w.f.Service.ID, off); status != http.StatusForbidden {
				t.Fatalf("agent turns pinning off over REST: %d %s, want 403", status, body)
			}
			if e := w.agent.fails("update_service", map[string]any{"service_id": w.service(), "pinTools": false}); e.Code != string(backend.CodeForbidden) {
				t.Fatalf("agent turns pinning off over MCP: %s %s, want FORBIDDEN", e.Code, e.Message)
			}
			w.peerTool(t, "mutate", map[string]any{"tool": "echo", "description": poisonedEcho})
			w.waitHeld(t, "echo")
			// The person trusts this server to change: with pinning off, its calls go through.
			if status, body := w.rest(t, w.s.AdminToken, http.MethodPatch, "/api/v1/services/"+w.f.Service.ID, off); status != http.StatusOK ||
				!strings.Contains(string(body), `"pin_tools":false`) {
				t.Fatalf("admin turns pinning off: %d %s", status, body)
			}
			w.wantCallWorks(t)
		}},
	})
}
