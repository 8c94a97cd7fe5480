package tests

import (
	"encoding/json"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agent-deck/agent-deck/cli"
)

// TestMakeBuildStampsTheCommit holds issue 27 item 14: the binary `make build` (and so `make run`)
// makes in a git work tree says which commit it was built from, and whether the tree had
// changes, even where the Go toolchain stamps nothing (GOFLAGS=-buildvcs=false, a linked git
// worktree).
func TestMakeBuildStampsTheCommit(t *testing.T) {
	root, err := filepath.Abs("..")
	if err != nil {
		t.Fatal(err)
	}
	git := func(args ...string) (string, bool) {
		out, err := exec.Command("git", append([]string{"-C", root}, args...)...).Output()
		return strings.TrimSpace(string(out)), err == nil
	}
	head, ok := git("rev-parse", "HEAD")
	if !ok {
		t.Skip("not a git work tree git can read; make build stamps nothing here")
	}
	if _, err := exec.LookPath("make"); err != nil {
		t.Skip("make is not installed")
	}
	status, _ := git("status", "--porcelain")
	bin := filepath.Join(t.TempDir(), "agent-deck")
	build := exec.Command("make", "-s", "-C", root, "build", "BIN="+bin)
	build.Env = append(build.Environ(), "GOFLAGS=-buildvcs=false") // as CI sets it
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("make build: %v\n%s", err, out)
	}
	out, err := exec.Command(bin, "version", "--json").Output()
	if err != nil {
		t.Fatal(err)
	}
	var got cli.BuildInfo
	if err := json.Unmarshal(out, &got); err != nil {
		t.Fatalf("version --json %q: %v", out, err)
	}
	if got.Revision != head || got.Time == "" || got.Modified != (status != "") {
		t.Errorf("version %+v; want revision %s, a time, modified %v", got, head, status != "")
	}
	text, _ := exec.Command(bin, "version").Output()
	if !strings.Contains(string(text), head[:12]) {
		t.Errorf("version says %q, without the commit %s", text, head[:12])
	}
}
