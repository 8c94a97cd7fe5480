package tests

import (
	"encoding/json"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// TestCLIJSONEverywhere: the commands that printed only prose answer --json with one JSON value
// on stdout, and none holds a secret.
func TestCLIJSONEverywhere(t *testing.T) {
	e := startCLIEnv(t)
	e.seed()
	home := t.TempDir()
	t.Setenv("HOME", home)
	t.Setenv("XDG_CONFIG_HOME", filepath.Join(home, ".config"))
	proj := t.TempDir()
	tok := strings.TrimSpace(e.run("", "token", "create", "ci", "--scope", "agent:read").wantCode(t, 0).stdout)

	tests := []struct {
		name  string
		stdin string
		args  []string
		keys  []string // top-level keys the object must have
	}{
		{"export to a file", "", []string{"export", "-o", filepath.Join(t.TempDir(), "b.json"), "--json"},
			[]string{"output", "bytes", "services", "credentials", "playbooks", "decks"}},
		{"setup", "", []string{"setup", "--client", "claude-code", "--json"}, []string{"client", "scope", "removed", "files"}},
		{"setup --remove", "", []string{"setup", "--client", "claude-code", "--remove", "--json"}, []string{"files"}},
		{"use", "", []string{"use", "dev", "--project-dir", proj, "--json"}, []string{"deck_id", "deck_name", "files"}},
		{"credential rotate", "rotated-secret-31f0\n", []string{"credential", "rotate", "GitHub", "--json"},
			[]string{"id", "label", "env_name"}},
		{"token revoke", "", []string{"token", "revoke", tokenID(t, e, "ci"), "--yes", "--json"}, []string{"id", "revoked"}},
		{"exec dry run", "", []string{"exec", "--dry-run", "--connections", "cred_github", "--json", "--", "env"},
			[]string{"command", "variables", "dry_run"}},
		{"exec", "", []string{"exec", "--connections", "cred_github", "--json", "--", "sh", "-c", "echo child-out; exit 3"},
			[]string{"command", "variables", "exit_code", "audit_id"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := e.run(tt.stdin, tt.args...)
			if r.code != 0 && !(tt.name == "exec" && r.code == 3) {
				t.Fatalf("exit %d\n%s%s", r.code, r.stdout, r.stderr)
			}
			var obj map[string]any
			if err := json.Unmarshal([]byte(r.stdout), &obj); err != nil {
				t.Fatalf("stdout is not one JSON object: %v\n%s", err, r.stdout)
			}
			for _, k := range tt.keys {
				if _, ok := obj[k]; !ok {
					t.Errorf("no %q in %s", k, r.stdout)
				}
			}
			for _, s := range []string{cliCanary, "rotated-secret-31f0", tok} {
				if strings.Contains(r.stdout+r.stderr, s) {
					t.Errorf("output holds a secret:\n%s%s", r.stdout, r.stderr)
				}
			}
		})
	}
	r := e.run("", "exec", "--connections", "cred_github", "--json", "--", "sh", "-c", "echo child-out; exit 3")
	var rep struct {
		ExitCode *int     `json:"exit_code"`
		Command  []string `json:"command"`
	}
	if err := json.Unmarshal([]byte(r.stdout), &rep); err != nil || r.code != 3 || rep.ExitCode == nil || *rep.ExitCode != 3 ||
		!slices.Equal(rep.Command[:2], []string{"sh", "-c"}) || !strings.Contains(r.stderr, "child-out") {
		t.Errorf("exec --json: code %d, %v, stdout %q, stderr %q", r.code, err, r.stdout, r.stderr)
	}
}

func tokenID(t *testing.T, e *cliEnv, name string) string {
	t.Helper()
	var list []struct{ ID, Name string }
	if err := json.Unmarshal([]byte(e.run("", "token", "list", "--json").wantCode(t, 0).stdout), &list); err != nil {
		t.Fatal(err)
	}
	for _, tk := range list {
		if tk.Name == name {
			return tk.ID
		}
	}
	t.Fatalf("no token %s", name)
	return ""
}
