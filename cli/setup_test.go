package cli

import (
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/agent-deck/agent-deck/backend"
	"github.com/agent-deck/agent-deck/harness"
	"github.com/agent-deck/agent-deck/mcptools"
	"github.com/agent-deck/agent-deck/tests/golden"
)

// TestHarnessTextPerProfile pins the harness text `setup --profile` writes for each profile,
// built from the MCP registry's tools: it names only tools the profile exposes. The golden files
// sit beside the harness's other outputs.
func TestHarnessTextPerProfile(t *testing.T) {
	for _, profile := range backend.Profiles {
		t.Run(profile, func(t *testing.T) {
			tools, err := harnessTools(profile)
			if err != nil {
				t.Fatal(err)
			}
			text := harness.Text(tools)
			exposed := mcptools.ToolNames(mcptools.Profile(profile), false)
			for _, spec := range mcptools.Tools() {
				if strings.Contains(text, "`"+spec.Name+"`") && !slices.Contains(exposed, spec.Name) {
					t.Errorf("the %s text names %s, which that profile lacks", profile, spec.Name)
				}
			}
			musts := []string{"bind_workspace", "display_summary", "get_bound_deck", "get_playbook"}
			if profile == backend.ProfileResource {
				musts = []string{"`session` with action `bind`", "display_summary", "`deck` action `get`",
					"`playbook` action `get`"}
			}
			for _, must := range musts {
				if !strings.Contains(text, must) {
					t.Errorf("the %s text lacks %s", profile, must)
				}
			}
			golden.Check(t, filepath.Join("..", "harness", "testdata", "text-"+profile+".md"), []byte(text))
		})
	}
}

func TestHarnessToolsProfiles(t *testing.T) {
	def, err := harnessTools("")
	if err != nil {
		t.Fatal(err)
	}
	if want := mcptools.CanonicalToolNames(mcptools.Profile(backend.DefaultProfile)); !slices.Equal(def, want) {
		t.Errorf("no --profile gives %v, want the default profile's %v", def, want)
	}
	for _, bad := range []string{"huge", "Runtime", " standard"} {
		if _, err := harnessTools(bad); err == nil {
			t.Errorf("harnessTools(%q) accepted an unknown profile", bad)
		}
	}
}
