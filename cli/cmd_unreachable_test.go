package cli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestCmdUnreachable runs every command that talks to the server against an address where
// nothing listens: exit 2, one line on stderr that says how to start the server, nothing on
// stdout. A data home whose server stopped names the address it ran at.
func TestCmdUnreachable(t *testing.T) {
	home := t.TempDir()
	t.Setenv("HOME", t.TempDir())
	bundle := filepath.Join(t.TempDir(), "b.json")
	if err := os.WriteFile(bundle, []byte(`{"format":"agent-deck-bundle","version":1}`), 0o600); err != nil {
		t.Fatal(err)
	}
	const id = "00000000-0000-4000-8000-000000000001"
	commands := []struct {
		args  []string
		stdin string
	}{
		{args: []string{"deck", "list"}},
		{args: []string{"deck", "show", "dev", "--json"}},
		{args: []string{"deck", "create", "dev"}},
		{args: []string{"deck", "tools", "dev", "peer", "--allow", "echo"}},
		{args: []string{"deck", "credential", "dev", "peer"}},
		{args: []string{"deck", "sampling", "dev", "peer", "--allow"}},
		{args: []string{"deck", "delete", "dev", "--yes"}},
		{args: []string{"service", "list"}},
		{args: []string{"service", "show", "peer"}},
		{args: []string{"service", "add", "notes", "https://notes.example.test/mcp"}},
		{args: []string{"service", "edit", "notes", "--description", "x"}},
		{args: []string{"service", "tools", "peer"}},
		{args: []string{"service", "enable", "peer", "echo"}},
		{args: []string{"service", "disable", "peer", "echo"}},
		{args: []string{"service", "check", "peer"}},
		{args: []string{"service", "approve", "peer", "--yes"}},
		{args: []string{"service", "connect", "notes", "--no-open"}},
		{args: []string{"service", "disconnect", "notes", "--yes"}},
		{args: []string{"service", "delete", "notes", "--yes"}},
		{args: []string{"credential", "list"}},
		{args: []string{"credential", "show", "GitHub"}},
		{args: []string{"credential", "add", "GitHub"}, stdin: cmdCanary},
		{args: []string{"credential", "rotate", "GitHub"}, stdin: cmdCanary},
		{args: []string{"credential", "delete", "GitHub", "--yes"}},
		{args: []string{"playbook", "list"}},
		{args: []string{"playbook", "show", "pb_x"}},
		{args: []string{"playbook", "delete", "pb_x", "--yes"}},
		{args: []string{"proposals"}},
		{args: []string{"proposal", "show", id}},
		{args: []string{"proposal", "accept", id, "--yes"}},
		{args: []string{"proposal", "reject", id, "--yes"}},
		{args: []string{"signals"}},
		{args: []string{"signal", "discard", id, "--yes"}},
		{args: []string{"token", "create", "ci"}},
		{args: []string{"token", "list"}},
		{args: []string{"token", "revoke", id, "--yes"}},
		{args: []string{"calls"}},
		{args: []string{"calls", "capture", "dev", "on"}},
		{args: []string{"export", "-o", "-"}},
		{args: []string{"import", bundle}},
		{args: []string{"exec", "-c", "cred_github", "--", "true"}},
		{args: []string{"status"}},
		{args: []string{"use", "dev", "--project-dir", t.TempDir()}},
		{args: []string{"setup", "--client", "claude-code"}},
	}
	for _, tc := range commands {
		t.Run(strings.Join(tc.args[:min(2, len(tc.args))], " "), func(t *testing.T) {
			r := runCmd(home, strings.NewReader(tc.stdin), append([]string{"--server", "http://127.0.0.1:1"}, tc.args...)...)
			want := "agent-deck: no server at http://127.0.0.1:1 — start it with `agent-deck serve`\n"
			if r.code != 2 || r.stderr != want || r.stdout != "" {
				t.Errorf("exit %d, stdout %q, stderr %q; want exit 2, no stdout, stderr %q", r.code, r.stdout, r.stderr, want)
			}
		})
	}
	t.Run("stopped server", func(t *testing.T) {
		stopped := t.TempDir()
		if err := os.WriteFile(filepath.Join(stopped, "last-server.json"), []byte(`{"url":"http://127.0.0.1:1","pid":1}`), 0o600); err != nil {
			t.Fatal(err)
		}
		r := runCmd(stopped, strings.NewReader(""), "deck", "list")
		want := "agent-deck: the server that ran at http://127.0.0.1:1 is not running; start it with `make run` or `agent-deck serve`\n"
		if r.code != 2 || r.stderr != want || r.stdout != "" {
			t.Errorf("exit %d, stdout %q, stderr %q; want exit 2, no stdout, stderr %q", r.code, r.stdout, r.stderr, want)
		}
	})
}
