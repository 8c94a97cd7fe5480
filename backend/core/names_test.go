package core_test

import (
	"strings"
	"testing"

	"github.com/agent-deck/agent-deck/backend"
	"github.com/agent-deck/agent-deck/backend/core"
)

// TestDerivedEnvName holds issue 15 item 14: one rule names every credential's env variable,
// whatever word its label ends in, and a stored env name never changes with the label.
func TestDerivedEnvName(t *testing.T) {
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
			core.CredentialInput{Label: "Old", Value: "v", EnvName: "ECHO_KEY"}))
		up := coreMust[backend.Credential](t)(f.svc.UpdateCredential(f.admin, c.ID,
			core.CredentialPatch{Label: ptr("Echo Key")}))
		if up.EnvName != "ECHO_KEY" {
			t.Errorf("env name after relabel = %q, want the stored ECHO_KEY", up.EnvName)
		}
	})
}

// TestCardNames holds the backend half of issue 15 item 9: messages people read name cards
// by name — the deck that holds a name, the service an unlink leaves playbooks without.
func TestCardNames(t *testing.T) {
	f := newCoreFixture(t)
	d := f.deck(t, "dev")
	t.Run("deck name taken", func(t *testing.T) {
		other := f.deck(t, "prod")
		for _, attempt := range []func() error{
			func() error { _, err := f.svc.CreateDeck(f.admin, core.DeckInput{Name: "DEV"}); return err },
			func() error {
				_, err := f.svc.RenameDeck(f.admin, other.ID, core.DeckInput{Name: "Dev"})
				return err
			},
		} {
			e := wantCode(t, attempt(), backend.CodeConflict)
			if !strings.Contains(e.Message, `"dev"`) {
				t.Errorf("conflict %q does not name the existing deck \"dev\"", e.Message)
			}
		}
	})
	t.Run("unlink warning", func(t *testing.T) {
		svc := f.service(t, "github-mcp")
		pb := f.playbook(t, backend.PlaybookInput{Title: "Open a PR", Body: "use it",
			DependsOnServiceIDs: []string{svc.ID}})
		f.link(t, d.ID, backend.CardService, svc.ID)
		f.link(t, d.ID, backend.CardPlaybook, pb.Playbook.ID)
		res := coreMust[core.CardsResult](t)(f.svc.UnlinkCard(f.admin,
			core.CardRef{Deck: d.ID, CardType: backend.CardService, CardID: svc.ID}))
		if len(res.Warnings) != 1 {
			t.Fatalf("warnings = %+v, want one", res.Warnings)
		}
		if msg := res.Warnings[0].Message; strings.Contains(msg, svc.ID) || !strings.Contains(msg, `"github-mcp"`) {
			t.Errorf("unlink warning %q: want the service's name, not its id", msg)
		}
	})
}
