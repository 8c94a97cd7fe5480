package tests

import (
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agent-deck/agent-deck/backend"
	"github.com/agent-deck/agent-deck/backend/core"
)

// TestCLIReadableLists holds the CLI half of issue 15 item 9: tables show names, not
// UUIDs; a long service target is clipped in the table, whole in JSON; an import report of many
// cards is a summary unless --verbose (or --json) asks for every name.
func TestCLIReadableLists(t *testing.T) {
	e := startCLIEnv(t)
	e.seed()
	longArgs := []string{"--root", "/srv/" + strings.Repeat("very-long-directory-name/", 4), "--read-only"}
	long, err := e.svc.CreateService(e.ctx, core.ServiceInput{Name: "long", Type: backend.ServiceLocal,
		LocalCommand: "server-files", LocalArgs: longArgs})
	if err != nil {
		t.Fatal(err)
	}
	const many = 30
	for i := range many {
		if _, err := e.svc.CreateService(e.ctx, core.ServiceInput{Name: fmt.Sprintf("bulk-%02d", i),
			Type: backend.ServiceRemote, URL: fmt.Sprintf("https://bulk%02d.example.test/mcp", i)}); err != nil {
			t.Fatal(err)
		}
	}
	t.Run("playbook list depends on", func(t *testing.T) {
		out := e.run("", "playbook", "list").wantCode(t, 0).stdout
		if cliUUIDRE.MatchString(out) || !strings.Contains(out, "github-mcp") {
			t.Errorf("DEPENDS ON should name services, not show ids:\n%s", out)
		}
	})
	t.Run("service list target", func(t *testing.T) {
		full := "server-files " + strings.Join(longArgs, " ")
		for _, line := range strings.Split(e.run("", "service", "list").wantCode(t, 0).stdout, "\n") {
			if strings.Contains(line, long.ID) && (strings.Contains(line, full) || !strings.Contains(line, "…")) {
				t.Errorf("the target column is not clipped: %q", line)
			}
		}
		if js := e.run("", "service", "list", "--json").wantCode(t, 0).stdout; !strings.Contains(js, longArgs[1]) {
			t.Errorf("--json lost the whole target")
		}
	})
	bundle := filepath.Join(t.TempDir(), "b.json")
	e.run("", "export", "-o", bundle).wantCode(t, 0)
	t.Run("import report summarised", func(t *testing.T) {
		out := e.run("", "import", "--dry-run", bundle).wantCode(t, 0).stdout
		for _, line := range strings.Split(out, "\n") {
			if strings.Contains(line, "bulk-") && strings.Count(line, "bulk-") > 10 {
				t.Errorf("a report line lists %d names: %q", strings.Count(line, "bulk-"), line)
			}
		}
		if !strings.Contains(out, fmt.Sprint(many+3)) || !strings.Contains(out, "--verbose") {
			t.Errorf("the summary should give the count and say how to see every name:\n%s", out)
		}
	})
	t.Run("import report verbose", func(t *testing.T) {
		out := e.run("", "import", "--dry-run", "--verbose", bundle).wantCode(t, 0).stdout
		for i := range many {
			if name := fmt.Sprintf("bulk-%02d", i); !strings.Contains(out, name) {
				t.Errorf("--verbose report misses %s", name)
			}
		}
	})
}
