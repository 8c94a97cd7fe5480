package core_test

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/agent-deck/agent-deck/backend"
	"github.com/agent-deck/agent-deck/backend/core"
)

func TestCredentialCreate(t *testing.T) {
	f := newCoreFixture(t)
	tests := []struct {
		name       string
		in         core.CredentialInput
		wantID     string
		wantEnv    string
		wantScheme backend.AuthScheme
	}{
		{"derived", core.CredentialInput{Label: "OpenAI API Key", Value: "v"}, "cred_openai_api_key", "OPENAI_API_KEY", backend.SchemeBearer},
		{"derived suffix on slug clash", core.CredentialInput{Label: "OpenAI-API-Key!", Value: "v"}, "cred_openai_api_key_2", "OPENAI_API_KEY", backend.SchemeBearer},
		{"explicit id and env", core.CredentialInput{Label: "GH", Value: "v", ID: "cred_gh_pat", EnvName: "GH_TOKEN"}, "cred_gh_pat", "GH_TOKEN", backend.SchemeBearer},
		{"header scheme", core.CredentialInput{Label: "Weather", Value: "v", Scheme: backend.SchemeHeader, HeaderName: "X-Api-Key"}, "cred_weather", "WEATHER_API_KEY", backend.SchemeHeader},
		{"basic", core.CredentialInput{Label: "Mailer", Value: " v \n", Scheme: backend.SchemeHTTPBasicUser}, "cred_mailer", "MAILER_API_KEY", backend.SchemeHTTPBasicUser},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := coreMust[backend.Credential](t)(f.svc.CreateCredential(f.admin, tt.in))
			if c.ID != tt.wantID || c.EnvName != tt.wantEnv || c.Scheme != tt.wantScheme || !c.HasSecret {
				t.Errorf("got id %q env %q scheme %q has_secret %v", c.ID, c.EnvName, c.Scheme, c.HasSecret)
			}
		})
	}
	bad := []struct {
		name, field string
		in          core.CredentialInput
		code        backend.Code
	}{
		{"label taken, other case", "label", core.CredentialInput{Label: "openai api key", Value: "v"}, backend.CodeConflict},
		{"id taken", "id", core.CredentialInput{Label: "Other", Value: "v", ID: "cred_gh_pat"}, backend.CodeConflict},
		{"bad id", "id", core.CredentialInput{Label: "Other", Value: "v", ID: "gh"}, backend.CodeInvalidArgument},
		{"no value", "value", core.CredentialInput{Label: "Other", Value: "  "}, backend.CodeInvalidArgument},
		{"no label", "label", core.CredentialInput{Label: "", Value: "v"}, backend.CodeInvalidArgument},
		{"bad scheme", "scheme", core.CredentialInput{Label: "Other", Value: "v", Scheme: "digest"}, backend.CodeInvalidArgument},
		{"header scheme needs a header", "header_name", core.CredentialInput{Label: "Other", Value: "v", Scheme: backend.SchemeHeader}, backend.CodeInvalidArgument},
		{"bad env name", "env_name", core.CredentialInput{Label: "Other", Value: "v", EnvName: "my-key"}, backend.CodeInvalidArgument},
		{"bad docs url", "docs_url", core.CredentialInput{Label: "Other", Value: "v", DocsURL: "nope"}, backend.CodeInvalidArgument},
	}
	for _, tt := range bad {
		t.Run(tt.name, func(t *testing.T) {
			_, err := f.svc.CreateCredential(f.admin, tt.in)
			e := wantCode(t, err, tt.code)
			if e.Details["field"] != tt.field {
				t.Errorf("details %v, want field %s (message %q)", e.Details, tt.field, e.Message)
			}
		})
	}
	_, err := f.svc.CreateCredential(f.agent, core.CredentialInput{Label: "Agent", Value: "v"})
	wantCode(t, err, backend.CodeForbidden)
	_, err = f.svc.RotateCredential(f.agent, "cred_gh_pat", "new")
	wantCode(t, err, backend.CodeForbidden)
	if _, err := f.svc.GetCredential(f.reader, "GH"); err != nil {
		t.Errorf("reader cannot read metadata: %v", err)
	}
}

func TestCredentialUpdate(t *testing.T) {
	f := newCoreFixture(t)
	c := coreMust[backend.Credential](t)(f.svc.CreateCredential(f.admin, core.CredentialInput{
		Label: "Weather", Value: "v", Scheme: backend.SchemeHeader, HeaderName: "X-Key", Tags: []string{"a", " A ", "b"}}))
	if diff := cmp.Diff([]string{"a", "b"}, c.Tags); diff != "" {
		t.Errorf("tags (-want +got):\n%s", diff)
	}
	got := coreMust[backend.Credential](t)(f.svc.UpdateCredential(f.admin, c.ID, core.CredentialPatch{
		Label: ptr("Weather API"), Scheme: ptr(backend.SchemeBearer)}))
	if got.ID != c.ID || got.Label != "Weather API" || got.HeaderName != "" || got.EnvName != "WEATHER_API_KEY" {
		t.Errorf("after patch: %+v", got)
	}
	f.credential(t, "Other", "v")
	_, err := f.svc.UpdateCredential(f.admin, c.ID, core.CredentialPatch{Label: ptr("OTHER")})
	wantCode(t, err, backend.CodeConflict)
	_, err = f.svc.UpdateCredential(f.admin, c.ID, core.CredentialPatch{HeaderName: ptr("X-Key")})
	wantCode(t, err, backend.CodeInvalidArgument)
	_, err = f.svc.UpdateCredential(f.agent, c.ID, core.CredentialPatch{Label: ptr("x")})
	wantCode(t, err, backend.CodeForbidden)
	_, err = f.svc.GetCredential(f.reader, "nope")
	e := wantCode(t, err, backend.CodeNotFound)
	if !strings.Contains(e.Message, c.ID) {
		t.Errorf("not-found message %q does not list known credentials", e.Message)
	}
}

func TestCredentialRotateAndDelete(t *testing.T) {
	f := newCoreFixture(t)
	c := f.credential(t, "Key", "first")
	s := coreMust[backend.ServiceCard](t)(f.svc.CreateService(f.admin, core.ServiceInput{
		Name: "S", Type: backend.ServiceRemote, URL: "https://s.test", CredentialID: c.ID}))
	before := coreMust[backend.Target](t)(f.svc.TargetForTest(f.admin, s.ID))
	coreMust[backend.Credential](t)(f.svc.RotateCredential(f.admin, "key", "second"))
	after := coreMust[backend.Target](t)(f.svc.TargetForTest(f.admin, s.ID))
	if before.Credential.Secret != "first" || after.Credential.Secret != "second" {
		t.Errorf("rotate: secrets %q → %q", before.Credential.Secret, after.Credential.Secret)
	}
	if before.Revision == after.Revision {
		t.Errorf("rotation did not change the target revision")
	}
	_, err := f.svc.RotateCredential(f.admin, c.ID, " ")
	wantCode(t, err, backend.CodeInvalidArgument)
	_, err = f.svc.DeleteCredential(f.agent, c.ID)
	wantCode(t, err, backend.CodeForbidden)
	if _, err := f.svc.DeleteCredential(f.admin, c.ID); err != nil {
		t.Fatal(err)
	}
	got := coreMust[backend.ServiceCard](t)(f.svc.GetService(f.admin, s.ID))
	if got.CredentialID != "" || !f.ds.forgotten(s.ID) {
		t.Errorf("service after credential delete: credential %q forgotten %v", got.CredentialID, f.ds.forgotten(s.ID))
	}
}

// TestDeleteCredentialSaysWhatFallsBack holds issue 27 item 13: deleting a credential a deck
// chose for a service says that deck's calls fall back to the service's own credential (or to
// none), and names the services whose own credential it was.
func TestDeleteCredentialSaysWhatFallsBack(t *testing.T) {
	f := newCoreFixture(t)
	must := func(err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	mk := func(label string) backend.Credential {
		c, err := f.svc.CreateCredential(f.admin, core.CredentialInput{Label: label, Value: "secret-" + label})
		must(err)
		return c
	}
	work, own := mk("work key"), mk("own key")
	withOwn, err := f.svc.CreateService(f.admin, core.ServiceInput{Name: "with-own", Type: backend.ServiceRemote,
		URL: "https://a.example.test/mcp", CredentialID: own.ID})
	must(err)
	bare, err := f.svc.CreateService(f.admin, core.ServiceInput{Name: "bare", Type: backend.ServiceRemote,
		URL: "https://b.example.test/mcp"})
	must(err)
	_, err = f.svc.CreateService(f.admin, core.ServiceInput{Name: "uses-work", Type: backend.ServiceRemote,
		URL: "https://c.example.test/mcp", CredentialID: work.ID})
	must(err)
	for _, dc := range []struct{ deck, service string }{{"dev", withOwn.ID}, {"ops", bare.ID}} {
		d, err := f.svc.CreateDeck(f.admin, core.DeckInput{Name: dc.deck})
		must(err)
		_, err = f.svc.LinkCard(f.admin, core.LinkCardInput{CardRef: core.CardRef{Deck: d.ID, CardType: backend.CardService, CardID: dc.service}})
		must(err)
		_, err = f.svc.UpdateDeckServiceSettings(f.admin, d.ID, dc.service, core.DeckServiceSettingsInput{CredentialID: &work.ID})
		must(err)
	}
	got, err := f.svc.DeleteCredential(f.admin, work.ID)
	must(err)
	want := core.CredentialDeletion{ID: work.ID, Label: "work key",
		Fallbacks:       []core.CredentialFallback{{Deck: "dev", Service: "with-own", Now: own.ID}, {Deck: "ops", Service: "bare"}},
		ServicesWithout: []string{"uses-work"}}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("deletion (-want +got):\n%s", diff)
	}
}
