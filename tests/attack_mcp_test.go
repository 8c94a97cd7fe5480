package tests

import "testing"

// Attacks on the MCP endpoint (/mcp and its tools).
func TestAttacksMCP(t *testing.T) {
	runAttacks(t, []attack{
		{"open sessions without end with one token", attackSessionFlood},
	})
}
