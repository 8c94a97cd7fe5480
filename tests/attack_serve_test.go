package tests

import "testing"

// Attacks on the serve process: data home, embedded PostgreSQL, local children, files on disk.
func TestAttacksServe(t *testing.T) {
	runAttacks(t, []attack{})
}
