package tests

import "testing"

// Attacks on the REST API (/api/v1, /metrics, health).
func TestAttacksREST(t *testing.T) {
	runAttacks(t, []attack{})
}
