package tests

import "testing"

// Attacks on the agent-deck CLI.
func TestAttacksCLI(t *testing.T) {
	runAttacks(t, []attack{
		{"credential secret piped with a line break", attackCLICredentialSecretWithLineBreak},
		{"the CLI drops the hint of a server error", attackCLIHidesServerHint},
		{"a newer error code is reported as an internal failure", attackCLIUnknownCode},
		{"a member's CLI shows, shares or deletes another person's private deck", attackCLIOtherPersonsDeck},
		{"a member's CLI lists, shows or sets their own secret for a credential on another person's deck", attackCLIOtherPersonsCredential},
		{"shell completion runs a command in a deck's name", attackCLICompletionEvaluatesNames},
	})
}
