package tests

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/agent-deck/agent-deck/backend"
	"github.com/agent-deck/agent-deck/backend/core"
)

// TestToolOverrides: `service override` marks the peer's fail tool read-only with a better
// description. An agent:read session then sees the overridden description and annotation and may
// call the tool; nothing is held for it (pins compare the downstream's own definition); and a
// downstream change to a tool with an override is still held.
func TestToolOverrides(t *testing.T) {
	w := newPinWorld(t)
	reader := w.s.connect(t, w.s.token(backend.ScopeAgentRead), nil, "")
	reader.ok("bind_workspace", map[string]any{"workspaceRoot": "/w", "deckId": "pins"}, nil)
	failArgs := map[string]any{"serviceId": w.service(), "toolName": "fail", "arguments": map[string]any{"message": "on purpose"}}
	if e := reader.fails("call_service_tool", failArgs); e.Code != string(backend.CodeForbidden) {
		t.Fatalf("agent:read calls a tool not annotated read-only: %s %s", e.Code, e.Message)
	}

	r := runCLI(w.s.home, strings.NewReader(""), "service", "override", w.service(), "fail",
		"--read-only", "true", "--description", "Fails on purpose; changes nothing.").wantCode(t, 0)
	if !strings.Contains(r.stdout, "Agents now see fail of "+w.service()) {
		t.Errorf("override output:\n%s", r.stdout)
	}

	var tools []core.ToolInfo
	reader.ok("list_service_tools", map[string]any{"serviceId": w.service()}, &tools)
	var seen struct {
		Description string `json:"description"`
		Annotations struct {
			ReadOnlyHint *bool `json:"readOnlyHint"`
		} `json:"annotations"`
	}
	for _, tl := range tools {
		if tl.Held {
			t.Errorf("%s is held after an override: %s", tl.Name, tl.HeldReason)
		}
		if tl.Name == "fail" {
			must(t, json.Unmarshal(tl.Tool, &seen))
		}
	}
	if seen.Description != "Fails on purpose; changes nothing." || seen.Annotations.ReadOnlyHint == nil || !*seen.Annotations.ReadOnlyHint {
		t.Fatalf("agent:read sees fail as %+v", seen)
	}
	res := reader.call("call_service_tool", failArgs)
	if txt := mcpText(res); strings.Contains(txt, "FORBIDDEN") || !strings.Contains(txt, "on purpose") {
		t.Fatalf("agent:read call after the override: %s", txt)
	}

	// An override does not approve anything: the downstream's own change is still held.
	runCLI(w.s.home, strings.NewReader(""), "service", "override", w.service(), "echo", "--description", "Echoes.").wantCode(t, 0)
	w.wantCallWorks(t)
	w.peerTool(t, "mutate", map[string]any{"tool": "echo", "description": poisonedEcho})
	w.waitHeld(t, "echo")
	w.wantHeldCall(t, "description changed")

	runCLI(w.s.home, strings.NewReader(""), "service", "override", w.service(), "fail", "--clear").wantCode(t, 0)
	if e := reader.fails("call_service_tool", failArgs); e.Code != string(backend.CodeForbidden) {
		t.Fatalf("agent:read after the override was cleared: %s %s", e.Code, e.Message)
	}
}
