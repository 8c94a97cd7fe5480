package mcptools

import (
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestResourceInvariants: every canonical standard tool is reachable through the resource
// profile, each through exactly one action (manage_deck_card once per value of its own action
// enum); every row names a canonical standard tool; no write action survives agent:read, and
// each read action does.
func TestResourceInvariants(t *testing.T) {
	standard := map[string]ToolSpec{}
	for _, tool := range Tools() {
		if ProfileStandard.includes(tool.Tier) {
			standard[tool.Name] = tool
		}
	}
	reached := map[string][]string{}
	for _, a := range resourceTable() {
		target, ok := standard[a.canonical]
		if !ok {
			t.Errorf("%s %s points at %q, not a canonical standard tool", a.resource, a.name, a.canonical)
			continue
		}
		key := a.canonical
		if v, ok := a.fixed["action"]; ok {
			key += " action=" + v.(string)
		}
		if a.fields != nil {
			key += " fields=" + strings.Join(a.fields, ",")
		}
		reached[a.canonical] = append(reached[a.canonical], key)
		for name := range a.fixed {
			if !slices.ContainsFunc(target.Params, func(p Param) bool { return p.Name == name }) {
				t.Errorf("%s %s fixes %q, which %s does not take", a.resource, a.name, name, a.canonical)
			}
		}
	}
	// list_service_tools has two modes, each an action: one service's tools, and the search.
	modes := map[string]int{"list_service_tools": 2}
	for name, tool := range standard {
		keys := reached[name]
		want := max(1, modes[name])
		for _, p := range tool.Params {
			if p.Name == "action" {
				want = len(p.Enum)
			}
		}
		slices.Sort(keys)
		if len(keys) != want || len(slices.Compact(slices.Clone(keys))) != want {
			t.Errorf("%s is reached through %v, want %d distinct action(s)", name, keys, want)
		}
	}
	var tools []ToolSpec
	for _, tool := range Tools() {
		if tool.Tier == TierResource {
			tools = append(tools, tool)
		}
	}
	if len(tools) != 4 {
		t.Fatalf("%d resource tools, want 4", len(tools))
	}
	for _, tool := range tools {
		ro, ok := tool.readOnlyView()
		if !ok {
			t.Errorf("%s has no read action", tool.Name)
			continue
		}
		for _, a := range ro.actions {
			if a.access == Write {
				t.Errorf("%s keeps write action %s under agent:read", tool.Name, a.name)
			}
		}
		for _, a := range tool.actions {
			if a.access != Write && !slices.ContainsFunc(ro.actions, func(b resourceAction) bool { return b.name == a.name }) {
				t.Errorf("%s loses read action %s under agent:read", tool.Name, a.name)
			}
			if !strings.Contains(tool.Description, "\n"+a.signature()) {
				t.Errorf("%s description lacks the line %q", tool.Name, a.signature())
			}
		}
	}
}

// TestResourceReadOnlyGolden pins tools/list for the resource profile under agent:read (the
// agent scope is pinned with the other profiles by TestToolListGolden).
func TestResourceReadOnlyGolden(t *testing.T) {
	b, err := ToolsJSON(ProfileResource, true)
	if err != nil {
		t.Fatal(err)
	}
	pretty := toolsGolden(t, "tools_resource_read.golden.json", b)
	for _, w := range []string{"register", "update", "create", "link", "disable_tools"} {
		if strings.Contains(pretty, w) {
			t.Errorf("agent:read tools/list offers write action %s", w)
		}
	}
}

// TestResourceProfileNames: resource narrows like standard, so a connection may switch between
// the two but never widen to legacy; it has no legacy aliases; its instructions are shorter.
func TestResourceProfileNames(t *testing.T) {
	if p, err := ParseProfile("Resource"); err != nil || p != ProfileResource {
		t.Fatalf("ParseProfile(Resource) = %q, %v", p, err)
	}
	for _, tt := range []struct{ server, asked, want Profile }{
		{ProfileStandard, ProfileResource, ProfileResource},
		{ProfileResource, ProfileStandard, ProfileStandard},
		{ProfileResource, ProfileLegacy, ProfileResource},
		{ProfileResource, ProfileRuntime, ProfileRuntime},
	} {
		if got := narrower(tt.server, tt.asked); got != tt.want {
			t.Errorf("narrower(%s, %s) = %s, want %s", tt.server, tt.asked, got, tt.want)
		}
	}
	if diff := cmp.Diff([]string{"session", "deck", "service", "playbook"}, CanonicalToolNames(ProfileResource)); diff != "" {
		t.Errorf("resource tools (-want +got):\n%s", diff)
	}
	for _, name := range ToolNames(ProfileResource, false) {
		if !slices.Contains([]string{"session", "deck", "service", "playbook"}, name) {
			t.Errorf("resource profile offers %s", name)
		}
	}
	if len(ResourceInstructions) >= len(Instructions) || !strings.Contains(ResourceInstructions, "session action bind") {
		t.Errorf("resource instructions (%d bytes) are not a shorter text naming session bind (standard: %d)",
			len(ResourceInstructions), len(Instructions))
	}
}
