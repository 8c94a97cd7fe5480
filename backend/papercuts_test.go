package backend_test

import (
	"testing"

	"github.com/agent-deck/agent-deck/backend"
)

// TestPapercutsEnvName holds issue 15 item 14: one rule names every credential's env variable,
// whatever word its label ends in, and a stored env name never changes with the label.
func TestPapercutsEnvName(t *testing.T) {
	tests := []struct{ name, label, env string }{
		{"ends in key", "Echo Key", "ECHO_API_KEY"},
		{"ends in api key", "OpenAI API Key", "OPENAI_API_KEY"},
		{"ends in apikey", "Maps APIKey", "MAPS_API_KEY"},
		{"ends in api", "Linear API", "LINEAR_API_KEY"},
		{"plain", "Stripe", "STRIPE_API_KEY"},
		{"ends in token", "GitHub Token", "GITHUB_TOKEN"},
		{"key alone", "Key", "KEY_API_KEY"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := backend.DeriveEnvName(tt.label); got != tt.env {
				t.Errorf("DeriveEnvName(%q) = %q, want %q", tt.label, got, tt.env)
			}
		})
	}
	t.Run("stored env name kept", func(t *testing.T) {
		f := newCoreFixture(t)
		c := coreMust[backend.Credential](t)(f.svc.CreateCredential(f.admin,
			backend.CredentialInput{Label: "Old", Value: "v", EnvName: "ECHO_KEY"}))
		up := coreMust[backend.Credential](t)(f.svc.UpdateCredential(f.admin, c.ID,
			backend.CredentialPatch{Label: ptr("Echo Key")}))
		if up.EnvName != "ECHO_KEY" {
			t.Errorf("env name after relabel = %q, want the stored ECHO_KEY", up.EnvName)
		}
	})
}
