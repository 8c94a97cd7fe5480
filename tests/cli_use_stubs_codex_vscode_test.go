package tests

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agent-deck/agent-deck/backend"
	"github.com/agent-deck/agent-deck/backend/core"
)

// TestReviewStubsCodexVSCode: `use` writes a playbook stub where Codex discovers skills
// (.agents/skills) and where VS Code discovers instructions (.github/instructions), never the
// body; a second run writes nothing; AGENTS.md and hand-written instructions next to the stubs
// are never touched; a playbook taken off the deck loses its stubs.
func TestReviewStubsCodexVSCode(t *testing.T) {
	e := startCLIEnv(t)
	e.seed()
	proj := t.TempDir()
	pb, err := e.svc.GetPlaybook(e.ctx, "Open a pull request")
	if err != nil {
		t.Fatal(err)
	}
	skill := filepath.Join(proj, ".agents", "skills", "agent-deck-open-a-pull-request", "SKILL.md")
	instr := filepath.Join(proj, ".github", "instructions", "agent-deck-open-a-pull-request.instructions.md")
	agents := filepath.Join(proj, "AGENTS.md")
	mine := filepath.Join(proj, ".github", "instructions", "go.instructions.md")
	hand := map[string]string{agents: "# Our project\n\nRun make check.\n", mine: "---\napplyTo: \"**/*.go\"\n---\nUse gofmt.\n"}
	for p, s := range hand {
		must(t, os.MkdirAll(filepath.Dir(p), 0o755))
		must(t, os.WriteFile(p, []byte(s), 0o644))
	}
	use := func(args ...string) map[string][]string {
		t.Helper()
		return e.useStubs(t, proj, []string{"codex", "vscode"}, args...)
	}
	rep := use("dev")
	if len(rep["created"]) != 2 {
		t.Fatalf("created %v, want the Codex skill and the VS Code instructions", rep)
	}
	for p, head := range map[string]string{skill: "---\nname: agent-deck-open-a-pull-request\ndescription: \"Open a pull request",
		instr: "---\nname: agent-deck-open-a-pull-request\ndescription: \"Open a pull request"} {
		b, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		s := string(b)
		if !strings.HasPrefix(s, head) || !strings.Contains(s, "get_playbook") || !strings.Contains(s, pb.ID) ||
			strings.Contains(s, "Use the deck.") || strings.Contains(s, "applyTo") {
			t.Errorf("%s:\n%s", p, s)
		}
	}
	if again := use("--refresh"); len(again["created"])+len(again["updated"])+len(again["removed"]) != 0 {
		t.Errorf("a second run changed %v", again)
	}

	d, err := e.svc.GetDeck(e.ctx, "dev")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := e.svc.UnlinkCard(e.ctx, core.CardRef{Deck: d.ID, CardType: backend.CardPlaybook, CardID: pb.ID}); err != nil {
		t.Fatal(err)
	}
	if rep := use("--refresh"); len(rep["removed"]) != 2 {
		t.Errorf("removed %v, want both stubs", rep)
	}
	for _, p := range []string{skill, instr} {
		if _, err := os.Stat(p); !os.IsNotExist(err) {
			t.Errorf("%s is still there", p)
		}
	}
	for p, s := range hand {
		if b, err := os.ReadFile(p); err != nil || string(b) != s {
			t.Errorf("%s was touched: %q %v", p, b, err)
		}
	}
}
