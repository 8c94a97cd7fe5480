package tests

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agent-deck/agent-deck/backend"
	"github.com/agent-deck/agent-deck/backend/core"
)

// cliSetupHome points HOME and the user config directory at a fresh directory.
func cliSetupHome(t *testing.T) string {
	t.Helper()
	home := t.TempDir()
	t.Setenv("HOME", home)
	t.Setenv("XDG_CONFIG_HOME", filepath.Join(home, ".config"))
	return home
}

// liveSetupTokens counts the live tokens named like setup's.
func liveSetupTokens(t *testing.T, e *cliEnv, name string) int {
	t.Helper()
	list, err := e.svc.ListTokens(e.ctx)
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, tk := range list {
		if tk.Name == name && tk.RevokedAt == nil {
			n++
		}
	}
	return n
}

// TestCLISetupRemoveRevokesToken: every setup/remove cycle used to leave one more live agent
// token; now --remove revokes the token setup created (recorded in the home, or found by name
// for a setup that predates the record).
func TestCLISetupRemoveRevokesToken(t *testing.T) {
	e := startCLIEnv(t)
	home := cliSetupHome(t)
	for cycle := range 2 {
		e.run("", "setup", "--client", "claude-code").wantCode(t, 0)
		cfg := cliReadJSON(t, filepath.Join(home, ".claude.json"))
		auth := cfg["mcpServers"].(map[string]any)["agent-deck"].(map[string]any)["headers"].(map[string]any)["Authorization"].(string)
		tok := strings.TrimPrefix(auth, "Bearer ")
		if _, err := e.svc.Authenticate(e.ctx, tok, backend.ActorAgent); err != nil {
			t.Fatalf("cycle %d: the token setup wrote does not work: %v", cycle, err)
		}
		if cycle == 1 { // a setup from before the record: found by its name
			if err := os.Remove(filepath.Join(e.home, "setup-tokens.json")); err != nil {
				t.Fatal(err)
			}
		}
		r := e.run("", "setup", "--client", "claude-code", "--remove").wantCode(t, 0)
		if !strings.Contains(r.stdout, "revoked") {
			t.Errorf("cycle %d: --remove did not say it revoked the token:\n%s", cycle, r.stdout)
		}
		if _, err := e.svc.Authenticate(e.ctx, tok, backend.ActorAgent); err == nil {
			t.Fatalf("cycle %d: the token still works after setup --remove", cycle)
		}
		if n := liveSetupTokens(t, e, "claude-code-user"); n != 0 {
			t.Fatalf("cycle %d: %d live setup tokens left", cycle, n)
		}
	}
	// A project-scope remove never revokes the person's own token of the suggested name.
	if _, err := e.svc.CreateToken(e.ctx, core.TokenInput{Name: "claude-code-project", Scope: backend.ScopeAgent}); err != nil {
		t.Fatal(err)
	}
	proj := t.TempDir()
	e.run("", "setup", "--client", "claude-code", "--scope", "project", "--project-dir", proj).wantCode(t, 0)
	r := e.run("", "setup", "--client", "claude-code", "--scope", "project", "--project-dir", proj, "--remove", "--json").wantCode(t, 0)
	var out map[string]any
	if err := json.Unmarshal([]byte(r.stdout), &out); err != nil || out["revoked_token"] != nil {
		t.Errorf("project remove: %v %s", err, r.stdout)
	}
	if n := liveSetupTokens(t, e, "claude-code-project"); n != 1 {
		t.Errorf("a project-scope remove revoked the person's own token")
	}
}

// TestCLISetupVSCodeUserMCPJSON: VS Code keeps user-level MCP servers in the profile's mcp.json
// (top-level "servers"), no longer in settings.json. setup writes there, and takes the entry an
// older Agent Deck wrote into settings.json out, keeping the person's settings.
func TestCLISetupVSCodeUserMCPJSON(t *testing.T) {
	e := startCLIEnv(t)
	home := cliSetupHome(t)
	user := filepath.Join(home, ".config", "Code", "User")
	if err := os.MkdirAll(user, 0o755); err != nil {
		t.Fatal(err)
	}
	settings := filepath.Join(user, "settings.json")
	legacy := `{
    "editor.fontSize": 14, // mine
    "mcp": {
        "servers": {
            "agent-deck": { "type": "http", "url": "http://127.0.0.1:1110/mcp" }
        }
    }
}
`
	if err := os.WriteFile(settings, []byte(legacy), 0o644); err != nil {
		t.Fatal(err)
	}
	e.run("", "setup", "--client", "vscode").wantCode(t, 0)
	cfg := cliReadJSON(t, filepath.Join(user, "mcp.json"))
	entry, _ := cfg["servers"].(map[string]any)["agent-deck"].(map[string]any)
	if entry["url"] != e.srv.URL()+"/mcp" || entry["type"] != "http" {
		t.Fatalf("mcp.json entry = %v", cfg)
	}
	b, _ := os.ReadFile(settings)
	if strings.Contains(string(b), "agent-deck") || !strings.Contains(string(b), `"editor.fontSize": 14 // mine`) {
		t.Errorf("settings.json after setup:\n%s", b)
	}
	e.run("", "setup", "--client", "vscode", "--remove").wantCode(t, 0)
	if _, err := os.Stat(filepath.Join(user, "mcp.json")); err == nil {
		t.Errorf("--remove left the mcp.json it created")
	}
	if _, err := os.Stat(settings); err != nil {
		t.Errorf("--remove deleted the person's settings.json: %v", err)
	}
}

// TestCLISetupStatusLineHome: the status line Claude Code runs must read the same data home as
// the setup that installed it; with a home other than the default, the command names it (one
// shell word, even with spaces and quotes in the path).
func TestCLISetupStatusLineHome(t *testing.T) {
	e := startCLIEnv(t)
	home := cliSetupHome(t)
	dataHome := filepath.Join(t.TempDir(), "it's a home")
	if err := os.Rename(e.home, dataHome); err != nil {
		t.Fatal(err)
	}
	e.home = dataHome
	e.run("", "setup", "--client", "claude-code").wantCode(t, 0)
	settings := cliReadJSON(t, filepath.Join(home, ".claude", "settings.json"))
	cmd, _ := settings["statusLine"].(map[string]any)["command"].(string)
	out, err := exec.Command("sh", "-c", `set -- `+cmd+`; printf '%s\n' "$@"`).Output()
	if err != nil {
		t.Fatalf("the status line command %q does not parse: %v", cmd, err)
	}
	words := strings.Split(strings.TrimSuffix(string(out), "\n"), "\n")
	if len(words) != 4 || words[1] != "--home" || words[2] != dataHome || words[3] != "statusline" {
		t.Errorf("status line command %q splits into %q, want [agent-deck --home %q statusline]", cmd, words, dataHome)
	}
	// A project's settings are shared: they never carry this machine's home.
	proj := t.TempDir()
	e.run("", "setup", "--client", "claude-code", "--scope", "project", "--project-dir", proj).wantCode(t, 0)
	if b, _ := os.ReadFile(filepath.Join(proj, ".claude", "settings.json")); !strings.Contains(string(b), "statusline") ||
		strings.Contains(string(b), "--home") {
		t.Errorf("project settings.json:\n%s", b)
	}
	// With the default home the command stays short.
	t.Setenv("HOME", dataHome[:len(dataHome)-len("/it's a home")])
	e.home = filepath.Join(os.Getenv("HOME"), ".agent-deck")
	if err := os.Rename(dataHome, e.home); err != nil {
		t.Fatal(err)
	}
	e.run("", "setup", "--client", "claude-code").wantCode(t, 0)
	settings = cliReadJSON(t, filepath.Join(os.Getenv("HOME"), ".claude", "settings.json"))
	if cmd, _ := settings["statusLine"].(map[string]any)["command"].(string); strings.Contains(cmd, "--home") {
		t.Errorf("default home: %q", cmd)
	}
}
