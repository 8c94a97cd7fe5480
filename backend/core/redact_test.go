package core_test

import (
	"context"
	"encoding/base64"
	"testing"

	"github.com/agent-deck/agent-deck/backend"
	"github.com/agent-deck/agent-deck/backend/core"
	"github.com/agent-deck/agent-deck/backend/postgres/pgtest"
	"github.com/agent-deck/agent-deck/backend/secret"
)

// TestRedactorLearnsServiceSecrets: building a service's target teaches the Redactor every
// value held secret for it (credential, secret headers, local env, URL userinfo, and the basic
// auth form), not the plain ones; changing the service forgets them.
func TestRedactorLearnsServiceSecrets(t *testing.T) {
	r := secret.NewRedactor()
	ds := &fakeDownstream{status: map[string]backend.DownstreamStatus{}}
	svc := core.NewHub(pgtest.NewStore(t), ds, newTestSealer(t), nil, nil, core.Config{Redactor: r})
	admin := backend.WithActor(context.Background(), backend.Actor{Scope: backend.ScopeAdmin, Kind: backend.ActorUser})
	cred, err := svc.CreateCredential(admin, core.CredentialInput{Label: "Key", Value: "cred-secret-1234"})
	if err != nil {
		t.Fatal(err)
	}
	_, err = svc.CreateService(admin, core.ServiceInput{Name: "remote", Type: backend.ServiceRemote,
		URL: "http://deploy:url%40pass-1234@127.0.0.1:9/mcp", CredentialID: cred.ID,
		Headers: map[string]string{"X-Api-Key": "header-secret-1234", "X-Team": "visible-team-value"}})
	if err != nil {
		t.Fatal(err)
	}
	_, err = svc.CreateService(admin, core.ServiceInput{Name: "local", Type: backend.ServiceLocal,
		LocalCommand: "/bin/true", LocalEnv: map[string]string{"DATABASE_URL": "env-secret-1234"}})
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"remote", "local"} {
		if _, err := svc.CheckService(admin, name, ""); err != nil {
			t.Fatal(err)
		}
	}
	secrets := []string{"cred-secret-1234", "header-secret-1234", "env-secret-1234", "url@pass-1234", "url%40pass-1234",
		base64.StdEncoding.EncodeToString([]byte("cred-secret-1234:")),
		base64.StdEncoding.EncodeToString([]byte("deploy:url@pass-1234"))}
	for _, s := range secrets {
		if got := r.String("x " + s + " y"); got != "x "+backend.MaskedValue+" y" {
			t.Errorf("%q is not masked: %q", s, got)
		}
	}
	if got := r.String("visible-team-value"); got != "visible-team-value" {
		t.Errorf("a plain header value is masked: %q", got)
	}
	desc := "changed"
	if _, err := svc.UpdateService(admin, "remote", core.ServicePatch{Description: &desc}); err != nil {
		t.Fatal(err)
	}
	if got := r.String("cred-secret-1234"); got != "cred-secret-1234" {
		t.Errorf("a changed service's secrets are still known: %q", got)
	}
	if got := r.String("env-secret-1234"); got == "env-secret-1234" {
		t.Errorf("an unchanged service's secrets were forgotten")
	}
}
