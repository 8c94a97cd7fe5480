package core_test

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"strings"
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
	if got := r.String("header-secret-1234"); got == "header-secret-1234" {
		t.Errorf("a changed service's secret header is no longer masked, though the server still holds it")
	}
	if _, err := svc.RotateCredential(admin, cred.ID, "cred-secret-5678"); err != nil {
		t.Fatal(err)
	}
	if err := svc.DeleteService(admin, "local"); err != nil {
		t.Fatal(err)
	}
	for _, gone := range []string{"cred-secret-1234", "env-secret-1234"} {
		if got := r.String(gone); got != gone {
			t.Errorf("%q, no longer held (rotated, deleted), is still masked: %q", gone, got)
		}
	}
	if got := r.String("cred-secret-5678"); got == "cred-secret-5678" {
		t.Errorf("a rotated credential's new value is not masked")
	}
}

// TestHeldSecretsMaskedOnWrite: every secret the server holds is masked where an agent's text
// is stored, though no call ever built the target that holds it: a credential on no service,
// another service's secret header, a local env value, URL userinfo, loaded at start.
func TestHeldSecretsMaskedOnWrite(t *testing.T) {
	st := pgtest.NewStore(t)
	sealer := newTestSealer(t)
	ds := &fakeDownstream{status: map[string]backend.DownstreamStatus{}}
	admin := backend.WithActor(context.Background(), backend.Actor{Scope: backend.ScopeAdmin, Kind: backend.ActorUser})
	first := core.NewHub(st, ds, sealer, nil, nil, core.Config{Redactor: secret.NewRedactor()})
	canaries := map[string]string{"credential": "canary-cred-9f3a", "header": "canary-header-77d1",
		"env": "canary-env-0b2c", "userinfo": "canary-pass-5e6f"}
	if _, err := first.CreateCredential(admin, core.CredentialInput{Label: "Unlinked", Value: canaries["credential"]}); err != nil {
		t.Fatal(err)
	}
	if _, err := first.CreateService(admin, core.ServiceInput{Name: "other", Type: backend.ServiceRemote,
		URL: "http://bot:" + canaries["userinfo"] + "@127.0.0.1:9/mcp", Headers: map[string]string{"Authorization": canaries["header"]}}); err != nil {
		t.Fatal(err)
	}
	if _, err := first.CreateService(admin, core.ServiceInput{Name: "tool", Type: backend.ServiceLocal,
		LocalCommand: "/bin/true", LocalEnv: map[string]string{"TOKEN": canaries["env"]}}); err != nil {
		t.Fatal(err)
	}
	// A server started later knows them from the database alone.
	r := secret.NewRedactor()
	svc := core.NewHub(st, ds, sealer, nil, nil, core.Config{Redactor: r})
	if err := svc.LearnHeldSecrets(admin); err != nil {
		t.Fatal(err)
	}
	all := strings.Join([]string{canaries["credential"], canaries["header"], canaries["env"], canaries["userinfo"]}, " ")
	d, err := svc.CreateDeck(admin, core.DeckInput{Name: "ops"})
	if err != nil {
		t.Fatal(err)
	}
	pb, err := svc.CreatePlaybook(admin, backend.PlaybookInput{Title: "Deploy", Body: "# Deploy\n\n## Steps\n\n- run " + all,
		Triggers: []string{"deploy " + canaries["env"]}})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := svc.LinkCard(admin, core.LinkCardInput{CardRef: core.CardRef{Deck: d.ID, CardType: backend.CardPlaybook, CardID: pb.ID}}); err != nil {
		t.Fatal(err)
	}
	agent := backend.WithActor(context.Background(), backend.Actor{TokenID: "", Scope: backend.ScopeAgent, Kind: backend.ActorAgent})
	sess, err := svc.OpenSession(agent, core.OpenSessionInput{Profile: "runtime", Deck: d.ID})
	if err != nil {
		t.Fatal(err)
	}
	prop, err := svc.ProposePlaybookPatch(agent, sess.ID, core.ProposeInput{Kind: backend.ProposalUpdate, PlaybookID: pb.ID,
		Rationale: "the key is " + all, Evidence: backend.Evidence{FailureSummary: all},
		Ops: []backend.PlaybookOp{{Op: backend.OpAddItem, Section: "Steps", Text: "use " + all}}})
	if err != nil {
		t.Fatal(err)
	}
	sig, err := svc.ProposePlaybookPatch(agent, sess.ID, core.ProposeInput{Kind: backend.ProposalSignalOnly, Rationale: all,
		Evidence: backend.Evidence{UserFeedbackExcerpt: all}})
	if err != nil {
		t.Fatal(err)
	}
	upd, err := svc.UpdateBoundPlaybook(agent, sess.ID, pb.ID, core.PlaybookPatch{Title: ptr("Deploy " + canaries["header"])})
	if err != nil {
		t.Fatal(err)
	}
	stored := []string{}
	for _, x := range []any{pb, prop.Proposal, sig.Signal, upd} {
		b, _ := json.Marshal(x)
		stored = append(stored, string(b))
	}
	props, _ := svc.ListProposals(admin, backend.ProposalFilter{})
	sigs, _ := svc.ListSignals(admin)
	pbs, _ := svc.ListPlaybooks(admin)
	for _, x := range []any{props, sigs, pbs} {
		b, _ := json.Marshal(x)
		stored = append(stored, string(b))
	}
	for name, c := range canaries {
		for _, text := range stored {
			if strings.Contains(text, c) {
				t.Errorf("the %s canary was stored: %s", name, text)
			}
		}
	}
	if !strings.Contains(stored[len(stored)-1], backend.MaskedValue) {
		t.Errorf("the playbooks show no mask: %s", stored[len(stored)-1])
	}
}
