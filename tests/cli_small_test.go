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
