package tests

import (
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// completionServer is a running server with cards whose names test the shells' quoting: a
// space, a colon (zsh's separator) and a command substitution that no shell may run.
func completionServer(t *testing.T) *restDeck {
	t.Helper()
	d := startRESTDeck(t)
	for _, name := range []string{"alpha", "beta two", "a:b", "$(touch pwned)"} {
		d.api.Must(t, http.StatusCreated, "POST", "/api/v1/decks", map[string]any{"name": name}, nil)
	}
	d.api.Must(t, http.StatusCreated, "POST", "/api/v1/services",
		map[string]any{"name": "github", "type": "mcp", "url": "http://127.0.0.1:9/mcp"}, nil)
	d.api.Must(t, http.StatusCreated, "POST", "/api/v1/playbooks",
		map[string]any{"title": "Release notes", "body": "Write them."}, nil)
	return d
}

// shell runs script in the named shell with the built binary on PATH, in a fresh directory, and
// fails the test if the shell ran the command substitution of a deck's name.
func shell(t *testing.T, d *restDeck, name string, script string) string {
	t.Helper()
	if _, err := exec.LookPath(name); err != nil {
		t.Skipf("%s not installed", name)
	}
	dir := t.TempDir()
	cmd := exec.Command(name, "-c", script)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "PATH="+filepath.Dir(agentDeckBinary(t))+":"+os.Getenv("PATH"),
		"URL="+d.srv.URL(), "TOKEN="+d.srv.AdminToken(), "HOME="+t.TempDir())
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("%s: %v\n%s", name, err, out)
	}
	if _, err := os.Stat(filepath.Join(dir, "pwned")); err == nil {
		t.Fatalf("%s ran the command substitution in a deck's name", name)
	}
	return string(out)
}

// TestCLICompletionNamesFromTheServer: bash, zsh and fish complete deck, service and playbook
// names from the running server (the one --server names), quoted for the shell, filtered by
// what is typed, and nothing when no server answers.
func TestCLICompletionNamesFromTheServer(t *testing.T) {
	d := completionServer(t)
	script := func(shellName string) string {
		return runCLI(t.TempDir(), strings.NewReader(""), "completion", shellName).wantCode(t, 0).stdout
	}

	t.Run("bash", func(t *testing.T) {
		out := shell(t, d, "bash", script("bash")+`
c() { COMP_WORDS=("$@"); COMP_CWORD=$(( $# - 1 )); _agent_deck_complete; printf '%s\n' "${COMPREPLY[@]}" "--"; }
c agent-deck --server "$URL" --token "$TOKEN" deck show ''
c agent-deck --server "$URL" --token "$TOKEN" deck show al
c agent-deck --server "$URL" --token "$TOKEN" deck show 'beta\ t'
c agent-deck --server "$URL" --token "$TOKEN" deck tools alpha ''
c agent-deck --server "$URL" --token "$TOKEN" use ''
c agent-deck --server "$URL" --token "$TOKEN" playbook show ''
c agent-deck --server "$URL" --token "$TOKEN" deck show --js
c agent-deck --server "$URL" --token "$TOKEN" deck show --json ''
c agent-deck --server http://127.0.0.1:1 --token x deck show ''
`)
		want := strings.Join([]string{
			`\$\(touch\ pwned\)`, "a:b", "alpha", `beta\ two`, "--",
			"alpha", "--",
			`beta\ two`, "--",
			"github", "--",
			`\$\(touch\ pwned\)`, "a:b", "alpha", `beta\ two`, "--",
			`Release\ notes`, "--",
			"--json", "--",
			`\$\(touch\ pwned\)`, "a:b", "alpha", `beta\ two`, "--",
			"--", ""}, "\n")
		if diff := cmp.Diff(want, out); diff != "" {
			t.Errorf("bash completions (-want +got):\n%s", diff)
		}
	})

	t.Run("zsh", func(t *testing.T) {
		// The completion system's functions, stubbed to print what they were given.
		out := shell(t, d, "zsh", `
compdef() { :; }
_describe() { print -rl -- "${(@P)2}" "--"; }
_files() { print -rl -- "(files)" "--"; }
`+script("zsh")+`
c() { words=("$@"); _agent_deck_complete; }
c agent-deck --server "$URL" --token "$TOKEN" deck show ''
c agent-deck --server "$URL" --token "$TOKEN" service show ''
c agent-deck --server http://127.0.0.1:1 --token x deck show ''
`)
		want := strings.Join([]string{
			`$(touch pwned)`, `a\:b`, "alpha", "beta two", "--",
			"github", "--",
			"(files)", "--", ""}, "\n")
		if diff := cmp.Diff(want, out); diff != "" {
			t.Errorf("zsh completions (-want +got):\n%s", diff)
		}
	})

	t.Run("fish", func(t *testing.T) {
		// urfave/cli's part of the fish script offers a command's subcommands and flags beside
		// the names (it knows the tree, not where on it the line is); the names are what the
		// server adds.
		out := shell(t, d, "fish", script("fish")+`
complete -C "agent-deck --server $URL --token $TOKEN deck show "
printf '%s\n' ---
complete -C "agent-deck --server $URL --token $TOKEN playbook show Rel"
printf '%s\n' ---
complete -C "agent-deck --server http://127.0.0.1:1 --token x deck show "
`)
		parts := strings.Split(out, "---\n")
		if len(parts) != 3 {
			t.Fatalf("fish printed %q", out)
		}
		names := []string{"$(touch pwned)", "a:b", "alpha", "beta two", "Release notes"}
		for i, want := range [][]string{names[:4], names[4:], nil} {
			var got []string
			for _, line := range strings.Split(parts[i], "\n") {
				if w, _, _ := strings.Cut(line, "\t"); slices.Contains(names, w) {
					got = append(got, w)
				}
			}
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("fish names %d (-want +got):\n%s", i, diff)
			}
		}
	})
}
