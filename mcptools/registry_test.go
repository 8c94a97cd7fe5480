package mcptools

import (
	"bytes"
	"encoding/json"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/pkoukk/tiktoken-go"
	tiktoken_loader "github.com/pkoukk/tiktoken-go-loader"

	"github.com/agent-deck/agent-deck/tests/golden"
)

// The tool sets of SPEC §4.1, by profile.
var (
	runtimeNames = []string{"bind_workspace", "switch_bound_deck", "get_session_binding", "get_decks",
		"get_bound_deck", "get_playbook", "update_playbook", "propose_playbook_patch", "list_service_tools",
		"call_service_tool"}
	editingNames = []string{"manage_deck_card", "list_collection", "create_deck", "register_service",
		"update_service", "update_service_tool_settings", "register_playbook"}
	aliasNames = []string{"get_active_deck", "list_bound_deck_services", "list_active_deck_services",
		"list_bound_deck_credentials", "list_active_deck_credentials", "list_playbooks",
		"list_collection_services", "list_collection_credentials", "list_collection_playbooks",
		"add_service_to_bound_deck", "add_credential_to_bound_deck", "add_playbook_to_bound_deck",
		"remove_service_from_bound_deck", "remove_credential_from_bound_deck", "remove_playbook_from_bound_deck"}
)

func sorted(names ...[]string) []string {
	var out []string
	for _, n := range names {
		out = append(out, n...)
	}
	return sortStrings(out)
}

func sortStrings(s []string) []string {
	out := append([]string(nil), s...)
	slices.Sort(out)
	return out
}

func TestProfiles(t *testing.T) {
	tests := []struct {
		profile  Profile
		readOnly bool
		want     []string
	}{
		{ProfileRuntime, false, sorted(runtimeNames)},
		{ProfileStandard, false, sorted(runtimeNames, editingNames)},
		{ProfileLegacy, false, sorted(runtimeNames, editingNames, aliasNames)},
		{ProfileRuntime, true, sorted(without(runtimeNames, "update_playbook", "propose_playbook_patch"))},
	}
	counts := map[Profile]int{ProfileRuntime: 10, ProfileStandard: 17, ProfileLegacy: 32, ProfileResource: 4}
	for _, tt := range tests {
		t.Run(string(tt.profile), func(t *testing.T) {
			got := sortStrings(ToolNames(tt.profile, tt.readOnly))
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("tools (-want +got):\n%s", diff)
			}
			if !tt.readOnly && len(got) != counts[tt.profile] {
				t.Errorf("%d tools, want %d", len(got), counts[tt.profile])
			}
		})
	}
}

func without(list []string, drop ...string) []string {
	var out []string
	for _, s := range list {
		if !containsStr(drop, s) {
			out = append(out, s)
		}
	}
	return out
}

// TestSpecParameters pins each tool's parameter names to SPEC §4.1.
func TestSpecParameters(t *testing.T) {
	service := []string{"url", "description", "headers", "credentialId", "localCommand", "localArgs",
		"localWorkingDir", "localEnv", "pinTools"}
	want := map[string][]string{
		"bind_workspace":      {"workspaceRoot", "deckId"},
		"switch_bound_deck":   {"deckId"},
		"get_session_binding": nil, "get_decks": nil, "get_bound_deck": {"card_type", "query", "cursor"},
		"get_playbook": {"playbook_id"},
		"update_playbook": {"playbook_id", "title", "body", "triggers", "exec", "skill",
			"depends_on_credential_ids", "depends_on_service_ids", "auto_detect_dependencies"},
		"propose_playbook_patch": {"kind", "playbook_id", "ops", "new_playbook", "rationale", "evidence",
			"supersedes", "signal_ids"},
		"list_service_tools":           {"serviceId"},
		"call_service_tool":            {"serviceId", "toolName", "arguments"},
		"manage_deck_card":             {"action", "card_type", "card_id", "position", "ordered_card_ids"},
		"list_collection":              {"card_type"},
		"create_deck":                  {"name"},
		"register_service":             append(append([]string{"name", "type"}, service...), "add_to_bound_deck", "position"),
		"update_service":               append([]string{"service_id", "name"}, service...),
		"update_service_tool_settings": {"service_id", "disabled_tools"},
		"register_playbook": {"title", "body", "triggers", "playbook_id", "exec", "skill",
			"depends_on_credential_ids", "depends_on_service_ids", "add_to_bound_deck", "auto_detect_dependencies"},
		"add_service_to_bound_deck":         {"service_id", "position"},
		"add_credential_to_bound_deck":      {"credential_id", "position"},
		"add_playbook_to_bound_deck":        {"playbook_id", "position"},
		"remove_service_from_bound_deck":    {"service_id"},
		"remove_credential_from_bound_deck": {"credential_id"},
		"remove_playbook_from_bound_deck":   {"playbook_id"},
	}
	for _, tool := range Tools() {
		if tool.Tier == TierAlias && len(tool.Params) == 0 || tool.Tier == TierResource {
			continue // resource tools' fields are pinned by resource_test.go
		}
		var got []string
		for _, p := range tool.Params {
			got = append(got, p.Name)
		}
		if diff := cmp.Diff(want[tool.Name], got); diff != "" {
			t.Errorf("%s parameters (-want +got):\n%s", tool.Name, diff)
		}
	}
}

var snakeCase = regexp.MustCompile(`^[a-z][a-z0-9]*(_[a-z0-9]+)*$`)

func TestRegistryInvariants(t *testing.T) {
	seen := map[string]bool{}
	canonical := map[string]ToolSpec{}
	for _, tool := range Tools() {
		canonical[tool.Name] = tool
	}
	for _, tool := range Tools() {
		t.Run(tool.Name, func(t *testing.T) {
			if seen[tool.Name] {
				t.Error("duplicate name")
			}
			seen[tool.Name] = true
			if !snakeCase.MatchString(tool.Name) || len(tool.Name) > 40 {
				t.Error("name is not snake_case of at most 40 characters")
			}
			if len(strings.TrimSpace(tool.Description)) < 20 {
				t.Error("description missing or too short to say when to use the tool")
			}
			if tool.run == nil {
				t.Error("no handler")
			}
			mt := tool.MCPTool()
			ro := mt.Annotations.ReadOnlyHint
			if ro == nil || *ro != (tool.Access == Read) {
				t.Errorf("readOnlyHint %v, access %v", ro, tool.Access)
			}
			if tool.Access != Read && (mt.Annotations.DestructiveHint == nil || mt.Annotations.IdempotentHint == nil) {
				t.Error("write tool without explicit destructiveHint and idempotentHint")
			}
			var schema map[string]any
			if err := json.Unmarshal(mt.RawInputSchema, &schema); err != nil {
				t.Fatalf("input schema is not JSON: %v", err)
			}
			if schema["type"] != "object" {
				t.Error("input schema is not an object")
			}
			for _, k := range []string{"anyOf", "oneOf", "allOf", "not"} {
				if _, ok := schema[k]; ok {
					t.Errorf("top-level %s in the input schema", k)
				}
			}
			if tool.Tier == TierAlias {
				target, ok := canonical[tool.AliasOf]
				if !ok || target.Tier == TierAlias {
					t.Errorf("alias of %q, which is not a canonical tool", tool.AliasOf)
				}
				if !strings.HasPrefix(tool.Description, "Deprecated — use ") {
					t.Error(`alias description does not start "Deprecated — use "`)
				}
			}
		})
	}
}

// TestToolListBudget pins the o200k token cost of each profile's tools array.
func TestToolListBudget(t *testing.T) {
	tiktoken.SetBpeLoader(tiktoken_loader.NewOfflineLoader())
	enc, err := tiktoken.GetEncoding("o200k_base")
	if err != nil {
		t.Fatal(err)
	}
	budgets := map[Profile]int{ProfileRuntime: 1100, ProfileStandard: 2100, ProfileLegacy: 2900, ProfileResource: 1050}
	for _, p := range Profiles {
		t.Run(string(p), func(t *testing.T) {
			b, err := ToolsJSON(p, false)
			if err != nil {
				t.Fatal(err)
			}
			n := len(enc.Encode(string(b), nil, nil))
			t.Logf("%s: %d tools, %d bytes, %d tokens (budget %d)", p, len(ToolNames(p, false)), len(b), n, budgets[p])
			if n > budgets[p] {
				t.Errorf("%d tokens, over the budget of %d", n, budgets[p])
			}
		})
	}
}

// TestToolListGolden shows any change to what models see as a diff (go test -update rewrites).
func TestToolListGolden(t *testing.T) {
	for _, p := range Profiles {
		t.Run(string(p), func(t *testing.T) {
			b, err := ToolsJSON(p, false)
			if err != nil {
				t.Fatal(err)
			}
			toolsGolden(t, "tools_"+string(p)+".golden.json", b)
		})
	}
}

// toolsGolden compares a tools/list, indented, with testdata/name (go test -update rewrites it)
// and returns the indented text.
func toolsGolden(t *testing.T, name string, b []byte) string {
	t.Helper()
	var pretty bytes.Buffer
	if err := json.Indent(&pretty, b, "", "  "); err != nil {
		t.Fatal(err)
	}
	pretty.WriteByte('\n')
	golden.Check(t, filepath.Join("testdata", name), pretty.Bytes())
	return pretty.String()
}

func TestParseProfile(t *testing.T) {
	for _, in := range []string{"runtime", " Standard ", "LEGACY"} {
		if _, err := ParseProfile(in); err != nil {
			t.Errorf("ParseProfile(%q): %v", in, err)
		}
	}
	if _, err := ParseProfile("full"); err == nil {
		t.Error("ParseProfile accepted an unknown profile")
	}
	if got := narrower(ProfileStandard, ProfileLegacy); got != ProfileStandard {
		t.Errorf("narrower widened to %s", got)
	}
	if got := narrower(ProfileLegacy, ProfileRuntime); got != ProfileRuntime {
		t.Errorf("narrower = %s, want runtime", got)
	}
}

// TestEveryProfileHasARow keeps backend's profile names and the registry's rows together: a
// profile added to backend.Profiles without its tiers here would expose no tools.
func TestEveryProfileHasARow(t *testing.T) {
	for _, p := range Profiles {
		if len(profileTiers[p]) == 0 || !p.includes(TierRuntime) && !p.includes(TierResource) {
			t.Errorf("profile %s has no row in profileTiers, or its row lacks the runtime tier", p)
		}
	}
	for p := range profileTiers {
		if p.rank() < 0 {
			t.Errorf("profileTiers has a row for %s, which backend.Profiles lacks", p)
		}
	}
}

func TestCanonicalToolNames(t *testing.T) {
	standard := append(slices.Clone(runtimeNames), editingNames...)
	for p, want := range map[Profile][]string{ProfileRuntime: runtimeNames, ProfileStandard: standard,
		ProfileLegacy: standard} {
		if diff := cmp.Diff(want, CanonicalToolNames(p)); diff != "" {
			t.Errorf("%s (-want +got):\n%s", p, diff)
		}
	}
}
