package cli

import (
	"slices"
	"strings"
	"testing"

	"github.com/urfave/cli/v2"
)

// TestEveryDecidingCommandTakesYes holds issue 27 item 9: one rule for --yes. Every command that
// decides something that cannot be taken back takes it (and asks on a terminal), and no other
// command does.
func TestEveryDecidingCommandTakesYes(t *testing.T) {
	var walk func(prefix string, cmds []*cli.Command)
	seen := map[string]bool{}
	walk = func(prefix string, cmds []*cli.Command) {
		for _, c := range cmds {
			name := strings.TrimSpace(prefix + " " + c.Name)
			if len(c.Subcommands) > 0 {
				walk(name, c.Subcommands)
				continue
			}
			takesYes := slices.ContainsFunc(c.Flags, func(f cli.Flag) bool { return slices.Contains(f.Names(), "yes") })
			decides := slices.Contains(decidingCommands, name)
			seen[name] = true
			if takesYes != decides {
				t.Errorf("%s: takes --yes %v, decides %v", name, takesYes, decides)
			}
		}
	}
	walk("", commands())
	for _, name := range decidingCommands {
		if !seen[name] {
			t.Errorf("decidingCommands names %q, which is no command", name)
		}
	}
}

// TestDecidingCommandsRefuseWithoutYes: without a terminal, every deciding command refuses
// before it does anything, and says to pass --yes.
func TestDecidingCommandsRefuseWithoutYes(t *testing.T) {
	home := t.TempDir()
	for _, name := range decidingCommands {
		t.Run(name, func(t *testing.T) {
			args := append(strings.Fields(name), "x")
			if name == "service approve" {
				args = append(args, "some_tool")
			}
			r := runCmd(home, strings.NewReader(""), append([]string{"--server", "http://127.0.0.1:1"}, args...)...)
			if r.code != exitUser || !strings.Contains(r.stderr, "refusing without confirmation; pass --yes") {
				t.Errorf("exit %d, stderr %q; want exit 1 asking for --yes", r.code, r.stderr)
			}
		})
	}
}
