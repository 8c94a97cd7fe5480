package backend_test

import (
	"slices"
	"testing"

	"github.com/agent-deck/agent-deck/backend"
)

func TestEditDistanceCountsCharacters(t *testing.T) {
	tests := []struct {
		a, b string
		want int
	}{
		{"", "", 0},
		{"deck", "deck", 0},
		{"deck", "dekc", 2},
		{"servce", "service", 1},
		// é is two bytes and one character: a byte count would say 2 and 4.
		{"café", "cafe", 1},
		{"sérvicé", "service", 2},
		{"日本語", "日本", 1},
	}
	for _, tt := range tests {
		if got := backend.EditDistance(tt.a, tt.b); got != tt.want {
			t.Errorf("EditDistance(%q, %q) = %d, want %d", tt.a, tt.b, got, tt.want)
		}
	}
}

func TestByClosenessRanksContainedThenNearest(t *testing.T) {
	got := backend.ByCloseness("gh", []string{"linear", "github", "gitlab", "gh-issues"})
	want := []string{"gh-issues", "github", "gitlab", "linear"}
	if !slices.Equal(got, want) {
		t.Errorf("ByCloseness = %q, want %q", got, want)
	}
}
