package tests

import (
	"encoding/json"
	"os/exec"
	"runtime"
	"strings"
	"testing"
)

// TestCLISmallVersion holds issue 10's version item: `version`, `--version` and `version --json`
// agree, name the Go toolchain, and the built binary says the same as the in-process CLI.
func TestCLISmallVersion(t *testing.T) {
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

// TestCLISmallUnknownCommand holds issue 10's exit-code item: an unknown command or subcommand is
// a user error (exit 1, not urfave/cli's 3) that names the closest command; help still works.
func TestCLISmallUnknownCommand(t *testing.T) {
	tests := []struct {
		name string
		args []string
		code int
		want string // in stderr when code is 1, in stdout when 0
	}{
		{"typo", []string{"servce"}, 1, `did you mean "agent-deck serve"`},
		{"prefix", []string{"tok"}, 1, `did you mean "agent-deck token"`},
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
