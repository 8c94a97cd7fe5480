package tests

import (
	"context"
	"encoding/json"
	"reflect"
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

// TestToolOverridesPinsExportImport: export → import carries a service's tool overrides, its
// approved pins and pin_tools: false, and the imported deck holds a tool the downstream defines
// otherwise than the imported pin.
func TestToolOverridesPinsExportImport(t *testing.T) {
	w := newPinWorld(t)
	runCLI(w.s.home, strings.NewReader(""), "service", "override", w.service(), "fail", "--read-only", "true", "--title", "Fail").wantCode(t, 0)
	pinOff := false
	trusting, err := w.s.svc.CreateService(w.s.adminCtx(), core.ServiceInput{Name: "trusting", Type: backend.ServiceRemote,
		URL: startHTTPPeer(t), PinTools: &pinOff})
	must(t, err)
	path := t.TempDir() + "/bundle.json"
	runCLI(w.s.home, strings.NewReader(""), "export", "-o", path).wantCode(t, 0)

	dst := startMCPStack(t, mcpStackOptions{})
	runCLI(dst.home, strings.NewReader(""), "import", path).wantCode(t, 0)
	for _, name := range []string{w.service(), trusting.Name} {
		src, err := w.s.svc.GetService(w.s.adminCtx(), name)
		must(t, err)
		got, err := dst.svc.GetService(dst.adminCtx(), name)
		must(t, err)
		if got.PinTools != src.PinTools || !reflect.DeepEqual(got.ToolOverrides, src.ToolOverrides) {
			t.Errorf("%s: imported pin_tools %v overrides %+v, exported %v %+v", name, got.PinTools, got.ToolOverrides, src.PinTools, src.ToolOverrides)
		}
		srcPins, err := w.s.store.ToolPins(context.Background(), src.ID)
		must(t, err)
		gotPins, err := dst.store.ToolPins(context.Background(), got.ID)
		must(t, err)
		if len(srcPins) != len(gotPins) {
			t.Fatalf("%s: %d pins exported, %d imported", name, len(srcPins), len(gotPins))
		}
		for i := range srcPins {
			if srcPins[i].ToolName != gotPins[i].ToolName || srcPins[i].Hash != gotPins[i].Hash || srcPins[i].ApprovedBy != gotPins[i].ApprovedBy {
				t.Errorf("%s: pin %d imported as %+v, exported %+v", name, i, gotPins[i], srcPins[i])
			}
		}
	}
	if n, err := w.s.store.ToolPins(context.Background(), w.f.Service.ID); err != nil || len(n) == 0 {
		t.Fatalf("the source has no pins to carry (%v)", err)
	}
}
