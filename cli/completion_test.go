package cli

import (
	"os"
	"os/exec"
	"strings"
	"testing"

	"github.com/urfave/cli/v2"
)

// commandPaths lists every command of the tree as people type it ("deck show").
func commandPaths(path string, cmds []*cli.Command) map[string]*cli.Command {
	out := map[string]*cli.Command{}
	for _, c := range cmds {
		full := strings.TrimSpace(path + " " + c.Name)
		out[full] = c
		for p, sub := range commandPaths(full, c.Subcommands) {
			out[p] = sub
		}
	}
	return out
}

// TestArgCompletionsNameCommands: every row of argCompletions names a command of the tree that
// takes arguments, and that command got the row's completion.
func TestArgCompletionsNameCommands(t *testing.T) {
	paths := commandPaths("", App(os.Stdin, os.Stdout, os.Stderr).Commands)
	for path := range argCompletions {
		c, ok := paths[path]
		switch {
		case !ok:
			t.Errorf("argCompletions has %q, which is no command", path)
		case c.ArgsUsage == "":
			t.Errorf("%q takes no arguments to complete", path)
		case c.BashComplete == nil:
			t.Errorf("%q has no completion", path)
		}
	}
	for _, path := range []string{"deck show", "service show", "playbook show", "use"} {
		if _, ok := argCompletions[path]; !ok {
			t.Errorf("%q does not complete names from the server", path)
		}
	}
}

// manPageChecks holds the manual page to the command tree: its title, every command (each at
// its level), the environment variables, texts that markdown would eat (<home>), nothing of this
// machine's home directory, and a page groff reads without a warning.
func manPageChecks(t *testing.T, r cmdResult) {
	page := r.stdout
	if !strings.HasPrefix(page, ".nh\n.TH agent-deck 1") {
		t.Errorf("the page does not open with .TH agent-deck 1:\n%.200s", page)
	}
	for path, c := range commandPaths("", commands()) {
		if c.Hidden {
			continue
		}
		level := map[bool]string{true: ".SH ", false: ".SS "}[!strings.Contains(path, " ")]
		if !strings.Contains(page, "\n"+level+strings.Join(c.Names(), ", ")+"\n") {
			t.Errorf("the page has no %s%s", level, strings.Join(c.Names(), ", "))
		}
	}
	for _, want := range []string{".SH ENVIRONMENT", "AGENT_DECK_HOME", "OTEL_SERVICE_NAME",
		"<home>/server.json", "(default: ~/.agent-deck)", "agent-deck deck tools [options] DECK SERVICE", "Exit codes"} {
		if !strings.Contains(page, want) {
			t.Errorf("the page lacks %q", want)
		}
	}
	if home, _ := os.UserHomeDir(); home != "" && strings.Contains(page, home+"/") {
		t.Errorf("the page holds this machine's home directory %s", home)
	}
	if _, err := exec.LookPath("groff"); err != nil {
		t.Log("groff not installed: the page is not rendered")
		return
	}
	cmd := exec.Command("groff", "-k", "-man", "-Tutf8", "-ww", "-z")
	cmd.Stdin = strings.NewReader(page)
	if out, err := cmd.CombinedOutput(); err != nil || len(out) > 0 {
		t.Errorf("groff warns about the page (%v):\n%s", err, out)
	}
}
