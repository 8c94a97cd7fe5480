package cli

import (
	"os"
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

// TestSetupTightensTheTokenFile holds issue 27 item 8: a user config that is about to hold a
// live token is made 0600 before the token is written, with a warning; an already private file
// and a new one give no warning, and the new one is created 0600.
func TestSetupTightensTheTokenFile(t *testing.T) {
	e := startCmdEnv(t)
	tests := []struct {
		name     string
		existing os.FileMode // 0: no file yet
		warns    bool
	}{
		{"Claude Code's default 0644", 0o644, true},
		{"group-writable", 0o664, true},
		{"already private", 0o600, false},
		{"no file yet", 0, false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			home := t.TempDir()
			t.Setenv("HOME", home)
			t.Setenv("XDG_CONFIG_HOME", filepath.Join(home, ".config"))
			cfg := filepath.Join(home, ".claude.json")
			if tc.existing != 0 {
				if err := os.WriteFile(cfg, []byte(`{"numStartups": 3}`+"\n"), tc.existing); err != nil {
					t.Fatal(err)
				}
				if err := os.Chmod(cfg, tc.existing); err != nil { // past the umask
					t.Fatal(err)
				}
			}
			r := e.run("", "setup", "--client", "claude-code")
			if r.code != 0 {
				t.Fatalf("setup: %d %s", r.code, r.stderr)
			}
			st, err := os.Stat(cfg)
			if err != nil {
				t.Fatal(err)
			}
			if perm := st.Mode().Perm(); perm != 0o600 {
				t.Errorf("%s is %#o after setup, want 0600", cfg, perm)
			}
			if warned := strings.Contains(r.stderr, "readable by other users"); warned != tc.warns {
				t.Errorf("warning %v, want %v: %q", warned, tc.warns, r.stderr)
			}
			if again := e.run("", "setup", "--client", "claude-code"); strings.Contains(again.stderr, "readable by other users") {
				t.Errorf("the second setup warns again: %q", again.stderr)
			}
		})
	}
}
