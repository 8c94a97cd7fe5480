package cli

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/agent-deck/agent-deck/backend"
	"github.com/agent-deck/agent-deck/backend/core"
)

// TestCmdToken runs the token commands: create (the secret once, on stdout), list, revoke.
func TestCmdToken(t *testing.T) {
	e := startCmdEnv(t)
	w := e.seed()
	e.runCases(t, "token", []cmdCase{
		{name: "create", args: []string{"token", "create", "ci", "--scope", "agent:read"}},
		{name: "create-json", args: []string{"token", "create", "deploy", "--json"}},
		{name: "create-bad-scope", args: []string{"token", "create", "root", "--scope", "root"}, code: 1},
		{name: "create-no-name", args: []string{"token", "create"}, code: 1},
		{name: "list", args: []string{"tokens", "ls"}},
		{name: "revoke-without-yes", args: []string{"token", "revoke", w.agentTokenID}, code: 1},
		{name: "revoke", args: []string{"token", "revoke", w.agentTokenID, "--yes"}},
		{name: "revoke-unknown", args: []string{"token", "revoke", "00000000-0000-4000-8000-00000000dead", "--yes", "--json"}, code: 1},
		{name: "list-json", args: []string{"token", "list", "--json"}},
	})
}

// TestCmdCalls runs `calls`, the tool-call audit trail, over calls an agent made through the
// deck to the test MCP server, and `calls capture`.
func TestCmdCalls(t *testing.T) {
	e := startCmdEnv(t)
	w := e.seed()
	sess := e.session(w, "claude-code")
	e.cells[sess.ID[:8]+" (claude-code)"] = "<session> (claude-code)"
	ctx := core.WithSession(w.agent, sess) // as the MCP endpoint calls it
	for _, call := range []core.CallInput{
		{ToolName: "echo", Arguments: json.RawMessage(`{"message":"hello"}`)},
		{ToolName: "fail", Arguments: json.RawMessage(`{"message":"on purpose"}`)},
	} {
		if _, err := e.hub.CallBoundServiceTool(ctx, sess.ID, "peer", call); err != nil {
			t.Fatal(err)
		}
	}
	waitToolCalls(t, e, 2)
	e.runCases(t, "calls", []cmdCase{
		{name: "list", args: []string{"calls"}},
		{name: "list-json", args: []string{"calls", "--tool", "echo", "--json"}},
		{name: "list-page", args: []string{"calls", "--limit", "1"}},
		{name: "list-filtered", args: []string{"calls", "--outcome", "is_error", "--service", "peer", "--deck", "dev"}},
		{name: "list-bad-outcome", args: []string{"calls", "--outcome", "maybe"}, code: 1},
		{name: "list-bad-limit", args: []string{"calls", "--limit", "5000"}, code: 1},
		{name: "list-limit-not-a-number", args: []string{"calls", "--limit", "ten"}, code: 1},
		{name: "list-bad-since", args: []string{"calls", "--since", "yesterday"}, code: 1},
		{name: "capture-on", args: []string{"calls", "capture", "dev", "on"}},
		{name: "capture-off-json", args: []string{"calls", "capture", "--json", "dev", "off"}},
		{name: "capture-on-json-last", args: []string{"calls", "capture", "dev", "on", "--json"}},
		{name: "capture-bad-state", args: []string{"calls", "capture", "dev", "maybe"}, code: 1},
		{name: "capture-unknown-deck", args: []string{"calls", "capture", "nope", "on"}, code: 1},
	})
}

// waitToolCalls waits until the audit writer, which batches, has stored n calls.
func waitToolCalls(t *testing.T, e *cmdEnv, n int) {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for {
		page, err := e.hub.ListToolCalls(e.admin, backend.ToolCallFilter{Limit: 100})
		if err != nil {
			t.Fatal(err)
		}
		if len(page.Calls) >= n {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("%d tool calls audited, want %d", len(page.Calls), n)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// TestCmdExportImport runs export (to stdout, to a file, one deck) and import (report, dry run,
// stdin, again: everything reused) and their refusals.
func TestCmdExportImport(t *testing.T) {
	e := startCmdEnv(t)
	e.seed()
	dir := t.TempDir()
	e.name(dir, "<dir>")
	bundle := filepath.Join(dir, "dev.json")
	whole := filepath.Join(dir, "all.json")
	bad := filepath.Join(dir, "bad.json")
	if err := os.WriteFile(bad, []byte(`{"format":"agent-deck-bundle","version":99}`), 0o600); err != nil {
		t.Fatal(err)
	}
	e.runCases(t, "bundle", []cmdCase{
		{name: "export-stdout", args: []string{"export", "--deck", "dev", "-o", "-"}},
		{name: "export-file", args: []string{"export", "--deck", "dev", "-o", bundle}},
		{name: "export-file-json", args: []string{"export", "-o", whole, "--json"}},
		{name: "export-unknown-deck", args: []string{"export", "--deck", "nope", "-o", "-"}, code: 1},
		{name: "export-no-output", args: []string{"export"}, code: 1},
		{name: "export-no-such-dir", args: []string{"export", "-o", filepath.Join(dir, "missing", "b.json")}, code: 1},
	})
	// A second server imports what the first exported.
	f := startCmdEnv(t)
	f.name(dir, "<dir>")
	raw, err := os.ReadFile(bundle)
	if err != nil {
		t.Fatal(err)
	}
	f.runCases(t, "bundle", []cmdCase{
		{name: "import-dry-run", args: []string{"import", bundle, "--dry-run"}},
		{name: "import", args: []string{"import", bundle}},
		{name: "import-again-json", stdin: string(raw), args: []string{"import", "-", "--json"}},
		{name: "import-whole-verbose", args: []string{"import", whole, "--verbose"}},
		{name: "import-missing-file", args: []string{"import", filepath.Join(dir, "nope.json")}, code: 1},
		{name: "import-bad-version", args: []string{"import", bad}, code: 1},
		{name: "import-not-json", stdin: "hello", args: []string{"import", "-"}, code: 1},
	})
}

// TestCmdExec runs exec: a dry run lists the variables, a run passes the child's output and exit
// code through, --json reports on stdout; no secret is ever printed.
func TestCmdExec(t *testing.T) {
	e := startCmdEnv(t)
	e.seed()
	e.runCases(t, "exec", []cmdCase{
		{name: "dry-run", args: []string{"exec", "--dry-run", "--connections", "cred_github,Linear", "--", "env"}},
		{name: "dry-run-json", args: []string{"exec", "--dry-run", "-c", "cred_github", "--json", "--", "env"}},
		{name: "run", stdin: "from stdin\n", args: []string{"exec", "-c", "cred_github", "--",
			"sh", "-c", `cat; test -n "$GITHUB_API_KEY" && echo "key set"; exit 3`}, code: 3},
		{name: "run-json", args: []string{"exec", "-c", "cred_github", "--json", "--", "sh", "-c", "echo child-out"}},
		{name: "not-on-deck", args: []string{"exec", "--deck", "dev", "-c", "cred_github,cred_linear", "--", "true"}, code: 1},
		{name: "unknown-credential", args: []string{"exec", "-c", "cred_nope", "--", "true"}, code: 1},
		{name: "no-command", args: []string{"exec", "-c", "cred_github"}, code: 1},
		{name: "no-connections", args: []string{"exec", "--", "true"}, code: 1},
		{name: "cannot-start", args: []string{"exec", "-c", "cred_github", "--", "/no/such/program"}, code: 127},
	})
}
