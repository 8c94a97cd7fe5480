package tests

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agent-deck/agent-deck/backend"
	"github.com/agent-deck/agent-deck/backend/core"
)

// TestCLIUseStubsClaudeCodeCursor: `use` writes one stub per playbook on the deck where Claude Code and Cursor
// discover skills and rules (never the body); a second run writes nothing; a hand-written file
// next to the stubs, or at a stub's path, survives; `use --refresh` removes the stub of a
// playbook taken off the deck.
func TestCLIUseStubsClaudeCodeCursor(t *testing.T) {
	e := startCLIEnv(t)
	e.seed()
	proj := t.TempDir()
	pb, err := e.svc.GetPlaybook(e.ctx, "Open a pull request")
	if err != nil {
		t.Fatal(err)
	}
	skill := filepath.Join(proj, ".claude", "skills", "agent-deck-open-a-pull-request", "SKILL.md")
	rule := filepath.Join(proj, ".cursor", "rules", "agent-deck", pb.ID+".mdc")
	mine := filepath.Join(proj, ".claude", "skills", "agent-deck-mine", "SKILL.md")
	if err := os.MkdirAll(filepath.Dir(mine), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(mine, []byte("---\nname: agent-deck-mine\n---\nmy own skill\n"), 0o644); err != nil {
		t.Fatal(err)
	}

	use := func(args ...string) map[string][]string {
		t.Helper()
		return e.useStubs(t, proj, []string{"claude-code", "cursor"}, args...)
	}
	rep := use("dev")
	if len(rep["created"]) != 2 {
		t.Fatalf("created %v, want the skill and the rule", rep)
	}
	for _, p := range []string{skill, rule} {
		b, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		s := string(b)
		if !strings.Contains(s, "Open a pull request") || !strings.Contains(s, "get_playbook") ||
			!strings.Contains(s, pb.ID) || strings.Contains(s, "Use the deck.") {
			t.Errorf("%s:\n%s", p, s)
		}
	}

	t.Run("idempotent", func(t *testing.T) {
		info, _ := os.Stat(skill)
		rep := use("--refresh")
		if len(rep["created"])+len(rep["updated"])+len(rep["removed"]) != 0 {
			t.Errorf("a second run changed %v", rep)
		}
		if again, _ := os.Stat(skill); !again.ModTime().Equal(info.ModTime()) {
			t.Error("an unchanged stub was rewritten")
		}
	})

	t.Run("stale stubs go, hand-written files stay", func(t *testing.T) {
		d, err := e.svc.GetDeck(e.ctx, "dev")
		if err != nil {
			t.Fatal(err)
		}
		if _, err := e.svc.UnlinkCard(e.ctx, core.CardRef{Deck: d.ID, CardType: backend.CardPlaybook, CardID: pb.ID}); err != nil {
			t.Fatal(err)
		}
		rep := use("--refresh")
		if len(rep["removed"]) != 2 {
			t.Errorf("removed %v, want both stubs", rep)
		}
		for _, p := range []string{skill, rule} {
			if _, err := os.Stat(p); !os.IsNotExist(err) {
				t.Errorf("%s is still there", p)
			}
		}
		if b, err := os.ReadFile(mine); err != nil || !strings.Contains(string(b), "my own skill") {
			t.Errorf("the hand-written skill changed: %q %v", b, err)
		}
	})

	t.Run("an unmarked file at a stub's path is kept", func(t *testing.T) {
		d, _ := e.svc.GetDeck(e.ctx, "dev")
		if _, err := e.svc.LinkCard(e.ctx, core.LinkCardInput{CardRef: core.CardRef{Deck: d.ID,
			CardType: backend.CardPlaybook, CardID: pb.ID}}); err != nil {
			t.Fatal(err)
		}
		if err := os.MkdirAll(filepath.Dir(skill), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(skill, []byte("hand written\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		rep := use("--refresh")
		if len(rep["kept"]) != 1 {
			t.Errorf("kept %v, want the hand-written skill", rep)
		}
		if b, _ := os.ReadFile(skill); string(b) != "hand written\n" {
			t.Errorf("the hand-written file was overwritten: %q", b)
		}
	})

	t.Run("statusline refreshes the stubs", func(t *testing.T) {
		d, _ := e.svc.GetDeck(e.ctx, "dev")
		if _, err := e.svc.UnlinkCard(e.ctx, core.CardRef{Deck: d.ID, CardType: backend.CardPlaybook, CardID: pb.ID}); err != nil {
			t.Fatal(err)
		}
		if _, err := os.Stat(rule); err != nil {
			t.Fatalf("the rule stub should exist before: %v", err)
		}
		in, _ := json.Marshal(map[string]any{"workspace": map[string]any{"current_dir": filepath.Join(proj, ".agent-deck")}})
		e.run(string(in), "statusline").wantCode(t, 0)
		if _, err := os.Stat(rule); !os.IsNotExist(err) {
			t.Errorf("statusline left the stale rule stub: %v", err)
		}
		if b, _ := os.ReadFile(skill); string(b) != "hand written\n" {
			t.Errorf("statusline touched the hand-written file: %q", b)
		}
	})
}

// useStubs runs `use --json` for proj with the given clients and args, and returns its report
// of the playbook stubs it created, updated, removed and kept.
func (e *cliEnv) useStubs(t *testing.T, proj string, clients []string, args ...string) map[string][]string {
	t.Helper()
	cmd := []string{"use", "--project-dir", proj, "--json"}
	for _, c := range clients {
		cmd = append(cmd, "--client", c)
	}
	r := e.run("", append(cmd, args...)...).wantCode(t, 0)
	var out struct {
		Stubs map[string][]string `json:"stubs"`
	}
	if err := json.Unmarshal([]byte(r.stdout), &out); err != nil {
		t.Fatalf("use --json: %v\n%s", err, r.stdout)
	}
	return out.Stubs
}

// TestCLIUseStubsCodexVSCode: `use` writes a playbook stub where Codex discovers skills
// (.agents/skills) and where VS Code discovers instructions (.github/instructions), never the
// body; a second run writes nothing; AGENTS.md and hand-written instructions next to the stubs
// are never touched; a playbook taken off the deck loses its stubs.
func TestCLIUseStubsCodexVSCode(t *testing.T) {
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
