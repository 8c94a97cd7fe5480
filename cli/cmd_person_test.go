package cli

import "testing"

// TestCmdPerson runs `person` (issue 26): add, list, edit, a token for a person, and remove.
func TestCmdPerson(t *testing.T) {
	e := startCmdEnv(t)
	e.runCases(t, "person", []cmdCase{
		{name: "add", args: []string{"person", "add", "alice", "--email", "alice@example.com"}},
		{name: "add-admin-json", args: []string{"person", "add", "Bob Builder", "--role", "admin", "--json"}},
		{name: "add-bad-role", args: []string{"person", "add", "carol", "--role", "owner"}, code: 1},
		{name: "add-taken", args: []string{"person", "add", "ALICE"}, code: 1},
		{name: "edit", args: []string{"person", "edit", "alice", "--oidc-subject", "sub-alice"}},
		{name: "token-for-alice", args: []string{"token", "create", "alice-agent", "--person", "alice", "--scope", "agent"}},
		{name: "token-for-nobody", args: []string{"token", "create", "x", "--person", "nobody"}, code: 1},
		{name: "list", args: []string{"person", "list"}},
		{name: "me", args: []string{"person", "me"}},
		{name: "remove-without-yes", args: []string{"person", "remove", "alice"}, code: 1},
		{name: "remove", args: []string{"person", "remove", "alice", "--yes"}},
		{name: "remove-unknown", args: []string{"person", "remove", "alice", "--yes"}, code: 1},
		{name: "list-removed-json", args: []string{"people", "ls", "--removed", "--json"}},
	})
}
