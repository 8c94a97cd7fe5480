package postgres

import (
	"testing"

	"github.com/google/uuid"
)

// TestAsUUIDIsCanonical: the shortcut for an id already canonical gives what parsing gives.
func TestAsUUIDIsCanonical(t *testing.T) {
	for _, s := range []string{"6ba7b810-9dad-11d1-80b4-00c04fd430c8", "6BA7B810-9DAD-11D1-80B4-00C04FD430C8",
		"{6ba7b810-9dad-11d1-80b4-00c04fd430c8}", "urn:uuid:6ba7b810-9dad-11d1-80b4-00c04fd430c8",
		"6ba7b8109dad11d180b400c04fd430c8", "6ba7b810-9dad-11d1-80b4-00c04fd430cg", "", "dev"} {
		want := ""
		if u, err := uuid.Parse(s); err == nil {
			want = u.String()
		}
		if got := asUUID(s); got != want {
			t.Errorf("asUUID(%q) = %q, want %q", s, got, want)
		}
	}
}
