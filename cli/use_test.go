package cli

import (
	"strings"
	"testing"
)

// TestTokenEnvNote holds issue 27 item 7: `use` says which variable the committed config reads
// its token from, whether this shell has it, and that the default one is also the CLI's own.
func TestTokenEnvNote(t *testing.T) {
	tests := []struct {
		name    string
		env     string
		set     bool
		want    []string
		notWant []string
	}{
		{"default, unset", "AGENT_DECK_TOKEN", false,
			[]string{"Bearer ${AGENT_DECK_TOKEN}", "not set in this shell", "token create", "also the token this CLI uses"}, nil},
		{"default, set", "AGENT_DECK_TOKEN", true,
			[]string{"it is set in this shell", "also the token this CLI uses"}, []string{"token create"}},
		{"own variable", "DECK_AGENT_TOKEN", false,
			[]string{"Bearer ${DECK_AGENT_TOKEN}", "export DECK_AGENT_TOKEN="}, []string{"this CLI uses"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got := tokenEnvNote(tc.env, tc.set)
			for _, w := range tc.want {
				if !strings.Contains(got, w) {
					t.Errorf("note lacks %q:\n%s", w, got)
				}
			}
			for _, w := range tc.notWant {
				if strings.Contains(got, w) {
					t.Errorf("note has %q:\n%s", w, got)
				}
			}
		})
	}
}
