package tests

import "testing"

// Attacks on the serve process: data home, embedded PostgreSQL, local children, files on disk.
func TestAttacksServe(t *testing.T) {
	runAttacks(t, []attack{
		{"start a server or a replica with another secret key", attackWrongKeyRefused},
		{"move a sealed secret into another row and call its service", attackMovedCiphertext},
	})
}
