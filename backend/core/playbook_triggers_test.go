package core_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/agent-deck/agent-deck/backend"
	"github.com/agent-deck/agent-deck/backend/core"
)

func TestCleanTriggers(t *testing.T) {
	seventeen := make([]string, 17)
	for i := range seventeen {
		seventeen[i] = fmt.Sprintf("trigger %d", i)
	}
	tests := []struct {
		name    string
		in      []string
		want    []string
		wantErr bool
	}{
		{"nil", nil, []string{}, false},
		{"trims and collapses", []string{"  deploy   the\tapp \n"}, []string{"deploy the app"}, false},
		{"drops empties", []string{"", "   ", "ship"}, []string{"ship"}, false},
		{"dedupes case-insensitively, first wins", []string{"Deploy App", "deploy app", "DEPLOY  APP"},
			[]string{"Deploy App"}, false},
		{"sixteen distinct is fine", seventeen[:16], seventeen[:16], false},
		{"seventeen distinct is refused", seventeen, nil, true},
		{"seventeen with duplicates is fine", append(seventeen[:16:16], "TRIGGER 0"), seventeen[:16], false},
		{"eighty chars is fine", []string{strings.Repeat("a", 80)}, []string{strings.Repeat("a", 80)}, false},
		{"eighty-one chars is refused", []string{strings.Repeat("a", 81)}, nil, true},
		{"length counts characters, not bytes", []string{strings.Repeat("é", 80)},
			[]string{strings.Repeat("é", 80)}, false},
		{"long after collapsing is measured collapsed", []string{"a" + strings.Repeat(" ", 100) + "b"},
			[]string{"a b"}, false},
		{"control characters refused", []string{"ring\x07bell"}, nil, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := core.CleanTriggers(tt.in)
			if tt.wantErr {
				if backend.ErrorCode(err) != backend.CodeInvalidArgument {
					t.Fatalf("CleanTriggers error = %v, want INVALID_ARGUMENT", err)
				}
				return
			}
			if err != nil {
				t.Fatalf("CleanTriggers: %v", err)
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("CleanTriggers (-want +got):\n%s", diff)
			}
		})
	}
}

func TestTriggersConflict(t *testing.T) {
	tests := []struct {
		name string
		a, b string
		want bool
	}{
		{"equal ignoring case and punctuation", "Deploy the app", "deploy the app!", true},
		{"one word inside another", "deploy", "deploy to production", true},
		{"words in order with gaps", "deploy app", "deploy my new app", true},
		{"reversed containment", "rotate the staging keys", "rotate keys", true},
		{"words out of order, small overlap", "app deploy", "deploy my new app", false},
		{"heavy overlap", "create release notes draft", "create draft release", true},
		{"light overlap", "open pull request", "close issue tracker", false},
		{"jaccard just below", "a b c d e", "a b c f g", false},
		{"unrelated", "send invoice", "restart database", false},
		{"empty", "", "anything", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, why := core.TriggersConflict(tt.a, tt.b)
			if got != tt.want {
				t.Errorf("TriggersConflict(%q, %q) = %v (%s), want %v", tt.a, tt.b, got, why, tt.want)
			}
			if back, _ := core.TriggersConflict(tt.b, tt.a); back != got {
				t.Errorf("TriggersConflict is not symmetric for %q, %q", tt.a, tt.b)
			}
		})
	}
}
