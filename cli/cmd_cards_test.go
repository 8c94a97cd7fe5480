package cli

import (
	"encoding/json"
	"testing"
)

// TestCmdDeck runs the deck commands against a real server: create, show, the per-deck settings
// of a linked service (tools, credential, sampling) and delete, each with its table and --json
// form and the user errors people make with them.
func TestCmdDeck(t *testing.T) {
	e := startCmdEnv(t)
	e.seed()
	e.runCases(t, "deck", []cmdCase{
		{name: "create", args: []string{"deck", "create", "ops"}},
		{name: "create-json", args: []string{"deck", "create", "review", "--json"}},
		{name: "create-duplicate", args: []string{"deck", "create", "OPS"}, code: 1},
		{name: "create-no-name", args: []string{"deck", "create"}, code: 1},
		{name: "list", args: []string{"decks", "ls"}},
		{name: "show-json", args: []string{"deck", "show", "dev", "--json"}},
		{name: "show-empty", args: []string{"deck", "show", "ops"}},
		{name: "show-unknown", args: []string{"deck", "show", "nope"}, code: 1},
		{name: "show-bad-flag", args: []string{"deck", "show", "dev", "--yaml"}, code: 1},
		{name: "tools", args: []string{"deck", "tools", "dev", "peer"}},
		{name: "tools-allow", args: []string{"deck", "tools", "dev", "peer", "--allow", "echo, pid"}},
		{name: "tools-deny-json", args: []string{"deck", "tools", "dev", "peer", "--deny", "crash", "--json"}},
		{name: "tools-clear", args: []string{"deck", "tools", "dev", "peer", "--clear"}},
		{name: "tools-two-modes", args: []string{"deck", "tools", "dev", "peer", "--allow", "echo", "--clear"}, code: 1},
		{name: "tools-empty-allow", args: []string{"deck", "tools", "dev", "peer", "--allow", " , "}, code: 1},
		{name: "tools-unlinked", args: []string{"deck", "tools", "ops", "peer"}, code: 1},
		{name: "credential", args: []string{"deck", "credential", "dev", "github-mcp"}},
		{name: "credential-set", args: []string{"deck", "credential", "dev", "github-mcp", "Linear"}},
		{name: "credential-clear-json", args: []string{"deck", "credential", "dev", "github-mcp", "--clear", "--json"}},
		{name: "credential-clear-and-set", args: []string{"deck", "credential", "dev", "github-mcp", "Linear", "--clear"}, code: 1},
		{name: "sampling-allow", args: []string{"deck", "sampling", "dev", "peer", "--allow"}},
		{name: "sampling-deny-json", args: []string{"deck", "sampling", "dev", "peer", "--deny", "--json"}},
		{name: "sampling-neither", args: []string{"deck", "sampling", "dev", "peer"}, code: 1},
		{name: "rename", args: []string{"deck", "rename", "review", "code review"}},
		{name: "rename-json", args: []string{"deck", "rename", "code review", "reviews", "--json"}},
		{name: "rename-taken", args: []string{"deck", "rename", "reviews", "dev"}, code: 1},
		{name: "rename-one-arg", args: []string{"deck", "rename", "reviews"}, code: 1},
		{name: "delete-without-yes", args: []string{"deck", "delete", "ops"}, code: 1},
		{name: "delete", args: []string{"deck", "rm", "ops", "--yes"}},
		{name: "delete-unknown", args: []string{"deck", "delete", "ops", "--yes"}, code: 1},
	})
}

// TestCmdService runs the service commands: add (remote and local, secrets from stdin), edit,
// show, list, tools, enable and disable, check, approve, sign-in and delete.
func TestCmdService(t *testing.T) {
	e := startCmdEnv(t)
	e.seed()
	e.runCases(t, "service", []cmdCase{
		{name: "show-local", args: []string{"service", "show", "peer"}},
		{name: "show-unknown", args: []string{"service", "show", "nope"}, code: 1},
		{name: "tools", args: []string{"service", "tools", "peer"}},
		{name: "tools-json", args: []string{"service", "tools", "peer", "--json"}, verify: peerToolsJSON},
		{name: "check", args: []string{"service", "check", "peer"}},
		{name: "check-json", args: []string{"service", "check", "peer", "--json"}},
		{name: "disable", args: []string{"service", "disable", "peer", "crash", "spawn"}},
		{name: "enable-json", args: []string{"service", "enable", "peer", "spawn", "--json"}},
		{name: "enable-no-tool", args: []string{"service", "enable", "peer"}, code: 1},
		{name: "approve-without-yes", args: []string{"service", "approve", "peer"}, code: 1},
		{name: "approve", args: []string{"service", "approve", "peer", "--yes"}},
		{name: "approve-json", args: []string{"service", "approve", "peer", "echo", "--json", "-y"}},
		{name: "list", args: []string{"services", "list"}},
		{name: "add-remote", stdin: cmdCanary + "\n", args: []string{"service", "add", "notes", "https://notes.example.test/mcp",
			"--header", "X-Team=core", "--header-from-stdin", "Authorization", "--description", "team notes", "--deck", "dev"}},
		{name: "add-local-json", args: []string{"service", "add", "files", "--env", "ROOT=/srv", "--json", "--", "npx", "-y", "server-files"}},
		{name: "add-secret-header", args: []string{"service", "add", "leaky", "https://leaky.example.test/mcp",
			"--header", "Authorization=Bearer " + cmdCanary}, code: 1},
		{name: "add-secret-header-http-form", args: []string{"service", "add", "leaky", "https://leaky.example.test/mcp",
			"--header", "Authorization: Bearer " + cmdCanary}, code: 1},
		{name: "add-header-http-form", args: []string{"service", "add", "regional", "https://regional.example.test/mcp",
			"--header", "X-Region: eu-west", "--json"}},
		{name: "add-bad-timeout", args: []string{"service", "add", "slow", "https://slow.example.test/mcp", "--timeout", "soon"}, code: 1},
		{name: "add-bad-timeout-first", args: []string{"service", "add", "--timeout", "soon", "slow", "https://slow.example.test/mcp"}, code: 1},
		{name: "add-env-on-remote", args: []string{"service", "add", "odd", "https://odd.example.test/mcp", "--env", "A=1"}, code: 1},
		{name: "add-down", args: []string{"service", "add", "down", "http://127.0.0.1:1/mcp"}},
		{name: "add-link-fails", args: []string{"service", "add", "orphan", "https://orphan.example.test/mcp", "--deck", "nope"}, code: 1},
		{name: "check-down", args: []string{"service", "check", "down"}, code: 1},
		{name: "edit", args: []string{"service", "edit", "notes", "--description", "shared notes", "--unset-header", "X-Team"}},
		{name: "edit-json", args: []string{"service", "edit", "files", "--timeout", "30", "--json"}},
		{name: "edit-unset-missing", args: []string{"service", "edit", "notes", "--unset-header", "X-Nope"}, code: 1},
		{name: "edit-header-on-local", args: []string{"service", "edit", "files", "--unset-header", "X-Team"}, code: 1},
		{name: "show-remote", args: []string{"service", "show", "notes"}},
		{name: "connect-local", args: []string{"service", "connect", "peer", "--no-open"}, code: 1},
		{name: "disconnect", args: []string{"service", "disconnect", "notes", "--yes"}},
		{name: "delete-without-yes", args: []string{"service", "delete", "notes"}, code: 1},
		{name: "delete", args: []string{"service", "rm", "notes", "--yes"}},
		{name: "delete-depended-on", args: []string{"service", "delete", "github-mcp", "--yes"}, code: 1},
	})
}

// peerToolsJSON checks `service tools peer --json`: one entry per tool of the test server, each
// with its state and its definition. The tool list is the test server's to decide, so it is not
// a golden file.
func peerToolsJSON(t *testing.T, r cmdResult) {
	var tools []struct {
		Name    string `json:"name"`
		Enabled bool   `json:"enabled"`
		Held    bool   `json:"held"`
		Tool    struct {
			Name        string          `json:"name"`
			InputSchema json.RawMessage `json:"inputSchema"`
		} `json:"tool"`
	}
	if err := json.Unmarshal([]byte(r.stdout), &tools); err != nil {
		t.Fatalf("service tools --json: %v\n%s", err, r.stdout)
	}
	seen := map[string]bool{}
	for _, tool := range tools {
		if tool.Name != tool.Tool.Name || len(tool.Tool.InputSchema) == 0 || !tool.Enabled || tool.Held {
			t.Errorf("tool entry %+v: want its definition, enabled and not held", tool)
		}
		seen[tool.Name] = true
	}
	for _, name := range []string{"echo", "crash", "spawn", "pid"} {
		if !seen[name] {
			t.Errorf("service tools --json lacks %s", name)
		}
	}
	if r.stderr != "" {
		t.Errorf("stderr: %q", r.stderr)
	}
}

// TestCmdCredential runs the credential commands: add and rotate (secret from stdin, never
// echoed), show, list and delete.
func TestCmdCredential(t *testing.T) {
	e := startCmdEnv(t)
	e.seed()
	e.runCases(t, "credential", []cmdCase{
		{name: "show", args: []string{"credential", "show", "Linear"}},
		{name: "show-json", args: []string{"cred", "show", "cred_github", "--json"}},
		{name: "show-unknown", args: []string{"credential", "show", "nope"}, code: 1},
		{name: "add", stdin: cmdCanary + "\n", args: []string{"credential", "add", "OpenAI", "--env-name", "OPENAI_KEY",
			"--tag", "llm", "--docs-url", "https://platform.example.test/keys"}},
		{name: "show-added", args: []string{"credential", "show", "cred_openai"}},
		{name: "add-json", stdin: cmdCanary, args: []string{"credential", "add", "Search", "--scheme", "header",
			"--header-name", "X-Search-Key", "--json"}},
		{name: "add-no-secret", args: []string{"credential", "add", "Empty"}, code: 1},
		{name: "add-bad-scheme", stdin: cmdCanary, args: []string{"credential", "add", "Odd", "--scheme", "cookie"}, code: 1},
		{name: "add-duplicate", stdin: cmdCanary, args: []string{"credential", "add", "openai"}, code: 1},
		{name: "list", args: []string{"credentials", "list"}},
		{name: "rotate", stdin: cmdCanary + "-2\n", args: []string{"credential", "rotate", "OpenAI"}},
		{name: "rotate-json", stdin: cmdCanary + "-3", args: []string{"credential", "rotate", "cred_search", "--json"}},
		{name: "rotate-unknown", stdin: cmdCanary, args: []string{"credential", "rotate", "nope"}, code: 1},
		{name: "delete-without-yes", args: []string{"credential", "delete", "OpenAI"}, code: 1},
		{name: "delete", args: []string{"credential", "rm", "OpenAI", "--yes"}},
		{name: "delete-depended-on", args: []string{"credential", "delete", "cred_github", "--yes"}, code: 1},
		{name: "choose-for-deck", args: []string{"deck", "credential", "dev", "github-mcp", "Search"}},
		{name: "delete-chosen-by-a-deck", args: []string{"credential", "delete", "Search", "--yes"}},
	})
}

// TestCmdPlaybook runs the playbook commands: list, show (with the services it depends on by
// name) and delete.
func TestCmdPlaybook(t *testing.T) {
	e := startCmdEnv(t)
	e.seed()
	e.runCases(t, "playbook", []cmdCase{
		{name: "list", args: []string{"playbooks", "ls"}},
		{name: "list-json", args: []string{"playbook", "list", "--json"}},
		{name: "show", args: []string{"playbook", "show", "Open a pull request"}},
		{name: "show-json", args: []string{"playbook", "show", "pb_release_notes", "--json"}},
		{name: "show-unknown", args: []string{"playbook", "show", "nope"}, code: 1},
		{name: "show-two-names", args: []string{"playbook", "show", "Release", "notes"}, code: 1},
		{name: "add", stdin: "# Rotate\n\n- revoke the old key\n", args: []string{"playbook", "add", "Rotate keys",
			"--body-file", "-", "--trigger", "rotate the keys", "--trigger", "new api key", "--deck", "dev"}},
		{name: "add-json", args: []string{"playbook", "add", "Smoke test", "--body", "Run the smoke suite.", "--id", "pb_smoke", "--json"}},
		{name: "add-no-body", args: []string{"playbook", "add", "Empty"}, code: 1},
		{name: "add-taken", args: []string{"playbook", "add", "rotate KEYS", "--body", "x"}, code: 1},
		{name: "edit", args: []string{"playbook", "edit", "pb_rotate_keys", "--trigger", "rotate keys", "--title", "Rotate API keys"}},
		{name: "edit-body-json", stdin: "# Smoke\n\n- run it twice\n", args: []string{"playbook", "edit", "Smoke test", "--body-file", "-", "--json"}},
		{name: "edit-nothing", args: []string{"playbook", "edit", "pb_smoke"}, code: 1},
		{name: "edit-unknown", args: []string{"playbook", "edit", "nope", "--body", "x"}, code: 1},
		{name: "show-edited", args: []string{"playbook", "show", "pb_rotate_keys"}},
		{name: "delete-without-yes", args: []string{"playbook", "delete", "pb_release_notes"}, code: 1},
		{name: "delete", args: []string{"playbook", "delete", "--yes", "pb_release_notes"}},
		{name: "list-after-delete", args: []string{"playbook", "list"}},
	})
}
