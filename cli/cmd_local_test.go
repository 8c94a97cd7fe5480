package cli

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/agent-deck/agent-deck/backend/core"
)

// TestCmdStatus runs status against a server with one live session, and against none.
func TestCmdStatus(t *testing.T) {
	e := startCmdEnv(t)
	w := e.seed()
	e.name(strconv.Itoa(os.Getpid()), "<pid>")
	ws := t.TempDir()
	e.name(ws, "<workspace>")
	sess, err := e.hub.OpenSession(w.agent, core.OpenSessionInput{Profile: "standard", Deck: w.deck.ID,
		ClientName: "claude-code", WorkspaceRoot: ws})
	if err != nil {
		t.Fatal(err)
	}
	e.cells[sess.Badge] = "<badge>"
	e.name(`"badge": "`+sess.Badge+`"`, `"badge": "<badge>"`)
	e.runCases(t, "status", []cmdCase{
		{name: "status", args: []string{"status"}},
		{name: "status-json", args: []string{"status", "--json"}},
		{name: "status-extra-flag", args: []string{"status", "--all"}, code: 1},
		{name: "status-bad-token", args: []string{"status", "--server", e.srv.URL(), "--token", "adk_wrong"}, code: 1},
	})
	down := &cmdEnv{t: t, home: t.TempDir(), cells: map[string]string{}}
	down.runCases(t, "status", []cmdCase{
		{name: "down", args: []string{"--server", "http://127.0.0.1:1", "status"}, code: 2},
		{name: "down-json", args: []string{"status", "--json", "--server", "http://127.0.0.1:1"}, code: 2},
	})
}

// TestCmdVersionAndCompletion runs the commands that need no server: version, completion and man.
func TestCmdVersionAndCompletion(t *testing.T) {
	e := &cmdEnv{t: t, home: t.TempDir(), cells: map[string]string{}}
	e.runCases(t, "local", []cmdCase{
		{name: "version", args: []string{"version"}},
		{name: "version-flag", args: []string{"--version"}},
		{name: "version-json", args: []string{"version", "--json"}},
		{name: "version-bad-flag", args: []string{"version", "--short"}, code: 1},
		{name: "root-bad-flag", args: []string{"--verbose", "version"}, code: 1},
		{name: "adopt-no-from", args: []string{"adopt"}, code: 1},
		{name: "completion-bash", args: []string{"completion", "bash"}},
		{name: "completion-zsh", args: []string{"completion", "zsh"}},
		{name: "completion-fish", args: []string{"completion", "fish"}, verify: fishCompletion},
		{name: "completion-unknown-shell", args: []string{"completion", "ksh"}, code: 1},
		{name: "completion-no-shell", args: []string{"completion"}, code: 1},
		{name: "man", args: []string{"man"}, verify: manPageChecks},
		{name: "man-extra-argument", args: []string{"man", "deck"}, code: 1},
	})
}

// fishCompletion checks the fish script urfave/cli writes from the command tree: it completes
// the top-level commands and a subcommand's flags. The whole script changes with every flag, so
// it is not a golden file.
func fishCompletion(t *testing.T, r cmdResult) {
	for _, want := range []string{"complete -c agent-deck", "-a 'serve'", "__fish_seen_subcommand_from deck", "-l json"} {
		if !strings.Contains(r.stdout, want) {
			t.Errorf("the fish script lacks %q", want)
		}
	}
	if r.stderr != "" {
		t.Errorf("stderr: %q", r.stderr)
	}
}

// TestCmdStatusline runs the status line for a bound workspace, an unbound one, a server that
// refuses the token and a server that is down: always one line and exit 0.
func TestCmdStatusline(t *testing.T) {
	e := startCmdEnv(t)
	w := e.seed()
	bound, unbound := t.TempDir(), t.TempDir()
	e.name(bound, "<bound>")
	e.name(unbound, "<unbound>")
	sess, err := e.hub.OpenSession(w.agent, core.OpenSessionInput{Profile: "standard", Deck: w.deck.ID,
		ClientName: "claude-code", WorkspaceRoot: bound})
	if err != nil {
		t.Fatal(err)
	}
	e.name("⌘"+sess.Badge, "⌘<badge>")
	e.runCases(t, "statusline", []cmdCase{
		{name: "bound", stdin: `{"workspace":{"current_dir":"` + filepath.Join(bound, "src") + `"}}`, args: []string{"statusline"}},
		{name: "unbound", stdin: `{"cwd":"` + unbound + `"}`, args: []string{"statusline"}},
		{name: "token-refused", stdin: `{"cwd":"` + bound + `"}`,
			args: []string{"statusline", "--server", e.srv.URL(), "--token", "adk_wrong"}},
		{name: "down", stdin: `{"cwd":"` + bound + `"}`, args: []string{"statusline", "--server", "http://127.0.0.1:1"}},
	})
}

// TestCmdUseAndSetup runs use (pin a project to a deck) and setup (write Agent Deck into a
// client's config) in a home and a project of their own.
func TestCmdUseAndSetup(t *testing.T) {
	e := startCmdEnv(t)
	e.seed()
	home := t.TempDir()
	t.Setenv("HOME", home)
	t.Setenv("XDG_CONFIG_HOME", filepath.Join(home, ".config"))
	proj, other := t.TempDir(), t.TempDir()
	e.name(proj, "<project>")
	e.name(other, "<other>")
	e.name(home, "~")
	e.runCases(t, "use", []cmdCase{
		{name: "use", args: []string{"use", "dev", "--project-dir", proj}},
		{name: "use-again-json", args: []string{"use", "dev", "--project-dir", proj, "--json"}},
		{name: "use-refresh", args: []string{"use", "--refresh", "--project-dir", proj}},
		{name: "use-no-deck", args: []string{"use", "--project-dir", proj}, code: 1},
		{name: "use-unknown-deck", args: []string{"use", "nope", "--project-dir", other}, code: 1},
		{name: "use-refresh-unpinned", args: []string{"use", "--refresh", "--project-dir", other}, code: 1},
		{name: "use-unknown-client", args: []string{"use", "dev", "--client", "notepad", "--project-dir", other}, code: 1},
	})
	e.runCases(t, "setup", []cmdCase{
		{name: "setup", args: []string{"setup", "--client", "claude-code"}},
		{name: "setup-again-json", args: []string{"setup", "--client", "claude-code", "--json"}},
		{name: "setup-project", args: []string{"setup", "--client", "claude-code", "--scope", "project", "--project-dir", other}},
		{name: "setup-remove", args: []string{"setup", "--client", "claude-code", "--remove"}},
		{name: "setup-unknown-client", args: []string{"setup", "--client", "notepad"}, code: 1},
		{name: "setup-unknown-profile", args: []string{"setup", "--client", "claude-code", "--profile", "huge"}, code: 1},
		{name: "setup-no-client", args: []string{"setup"}, code: 1},
	})
}
