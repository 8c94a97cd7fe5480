package tests

import "testing"

// Attacks on hostile or oversized downstream servers (results, errors, stderr, tool definitions).
func TestAttacksDownstream(t *testing.T) {
	runAttacks(t, []attack{})
}
