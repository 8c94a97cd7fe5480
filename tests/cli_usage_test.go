package tests

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"
)

// TestCLIVersion holds issue 10's version item: `version`, `--version` and `version --json`
// agree, name the Go toolchain, and the built binary says the same as the in-process CLI.
func TestCLIVersion(t *testing.T) {
	home := t.TempDir()
	cmd := runCLI(home, strings.NewReader(""), "version").wantCode(t, 0)
	flag := runCLI(home, strings.NewReader(""), "--version").wantCode(t, 0)
	if cmd.stdout != flag.stdout {
		t.Errorf("version printed %q, --version printed %q", cmd.stdout, flag.stdout)
	}
	if !strings.HasPrefix(cmd.stdout, "agent-deck version ") || !strings.Contains(cmd.stdout, runtime.Version()) {
		t.Errorf("version printed %q, want agent-deck version … %s", cmd.stdout, runtime.Version())
	}
	var got struct {
		Version   string `json:"version"`
		GoVersion string `json:"go_version"`
	}
	js := runCLI(home, strings.NewReader(""), "version", "--json").wantCode(t, 0)
	if err := json.Unmarshal([]byte(js.stdout), &got); err != nil {
		t.Fatalf("version --json: %v\n%s", err, js.stdout)
	}
	if got.Version == "" || got.GoVersion != runtime.Version() {
		t.Errorf("version --json = %+v, want a version and %s", got, runtime.Version())
	}

	out, err := exec.Command(agentDeckBinary(t), "--version").Output()
	if err != nil {
		t.Fatalf("binary --version: %v", err)
	}
	if !strings.HasPrefix(string(out), "agent-deck version ") || !strings.Contains(string(out), runtime.Version()) {
		t.Errorf("binary --version printed %q", out)
	}
}

// TestCLIUnknownCommand holds issue 10's exit-code item: an unknown command or subcommand is
// a user error (exit 1, not urfave/cli's 3) that names the closest command; help still works.
func TestCLIUnknownCommand(t *testing.T) {
	tests := []struct {
		name string
		args []string
		code int
		want string // in stderr when code is 1, in stdout when 0
	}{
		{"typo", []string{"servce"}, 1, `did you mean "agent-deck serve"`},
		{"prefix", []string{"tok"}, 1, `did you mean "agent-deck token"`},
		// Two characters off, four bytes off: distances count characters.
		{"typo with accents", []string{"sérvicé"}, 1, `did you mean "agent-deck service"`},
		{"nothing close", []string{"frobnicate"}, 1, `unknown command "frobnicate"`},
		{"subcommand typo", []string{"deck", "lst"}, 1, `did you mean "agent-deck deck list"`},
		{"subcommand unknown", []string{"token", "frobnicate"}, 1, `unknown command "frobnicate" (see agent-deck token --help)`},
		{"help", []string{"help"}, 0, "USAGE:"},
		{"bare", nil, 0, "USAGE:"},
		{"bare group", []string{"deck"}, 0, "agent-deck deck"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			r := runCLI(t.TempDir(), strings.NewReader(""), tc.args...).wantCode(t, tc.code)
			out := r.stdout
			if tc.code != 0 {
				out = r.stderr
			}
			if !strings.Contains(out, tc.want) {
				t.Errorf("output %q does not contain %q", out, tc.want)
			}
		})
	}
}

// TestCLICompletion holds issue 10's completion item: `completion SHELL` prints a script the
// shell accepts, and the bash one really completes a command from the binary.
func TestCLICompletion(t *testing.T) {
	tests := []struct {
		shell string
		want  string   // in the script
		check []string // syntax check: the shell and its flag; skipped when not installed
	}{
		{"bash", "complete -o bashdefault -o default -F _agent_deck_complete agent-deck", []string{"bash", "-n"}},
		{"zsh", "compdef _agent_deck_complete agent-deck", []string{"zsh", "-n"}},
		{"fish", "complete -c agent-deck", []string{"fish", "--no-execute"}},
	}
	for _, tc := range tests {
		t.Run(tc.shell, func(t *testing.T) {
			r := runCLI(t.TempDir(), strings.NewReader(""), "completion", tc.shell).wantCode(t, 0)
			if !strings.Contains(r.stdout, tc.want) {
				t.Fatalf("script does not contain %q:\n%s", tc.want, r.stdout)
			}
			if _, err := exec.LookPath(tc.check[0]); err != nil {
				t.Logf("%s not installed: syntax not checked", tc.check[0])
				return
			}
			cmd := exec.Command(tc.check[0], tc.check[1:]...)
			cmd.Stdin = strings.NewReader(r.stdout)
			if out, err := cmd.CombinedOutput(); err != nil {
				t.Fatalf("%s rejects the script: %v\n%s", tc.check[0], err, out)
			}
		})
	}
	t.Run("unknown shell", func(t *testing.T) {
		r := runCLI(t.TempDir(), strings.NewReader(""), "completion", "ksh").wantCode(t, 1)
		if !strings.Contains(r.stderr, "bash, zsh, fish") {
			t.Errorf("stderr %q does not name the shells", r.stderr)
		}
	})
	t.Run("bash completes", func(t *testing.T) {
		bin := agentDeckBinary(t)
		script := runCLI(t.TempDir(), strings.NewReader(""), "completion", "bash").wantCode(t, 0).stdout
		cmd := exec.Command("bash", "-c", script+`
COMP_WORDS=(agent-deck --home "$HOME_DIR" dec); COMP_CWORD=3
_agent_deck_complete; printf '%s\n' "${COMPREPLY[@]}"
COMP_WORDS=(agent-deck --home "$HOME_DIR" deck cr); COMP_CWORD=4
_agent_deck_complete; printf '%s\n' "${COMPREPLY[@]}"`)
		cmd.Env = append(cmd.Environ(), "PATH="+filepath.Dir(bin)+":"+os.Getenv("PATH"), "HOME_DIR="+t.TempDir())
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("bash: %v\n%s", err, out)
		}
		if got, want := strings.Fields(string(out)), []string{"deck", "decks", "create", "credential"}; !slices.Equal(got, want) {
			t.Errorf("completions %q, want %q", got, want)
		}
	})
}
