package tests

import "testing"

// Attacks on the REST API (/api/v1, /metrics, health).
func TestAttacksREST(t *testing.T) {
	runAttacks(t, []attack{
		{"cancelling requests mid-flight is counted and logged as a database outage", attackCancelCountedAsOutage},
	})
}
