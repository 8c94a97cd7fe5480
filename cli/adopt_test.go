package cli

import (
	"testing"

	"github.com/agent-deck/agent-deck/backend/core"
)

// TestAdoptSecretHeuristics pins what adopt takes for a secret in a field the server stores in
// clear: keys and tokens are caught, package names, versions, paths and URLs are not.
func TestAdoptSecretHeuristics(t *testing.T) {
	for _, tc := range []struct {
		name  string
		value string
		want  bool
	}{
		{"openai key", "sk-proj-abcdEFGH1234", true},
		{"github token", "ghp_0123456789abcdefABCDEF", true},
		{"bearer", "Bearer abc", true},
		{"hex key", "0123456789abcdef0123456789abcdef", true},
		{"base64 key", "dGhpcyBpcyBhIHNlY3JldCBrZXkx", true},
		{"scoped package", "@modelcontextprotocol/server-github", false},
		{"versioned package", "mcp-server-kubernetes-1.2.3", false},
		{"pinned python package", "mcp-server-fetch==2025.1.17", false},
		{"absolute path", "/Users/me/code/project2024final/build", false},
		{"url", "https://example.com/a1b2c3d4e5f6g7h8i9", false},
		{"flag", "--transport", false},
		{"uuid", "2e61dd87-b1d7-4762-8617-eb1e2ffba8b7", false},
	} {
		if got := looksSecret(tc.value); got != tc.want {
			t.Errorf("%s: looksSecret(%q) = %v, want %v", tc.name, tc.value, got, tc.want)
		}
	}
	for _, tc := range []struct {
		name string
		in   core.ServiceInput
		want bool
	}{
		{"flag then value", core.ServiceInput{LocalArgs: []string{"--api-key", "abc"}}, true},
		{"flag=value", core.ServiceInput{LocalArgs: []string{"--token=abc"}}, true},
		{"plain args", core.ServiceInput{LocalArgs: []string{"-y", "@scope/server", "--port", "8080"}}, false},
		{"query key", core.ServiceInput{URL: "https://x.example/mcp?api_key=abc"}, true},
		{"query page", core.ServiceInput{URL: "https://x.example/mcp?page=2"}, false},
	} {
		if got := clearSecret(tc.in) != ""; got != tc.want {
			t.Errorf("%s: clearSecret = %q, want a secret: %v", tc.name, clearSecret(tc.in), tc.want)
		}
	}
}
