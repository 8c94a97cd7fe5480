package tests

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agent-deck/agent-deck/backend"
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
	if _, err := e.svc.CreateToken(e.ctx, backend.TokenInput{Name: "claude-code-project", Scope: backend.ScopeAgent}); err != nil {
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
