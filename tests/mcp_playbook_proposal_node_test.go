package tests

import (
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"
)

// TestMCPProposalFromTypeScriptAgent: an agent on the official TypeScript SDK proposes an add_item fix, a
// person accepts it with the CLI, and the agent's next get_playbook shows the change; the
// playbook's version history names the proposal.
func TestMCPProposalFromTypeScriptAgent(t *testing.T) {
	s := startMCPStack(t, mcpStackOptions{})
	f := s.seedDeck(t, "dev", startHTTPPeer(t))
	script, err := filepath.Abs(filepath.Join("testdata", "mcp", "ts_learn.mjs"))
	if err != nil {
		t.Fatal(err)
	}
	env := []string{"DECK_URL=" + s.URL + "/mcp", "DECK_TOKEN=" + s.token("agent"), "DECK_PLAYBOOK=" + f.Playbook.ID}
	out, err := mcpNode(t, 2*time.Minute, env, script, "propose")
	if err != nil {
		t.Fatalf("TypeScript agent: %v\n%s", err, out)
	}
	m := regexp.MustCompile(`proposal ([0-9a-f-]{36})`).FindStringSubmatch(out)
	if m == nil {
		t.Fatalf("no proposal id in:\n%s", out)
	}
	runCLI(s.home, strings.NewReader(""), "proposal", "accept", m[1], "--yes").wantCode(t, 0)
	out, err = mcpNode(t, 2*time.Minute, env, script, "get")
	if err != nil {
		t.Fatalf("TypeScript agent: %v\n%s", err, out)
	}
	if !strings.Contains(out, `## Checks\n\n- dry-run first`) || !strings.Contains(out, "open 0") {
		t.Errorf("get_playbook after accept:\n%s", out)
	}
	vs, err := s.svc.ListPlaybookVersions(s.adminCtx(), f.Playbook.ID)
	if err != nil || len(vs) != 1 || vs[0].ProposalID != m[1] {
		t.Errorf("versions %+v %v, want one naming %s", vs, err, m[1])
	}
}
