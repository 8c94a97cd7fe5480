package tests

import "testing"

// Attacks on the MCP endpoint (/mcp and its tools).
func TestAttacksMCP(t *testing.T) {
	runAttacks(t, []attack{
		{"agent update_service sends a secret-carrying service to its own URL", attackMCPUpdateServiceURLOfSecretService},
		{"agent register_service and update_service on metadata and private hosts", attackMCPRegisterMetadataHost},
		{"agent update_playbook on a playbook off the bound deck", attackMCPUpdatePlaybookOffDeck},
		{"agent bind_workspace with a relative path", attackMCPBindRelativeWorkspace},
		{"open sessions without end with one token", attackSessionFlood},
	})
}
