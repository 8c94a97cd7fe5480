package postgres_test

import (
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/agent-deck/agent-deck/backend"
	"github.com/agent-deck/agent-deck/backend/postgres/pgtest"
)

func TestPlaybookRoundTripAndConstraints(t *testing.T) {
	t.Parallel()
	st := pgtest.NewStore(t)
	p := backend.Playbook{ID: "pb_deploy", Title: "Deploy", Body: "# Deploy", Triggers: []string{"ship it"},
		Exec: "make deploy", Skill: "ops", DependsOnCredentialIDs: []string{"cred_gh", "cred_unknown"},
		DependsOnServiceIDs: []string{"svc-1"}, ExplicitCredentialIDs: []string{"cred_gh"}, ExplicitServiceIDs: []string{}}
	mustOK(t, st.CreatePlaybook(ctx, &p))
	got, err := st.GetPlaybook(ctx, "DEPLOY")
	mustOK(t, err)
	if diff := cmp.Diff(p, got, cmpopts.EquateApproxTime(time.Millisecond)); diff != "" {
		t.Fatalf("GetPlaybook (-want +got):\n%s", diff)
	}

	tooMany := make([]string, 17)
	for i := range tooMany {
		tooMany[i] = string(rune('a' + i))
	}
	tests := []struct {
		name  string
		p     backend.Playbook
		code  backend.Code
		field string
	}{
		{"title taken in another case", backend.Playbook{ID: "pb_x", Title: "deploy"}, backend.CodeConflict, "title"},
		{"id taken", backend.Playbook{ID: "pb_deploy", Title: "Other"}, backend.CodeConflict, "id"},
		{"blank title", backend.Playbook{ID: "pb_x", Title: " "}, backend.CodeInvalidArgument, "title"},
		{"more than 16 triggers", backend.Playbook{ID: "pb_x", Title: "X", Triggers: tooMany}, backend.CodeInvalidArgument, "triggers"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			wantCode(t, st.CreatePlaybook(ctx, &tt.p), tt.code, tt.field)
		})
	}
	missing := backend.Playbook{ID: "pb_missing", Title: "M"}
	wantCode(t, st.UpdatePlaybook(ctx, &missing), backend.CodeNotFound, "")
}

func TestPlaybooksDependingOn(t *testing.T) {
	t.Parallel()
	st := pgtest.NewStore(t)
	svc := newService(t, st, "svc")
	for _, p := range []backend.Playbook{
		{ID: "pb_b", Title: "B", DependsOnCredentialIDs: []string{"cred_a"}, DependsOnServiceIDs: []string{svc.ID}},
		{ID: "pb_a", Title: "a", DependsOnCredentialIDs: []string{"cred_b", "cred_a"}},
		{ID: "pb_c", Title: "C"},
	} {
		mustOK(t, st.CreatePlaybook(ctx, &p))
	}
	tests := []struct {
		name string
		ct   backend.CardType
		id   string
		want []string
	}{
		{"credential used twice, by title", backend.CardCredential, "cred_a", []string{"pb_a", "pb_b"}},
		{"credential used once", backend.CardCredential, "cred_b", []string{"pb_a"}},
		{"service", backend.CardService, svc.ID, []string{"pb_b"}},
		{"unused", backend.CardCredential, "cred_z", []string{}},
		{"playbooks are never depended on", backend.CardPlaybook, "pb_a", []string{}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := st.PlaybooksDependingOn(ctx, tt.ct, tt.id)
			mustOK(t, err)
			ids := []string{}
			for _, p := range got {
				ids = append(ids, p.ID)
			}
			if diff := cmp.Diff(tt.want, ids); diff != "" {
				t.Fatalf("(-want +got):\n%s", diff)
			}
		})
	}
}

func TestPlaybookVersions(t *testing.T) {
	t.Parallel()
	st := pgtest.NewStore(t)
	p := newPlaybook(t, st, "pb_v", "V")
	const writers = 8
	var wg sync.WaitGroup
	errs := make([]error, writers)
	for i := range writers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			snap := p
			snap.Body = string(rune('a' + i))
			errs[i] = st.AddPlaybookVersion(ctx, &backend.PlaybookVersion{PlaybookID: p.ID, Snapshot: snap, Actor: backend.ActorAgent})
		}()
	}
	wg.Wait()
	for _, err := range errs {
		mustOK(t, err)
	}
	versions, err := st.ListPlaybookVersions(ctx, p.ID)
	mustOK(t, err)
	var numbers []int
	for _, v := range versions {
		numbers = append(numbers, v.Version)
	}
	if diff := cmp.Diff([]int{8, 7, 6, 5, 4, 3, 2, 1}, numbers); diff != "" {
		t.Fatalf("versions newest first (-want +got):\n%s", diff)
	}
	v3, err := st.GetPlaybookVersion(ctx, p.ID, 3)
	mustOK(t, err)
	if v3.Snapshot.ID != p.ID || v3.Snapshot.Title != "V" || v3.Actor != backend.ActorAgent || v3.Snapshot.Triggers == nil {
		t.Fatalf("version 3 = %+v", v3)
	}
	wantCode(t, func() error { _, err := st.GetPlaybookVersion(ctx, p.ID, 99); return err }(), backend.CodeNotFound, "version")
	wantCode(t, st.AddPlaybookVersion(ctx, &backend.PlaybookVersion{PlaybookID: "pb_none", Actor: backend.ActorUser}),
		backend.CodeNotFound, "")
	wantCode(t, st.AddPlaybookVersion(ctx, &backend.PlaybookVersion{PlaybookID: p.ID, Actor: "robot"}),
		backend.CodeInvalidArgument, "actor")

	mustOK(t, st.DeletePlaybook(ctx, p.ID))
	versions, err = st.ListPlaybookVersions(ctx, p.ID)
	mustOK(t, err)
	if len(versions) != 0 {
		t.Fatalf("versions outlived their playbook: %d", len(versions))
	}
}
