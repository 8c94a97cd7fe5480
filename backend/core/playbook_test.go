package core_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/agent-deck/agent-deck/backend"
	"github.com/agent-deck/agent-deck/backend/core"
)

func TestPlaybookCreate(t *testing.T) {
	f := newCoreFixture(t)
	cred := f.credential(t, "Stripe", "v")
	svc := f.service(t, "Linear")
	seventeen := make([]string, 17)
	for i := range seventeen {
		seventeen[i] = fmt.Sprintf("t%d", i)
	}
	tests := []struct {
		name        string
		in          backend.PlaybookInput
		wantID      string
		wantCreds   []string
		wantSvcs    []string
		wantUnknown []string
		wantErr     backend.Code
	}{
		{name: "derived id, detected deps",
			in:     backend.PlaybookInput{Title: "Refund a customer", Body: "Use $STRIPE_API_KEY, then file it in linear."},
			wantID: "pb_refund_a_customer", wantCreds: []string{cred.ID}, wantSvcs: []string{svc.ID}, wantUnknown: []string{}},
		{name: "explicit ids merged, unknown kept",
			in: backend.PlaybookInput{Title: "Ship", Body: "agent-deck exec --connections cred_stripe,cred_ghost -- make",
				ID: "pb_ship_it", DependsOnServiceIDs: []string{"Linear", "svc-missing"}},
			wantID: "pb_ship_it", wantCreds: []string{cred.ID, "cred_ghost"}, wantSvcs: []string{svc.ID, "svc-missing"},
			wantUnknown: []string{"cred_ghost", "svc-missing"}},
		{name: "auto detection off",
			in: backend.PlaybookInput{Title: "Quiet", Body: "stripe and linear", AutoDetectDependencies: ptr(false),
				DependsOnCredentialIDs: []string{"cred_stripe"}},
			wantID: "pb_quiet", wantCreds: []string{cred.ID}, wantSvcs: []string{}, wantUnknown: []string{}},
		{name: "derived id suffix when the slug is taken",
			in:     backend.PlaybookInput{Title: "Ship!", Body: "x"},
			wantID: "pb_ship", wantCreds: []string{}, wantSvcs: []string{}, wantUnknown: []string{}},
		{name: "title taken, other case", in: backend.PlaybookInput{Title: "SHIP", Body: "x"}, wantErr: backend.CodeConflict},
		{name: "id taken", in: backend.PlaybookInput{Title: "New", ID: "pb_ship_it"}, wantErr: backend.CodeConflict},
		{name: "bad id", in: backend.PlaybookInput{Title: "New", ID: "ship"}, wantErr: backend.CodeInvalidArgument},
		{name: "too many triggers", in: backend.PlaybookInput{Title: "New", Triggers: seventeen}, wantErr: backend.CodeInvalidArgument},
		{name: "trigger too long", in: backend.PlaybookInput{Title: "New", Triggers: []string{strings.Repeat("w", 81)}}, wantErr: backend.CodeInvalidArgument},
		{name: "empty title", in: backend.PlaybookInput{Title: " "}, wantErr: backend.CodeInvalidArgument},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := f.svc.CreatePlaybook(f.agent, tt.in)
			if tt.wantErr != "" {
				wantCode(t, err, tt.wantErr)
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if got.ID != tt.wantID {
				t.Errorf("id = %q, want %q", got.ID, tt.wantID)
			}
			if diff := cmp.Diff(tt.wantCreds, got.DependsOnCredentialIDs); diff != "" {
				t.Errorf("credential deps (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(tt.wantSvcs, got.DependsOnServiceIDs); diff != "" {
				t.Errorf("service deps (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(tt.wantUnknown, got.UnknownDependencies); diff != "" {
				t.Errorf("unknown deps (-want +got):\n%s", diff)
			}
		})
	}
	// "Ship!" slugs like "Ship" → pb_ship was free; a second clash gets a suffix.
	p := f.playbook(t, backend.PlaybookInput{Title: "Ship?", Body: "x"})
	if p.ID != "pb_ship_2" {
		t.Errorf("second clash id = %q, want pb_ship_2", p.ID)
	}
	all := coreMust[[]backend.Playbook](t)(f.svc.ListPlaybooks(f.reader))
	if len(all) != 5 {
		t.Errorf("refused creates changed the collection: %d playbooks", len(all))
	}
	wantCode(t, f.svc.DeletePlaybook(f.agent, p.ID), backend.CodeForbidden)
	if err := f.svc.DeletePlaybook(f.admin, p.ID); err != nil {
		t.Fatal(err)
	}
	_, err := f.svc.CreatePlaybook(f.reader, backend.PlaybookInput{Title: "R"})
	wantCode(t, err, backend.CodeForbidden)
}

func TestPlaybookVersions(t *testing.T) {
	f := newCoreFixture(t)
	v0 := f.playbook(t, backend.PlaybookInput{Title: "Deploy", Body: "one", Triggers: []string{"deploy"}})
	v1 := coreMust[core.PlaybookResult](t)(f.svc.UpdatePlaybook(f.agent, "deploy", core.PlaybookPatch{Body: ptr("two")}))
	coreMust[core.PlaybookResult](t)(f.svc.UpdatePlaybook(f.admin, v0.ID, core.PlaybookPatch{
		Title: ptr("Deploy app"), Triggers: ptr([]string{"deploy app", "ship"})}))
	// A change that changes nothing records nothing.
	coreMust[core.PlaybookResult](t)(f.svc.UpdatePlaybook(f.admin, v0.ID, core.PlaybookPatch{Body: ptr("two")}))
	// A refused change records nothing either: the version and the change share a transaction.
	f.playbook(t, backend.PlaybookInput{Title: "Other"})
	_, err := f.svc.UpdatePlaybook(f.admin, v0.ID, core.PlaybookPatch{Title: ptr("OTHER")})
	wantCode(t, err, backend.CodeConflict)

	vs := coreMust[[]backend.PlaybookVersion](t)(f.svc.ListPlaybookVersions(f.reader, v0.ID))
	ignore := cmpopts.IgnoreFields(backend.Playbook{}, "CreatedAt", "UpdatedAt", "OwnerID") // a snapshot is the content, not who owns it
	if len(vs) != 2 || vs[0].Version != 2 || vs[1].Version != 1 {
		t.Fatalf("versions = %+v, want 2 then 1", vs)
	}
	if diff := cmp.Diff(v0.Playbook, vs[1].Snapshot, ignore); diff != "" || vs[1].Actor != backend.ActorAgent {
		t.Errorf("version 1 = actor %q, snapshot (-want +got):\n%s", vs[1].Actor, diff)
	}
	if diff := cmp.Diff(v1.Playbook, vs[0].Snapshot, ignore); diff != "" || vs[0].Actor != backend.ActorUser {
		t.Errorf("version 2 = actor %q, snapshot (-want +got):\n%s", vs[0].Actor, diff)
	}
	current := coreMust[backend.Playbook](t)(f.svc.GetPlaybook(f.reader, v0.ID))
	restored := coreMust[core.PlaybookResult](t)(f.svc.RestorePlaybookVersion(f.agent, v0.ID, 1))
	if diff := cmp.Diff(v0.Playbook, restored.Playbook, ignore); diff != "" {
		t.Errorf("restored (-want +got):\n%s", diff)
	}
	vs = coreMust[[]backend.PlaybookVersion](t)(f.svc.ListPlaybookVersions(f.reader, v0.ID))
	if len(vs) != 3 {
		t.Fatalf("after restore: %d versions, want 3", len(vs))
	}
	if diff := cmp.Diff(current, vs[0].Snapshot, ignore); diff != "" {
		t.Errorf("restore did not snapshot the current version first (-want +got):\n%s", diff)
	}
	_, err = f.svc.RestorePlaybookVersion(f.agent, v0.ID, 9)
	e := wantCode(t, err, backend.CodeNotFound)
	if !strings.Contains(e.Message, "1, 2, 3") && !strings.Contains(e.Message, "3, 2, 1") {
		t.Errorf("missing-version message %q does not list the versions", e.Message)
	}
	_, err = f.svc.RestorePlaybookVersion(f.reader, v0.ID, 1)
	wantCode(t, err, backend.CodeForbidden)
}

func TestPlaybookTriggerConflicts(t *testing.T) {
	f := newCoreFixture(t)
	d := f.deck(t, "D")
	a := f.playbook(t, backend.PlaybookInput{Title: "Deploy", Triggers: []string{"deploy the app"}})
	b := f.playbook(t, backend.PlaybookInput{Title: "Release", Triggers: []string{"cut a release"}})
	f.playbook(t, backend.PlaybookInput{Title: "Elsewhere", Triggers: []string{"deploy the app"}})
	f.link(t, d.ID, backend.CardPlaybook, a.ID)
	res := f.link(t, d.ID, backend.CardPlaybook, b.ID)
	if len(res.Warnings) != 0 {
		t.Errorf("unexpected warnings linking b: %v", res.Warnings)
	}
	got := coreMust[core.PlaybookResult](t)(f.svc.UpdatePlaybook(f.agent, b.ID, core.PlaybookPatch{
		Triggers: ptr([]string{"cut a release", "  Deploy   app "})}))
	if len(got.Warnings) != 1 || got.Warnings[0].Code != "TRIGGER_CONFLICT" ||
		!cmp.Equal(got.Warnings[0].Playbooks, []string{a.ID}) {
		t.Fatalf("warnings = %+v, want one conflict with %s (not with the playbook off the deck)", got.Warnings, a.ID)
	}
	if diff := cmp.Diff([]string{"cut a release", "Deploy app"}, got.Triggers); diff != "" {
		t.Errorf("cleaned triggers (-want +got):\n%s", diff)
	}
	c := f.playbook(t, backend.PlaybookInput{Title: "Hotfix", Triggers: []string{"deploy"}})
	res = f.link(t, d.ID, backend.CardPlaybook, c.ID)
	if len(res.Warnings) != 2 {
		t.Errorf("linking a conflicting playbook: warnings %+v, want 2", res.Warnings)
	}
}

func TestDependencyRules(t *testing.T) {
	f := newCoreFixture(t)
	cred := f.credential(t, "Stripe", "v")
	svc := f.service(t, "Linear")
	d, other := f.deck(t, "D"), f.deck(t, "Other")
	p := f.playbook(t, backend.PlaybookInput{Title: "Refunds", Body: "cred_stripe then Linear"})
	for _, deck := range []string{d.ID, other.ID} {
		f.link(t, deck, backend.CardService, svc.ID)
		f.link(t, deck, backend.CardCredential, cred.ID)
	}
	f.link(t, d.ID, backend.CardPlaybook, p.ID)

	deps := coreMust[[]backend.PlaybookSummary](t)(f.svc.Dependents(f.reader, backend.CardCredential, "Stripe"))
	if len(deps) != 1 || deps[0].ID != p.ID {
		t.Errorf("dependents = %+v", deps)
	}
	for _, tt := range []struct {
		name string
		del  func() error
	}{
		{"credential", func() error { _, err := f.svc.DeleteCredential(f.admin, cred.ID); return err }},
		{"service", func() error { return f.svc.DeleteService(f.admin, "linear") }},
	} {
		t.Run("delete "+tt.name, func(t *testing.T) {
			e := wantCode(t, tt.del(), backend.CodePlaybookDependency)
			want := []map[string]string{{"id": p.ID, "title": "Refunds"}}
			if diff := cmp.Diff(want, e.Details["playbooks"]); diff != "" || !strings.Contains(e.Message, "Refunds") {
				t.Errorf("message %q, details (-want +got):\n%s", e.Message, diff)
			}
		})
	}
	res := coreMust[core.CardsResult](t)(f.svc.UnlinkCard(f.agent, core.CardRef{Deck: d.ID, CardType: backend.CardService, CardID: svc.ID}))
	if len(res.Warnings) != 1 || res.Warnings[0].Code != "PLAYBOOK_DEPENDENCY" ||
		!cmp.Equal(res.Warnings[0].Playbooks, []string{p.ID}) || !strings.Contains(res.Warnings[0].Message, "Refunds") {
		t.Errorf("unlink warnings = %+v", res.Warnings)
	}
	res = coreMust[core.CardsResult](t)(f.svc.UnlinkCard(f.agent, core.CardRef{Deck: other.ID, CardType: backend.CardCredential, CardID: cred.ID}))
	if len(res.Warnings) != 0 {
		t.Errorf("unlink on a deck without the playbook warned: %+v", res.Warnings)
	}
	coreMust[core.PlaybookResult](t)(f.svc.UpdatePlaybook(f.admin, p.ID, core.PlaybookPatch{
		Body: ptr("nothing"), DependsOnCredentialIDs: ptr([]string{}), DependsOnServiceIDs: ptr([]string{}),
	}))
	if _, err := f.svc.DeleteCredential(f.admin, cred.ID); err != nil {
		t.Errorf("delete after dropping the dependency: %v", err)
	}
	if err := f.svc.DeleteService(f.admin, svc.ID); err != nil {
		t.Errorf("delete after dropping the dependency: %v", err)
	}
	if !f.ds.forgotten(svc.ID) {
		t.Errorf("deleted service not forgotten by the proxy")
	}
}
