package tests

import (
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/agent-deck/agent-deck/harness"
	"github.com/agent-deck/agent-deck/mcptools"
)

// TestHarnessToolsMatchRegistry keeps the harness text honest: every tool it may name exists in
// the MCP registry for that profile, and every tool it names in a profile's text is one the
// profile exposes.
func TestHarnessToolsMatchRegistry(t *testing.T) {
	for _, name := range harness.Profiles {
		t.Run(name, func(t *testing.T) {
			p, err := mcptools.ParseProfile(name)
			if err != nil {
				t.Fatal(err)
			}
			registry := mcptools.ToolNames(p, false)
			mine, err := harness.ProfileTools(name)
			if err != nil {
				t.Fatal(err)
			}
			var canonical []string
			for _, spec := range mcptools.Tools() {
				if slices.Contains(registry, spec.Name) && spec.AliasOf == "" {
					canonical = append(canonical, spec.Name)
				}
			}
			slices.Sort(canonical)
			slices.Sort(mine)
			if diff := cmp.Diff(canonical, mine); diff != "" {
				t.Errorf("harness tools differ from the registry's canonical tools (-registry +harness):\n%s", diff)
			}
			text, _ := harness.Text(name)
			for _, spec := range mcptools.Tools() {
				if strings.Contains(text, "`"+spec.Name+"`") && !slices.Contains(registry, spec.Name) {
					t.Errorf("the %s text names %s, which that profile lacks", name, spec.Name)
				}
			}
		})
	}
}
