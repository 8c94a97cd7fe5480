package tests

import "testing"

// Attacks on the agent-deck CLI.
func TestAttacksCLI(t *testing.T) {
	runAttacks(t, []attack{
		{"credential secret piped with a line break", attackCLICredentialSecretWithLineBreak},
	})
}
