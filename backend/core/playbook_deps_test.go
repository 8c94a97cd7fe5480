package core_test

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/agent-deck/agent-deck/backend"
	"github.com/agent-deck/agent-deck/backend/core"
)

func TestDetectDependencies(t *testing.T) {
	cat := core.DependencyCatalog{
		Credentials: []backend.Credential{
			{ID: "cred_openai_api_key", Label: "OpenAI API Key", EnvName: "OPENAI_API_KEY"},
			{ID: "cred_stripe", Label: "Stripe", EnvName: "STRIPE_API_KEY"},
			{ID: "cred_gh", Label: "GitHub Token", EnvName: "GH_TOKEN"},
		},
		Services: []backend.ServiceCard{
			{ID: "11111111-1111-4111-8111-111111111111", Name: "Linear"},
			{ID: "22222222-2222-4222-8222-222222222222", Name: "Sentry MCP"},
		},
	}
	tests := []struct {
		name  string
		texts []string
		want  core.Dependencies
	}{
		{"nothing", []string{"just prose"}, core.Dependencies{}},
		{"credential id", []string{"use cred_stripe here"},
			core.Dependencies{CredentialIDs: []string{"cred_stripe"}}},
		{"unknown credential id is kept", []string{"needs cred_missing_one."},
			core.Dependencies{CredentialIDs: []string{"cred_missing_one"}}},
		{"id inside a longer word is not an id", []string{"my_cred_stripe"}, core.Dependencies{}},
		{"connections flag", []string{"agent-deck exec --connections cred_stripe,cred_gh -- make"},
			core.Dependencies{CredentialIDs: []string{"cred_stripe", "cred_gh"}}},
		{"connections flag with = and labels", []string{"run --connections=stripe,Linear,nope"},
			core.Dependencies{CredentialIDs: []string{"cred_stripe", "nope"},
				ServiceIDs: []string{"11111111-1111-4111-8111-111111111111"}}},
		{"env name exact case", []string{"export $OPENAI_API_KEY first"},
			core.Dependencies{CredentialIDs: []string{"cred_openai_api_key"}}},
		{"env name needs word boundary", []string{"XOPENAI_API_KEYS"}, core.Dependencies{}},
		{"label case-insensitive across a line break", []string{"Grab the openai api\nkey."},
			core.Dependencies{CredentialIDs: []string{"cred_openai_api_key"}}},
		{"service name case-insensitive", []string{"File it in LINEAR."},
			core.Dependencies{ServiceIDs: []string{"11111111-1111-4111-8111-111111111111"}}},
		{"service name word boundary", []string{"nonlinear thinking"}, core.Dependencies{}},
		{"multi-word service name", []string{"check sentry   mcp"},
			core.Dependencies{ServiceIDs: []string{"22222222-2222-4222-8222-222222222222"}}},
		{"service id", []string{"id 22222222-2222-4222-8222-222222222222"},
			core.Dependencies{ServiceIDs: []string{"22222222-2222-4222-8222-222222222222"}}},
		{"across fields, deduped", []string{"Stripe refunds", "body mentions cred_stripe", "", "", "stripe"},
			core.Dependencies{CredentialIDs: []string{"cred_stripe"}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := core.DetectDependencies(cat, tt.texts...)
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("DetectDependencies (-want +got):\n%s", diff)
			}
		})
	}
}
