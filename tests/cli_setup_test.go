package tests

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agent-deck/agent-deck/backend"
	"github.com/agent-deck/agent-deck/backend/core"
)

// snapshotDir returns every file under dir with its contents.
func cliSnapshotDir(t *testing.T, dir string) map[string]string {
	t.Helper()
	out := map[string]string{}
	_ = filepath.Walk(dir, func(p string, info os.FileInfo, err error) error {
		if err == nil && !info.IsDir() {
			b, _ := os.ReadFile(p)
			rel, _ := filepath.Rel(dir, p)
			out[rel] = string(b)
		}
		return nil
	})
	return out
}

func TestCLISetupProjectScope(t *testing.T) {
	e := startCLIEnv(t)
	for _, client := range []string{"claude-code", "cursor", "vscode", "codex"} {
		t.Run(client, func(t *testing.T) {
			proj := t.TempDir()
			if err := os.WriteFile(filepath.Join(proj, "AGENTS.md"), []byte("# Mine\n"), 0o644); err != nil {
				t.Fatal(err)
			}
			original := cliSnapshotDir(t, proj)
			args := []string{"setup", "--client", client, "--scope", "project", "--project-dir", proj}
			e.run("", args...).wantCode(t, 0)
			once := cliSnapshotDir(t, proj)
			for name, body := range once {
				if strings.Contains(body, e.srv.AdminToken()) {
					t.Errorf("%s holds a literal token", name)
				}
			}
			r := e.run("", args...).wantCode(t, 0)
			if strings.Contains(r.stdout, "updated") || strings.Contains(r.stdout, "created") {
				t.Errorf("second setup changed files:\n%s", r.stdout)
			}
			e.run("", append(args, "--remove")...).wantCode(t, 0)
			if got := cliSnapshotDir(t, proj); !cliEqualMaps(got, original) {
				t.Errorf("setup then --remove left %v, want %v", cliKeys(got), cliKeys(original))
			}
		})
	}
}

func TestCLISetupUserScopeReusesToken(t *testing.T) {
	e := startCLIEnv(t)
	home := t.TempDir()
	t.Setenv("HOME", home)
	t.Setenv("XDG_CONFIG_HOME", filepath.Join(home, ".config"))
	args := []string{"setup", "--client", "claude-code", "--profile", "runtime"}
	e.run("", args...).wantCode(t, 0)
	first := cliSnapshotDir(t, home)
	e.run("", args...).wantCode(t, 0)
	if second := cliSnapshotDir(t, home); !cliEqualMaps(first, second) {
		t.Fatal("second user-scope setup changed files (a new token?)")
	}
	var cfg struct {
		MCPServers map[string]struct {
			URL     string            `json:"url"`
			Headers map[string]string `json:"headers"`
		} `json:"mcpServers"`
	}
	if err := json.Unmarshal([]byte(first[".claude.json"]), &cfg); err != nil {
		t.Fatal(err)
	}
	entry := cfg.MCPServers["agent-deck"]
	tok := strings.TrimPrefix(entry.Headers["Authorization"], "Bearer ")
	if entry.URL != e.srv.URL()+"/mcp" || tok == "" {
		t.Fatalf("entry = %+v", entry)
	}
	actor, err := e.svc.Authenticate(e.ctx, tok, backend.ActorAgent)
	if err != nil || actor.Scope != backend.ScopeAgent {
		t.Errorf("written token: %+v, %v (want an agent token)", actor, err)
	}
	if text := first[filepath.Join(".claude", "CLAUDE.md")]; strings.Contains(text, "register_playbook") || !strings.Contains(text, "bind_workspace") {
		t.Errorf("runtime-profile harness text:\n%s", text)
	}
	if !strings.Contains(first[filepath.Join(".claude", "settings.json")], "statusline") {
		t.Error("no status line in settings.json")
	}
	e.run("", "setup", "--client", "claude-code", "--remove").wantCode(t, 0)
	if left := cliSnapshotDir(t, home); len(left) != 0 {
		t.Errorf("--remove left %v", cliKeys(left))
	}
}

// TestCLIUse pins a project to a deck by name: the committed files (.mcp.json, use.json) name
// the deck, never its database id, which differs on every machine; --refresh still follows a
// recreated deck (by name) and a renamed one (by the id this machine remembers).
func TestCLIUse(t *testing.T) {
	e := startCLIEnv(t)
	e.seed()
	proj := t.TempDir()
	e.run("", "use", "dev", "--project-dir", proj).wantCode(t, 0)
	pin := cliReadJSON(t, filepath.Join(proj, ".agent-deck", "use.json"))
	d, err := e.svc.GetDeck(e.ctx, "dev")
	if err != nil || pin["deck_name"] != "dev" || pin["deck_id"] != nil {
		t.Fatalf("use.json = %v (want the name only; deck %v)", pin, d.ID)
	}
	mcp, _ := os.ReadFile(filepath.Join(proj, ".mcp.json"))
	if !strings.Contains(string(mcp), `"x-agent-deck-deck-id": "dev"`) || !strings.Contains(string(mcp), "${AGENT_DECK_TOKEN}") {
		t.Errorf(".mcp.json:\n%s", mcp)
	}
	for name, body := range cliSnapshotDir(t, proj) {
		if strings.Contains(body, d.ID) {
			t.Errorf("%s holds the deck's database id", name)
		}
	}
	// Recreated under the same name: --refresh finds the new deck.
	if err := e.svc.DeleteDeck(e.ctx, d.ID); err != nil {
		t.Fatal(err)
	}
	d2, err := e.svc.CreateDeck(e.ctx, core.DeckInput{Name: "dev"})
	if err != nil {
		t.Fatal(err)
	}
	r := e.run("", "use", "--refresh", "--project-dir", proj, "--json").wantCode(t, 0)
	if !strings.Contains(r.stdout, d2.ID) {
		t.Errorf("refresh did not find the recreated deck %s:\n%s", d2.ID, r.stdout)
	}
	// Renamed: --refresh follows the id this machine remembers and records the new name.
	if _, err := e.svc.RenameDeck(e.ctx, d2.ID, core.DeckInput{Name: "development"}); err != nil {
		t.Fatal(err)
	}
	e.run("", "use", "--refresh", "--project-dir", proj).wantCode(t, 0)
	if pin := cliReadJSON(t, filepath.Join(proj, ".agent-deck", "use.json")); pin["deck_name"] != "development" {
		t.Errorf("refresh after rename: %v", pin)
	}
	if mcp, _ := os.ReadFile(filepath.Join(proj, ".mcp.json")); !strings.Contains(string(mcp), `"x-agent-deck-deck-id": "development"`) {
		t.Errorf(".mcp.json after rename:\n%s", mcp)
	}
	// A use.json written before (with the id) still refreshes after a rename.
	old := `{"deck_id": "` + d2.ID + `", "deck_name": "development"}`
	if err := os.WriteFile(filepath.Join(proj, ".agent-deck", "use.json"), []byte(old), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Remove(filepath.Join(e.home, "use-pins.json")); err != nil {
		t.Fatal(err)
	}
	if _, err := e.svc.RenameDeck(e.ctx, d2.ID, core.DeckInput{Name: "dev2"}); err != nil {
		t.Fatal(err)
	}
	e.run("", "use", "--refresh", "--project-dir", proj).wantCode(t, 0)
	if pin := cliReadJSON(t, filepath.Join(proj, ".agent-deck", "use.json")); pin["deck_name"] != "dev2" || pin["deck_id"] != nil {
		t.Errorf("refresh of an older use.json: %v", pin)
	}
	e.run("", "use", "nope", "--project-dir", proj).wantCode(t, 1)
}

func cliReadJSON(t *testing.T, path string) map[string]any {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var m map[string]any
	if err := json.Unmarshal(b, &m); err != nil {
		t.Fatal(err)
	}
	return m
}

func cliEqualMaps(a, b map[string]string) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range a {
		if b[k] != v {
			return false
		}
	}
	return true
}

func cliKeys(m map[string]string) []string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	return out
}
