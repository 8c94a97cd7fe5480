package tests

import (
	"strings"
	"testing"

	"github.com/agent-deck/agent-deck/cli"
)

// TestPapercutsStatusline holds issue 15 item 1: with the server up, the status line never says
// offline — input that is not the expected JSON falls back to the working directory, and a
// refused token gets its own line.
func TestPapercutsStatusline(t *testing.T) {
	e := startCLIEnv(t)
	tests := []struct {
		name  string
		args  []string
		stdin string
		want  string // "" = the deck line (neither offline nor token refused)
	}{
		{"garbage", nil, "garbage", ""},
		{"array", nil, "[1,2]", ""},
		{"cwd not a string", nil, `{"cwd":5}`, ""},
		{"workspace not an object", nil, `{"workspace":"x"}`, ""},
		{"bad token", []string{"--token", "ad_not_a_real_token"}, `{"cwd":"/"}`, cli.TokenRefusedLine},
		{"bad token, own server", []string{"--server", e.srv.URL(), "--token", "nope"}, "", cli.TokenRefusedLine},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			r := e.run(tc.stdin, append(tc.args, "statusline")...).wantCode(t, 0)
			if strings.Count(r.stdout, "\n") != 1 || !strings.HasSuffix(r.stdout, "\n") {
				t.Fatalf("output is not exactly one line: %q", r.stdout)
			}
			line := strings.TrimSuffix(r.stdout, "\n")
			switch {
			case tc.want != "" && line != tc.want:
				t.Errorf("line %q, want %q", line, tc.want)
			case tc.want == "" && (line == cli.OfflineLine || line == cli.TokenRefusedLine):
				t.Errorf("line %q while the server is up and the token good", line)
			}
		})
	}
}
