package postgres_test

import (
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/agent-deck/agent-deck/backend"
	"github.com/agent-deck/agent-deck/backend/postgres/pgtest"
)

func TestServiceRoundTrip(t *testing.T) {
	t.Parallel()
	st := pgtest.NewStore(t)
	cred := newCredential(t, st, "cred_gh", "GitHub")
	in := backend.ServiceRecord{
		ServiceCard: backend.ServiceCard{
			Name: "Local Tools", Type: backend.ServiceLocal, Description: "tools on this machine",
			CredentialID: cred.ID, LocalCommand: "/usr/bin/tool", LocalArgs: []string{"--stdio", "-v"},
			LocalWorkingDir: "/tmp", DisabledTools: []string{"rm"}, TimeoutSeconds: 30,
		},
		PlainHeaders:  map[string]string{"X-Team": "core"},
		SealedHeaders: []byte{1, 2, 3},
		SealedEnv:     []byte{4, 5, 6},
	}
	created := in
	mustOK(t, st.CreateService(ctx, &created))
	if created.ID == "" || created.CreatedAt.IsZero() || created.Transport != backend.TransportAuto ||
		created.Health.Status != backend.HealthUnknown {
		t.Fatalf("defaults not filled: %+v", created)
	}
	got, err := st.GetService(ctx, "local tools")
	mustOK(t, err)
	if diff := cmp.Diff(created, got, cmpopts.EquateApproxTime(time.Millisecond)); diff != "" {
		t.Fatalf("GetService (-created +got):\n%s", diff)
	}

	got.Name, got.URL, got.Type, got.LocalCommand = "Remote", "https://example.com/mcp", backend.ServiceRemote, ""
	got.Transport, got.CredentialID, got.SealedEnv, got.DisabledTools = backend.TransportSSE, "", nil, nil
	mustOK(t, st.UpdateService(ctx, &got))
	again, err := st.GetService(ctx, got.ID)
	mustOK(t, err)
	if again.Name != "Remote" || again.CredentialID != "" || again.SealedEnv != nil ||
		again.Transport != backend.TransportSSE || len(again.DisabledTools) != 0 || again.DisabledTools == nil {
		t.Fatalf("update not applied: %+v", again)
	}
}

func TestServiceConstraints(t *testing.T) {
	t.Parallel()
	st := pgtest.NewStore(t)
	newService(t, st, "GitHub")
	remote := func(mut func(*backend.ServiceRecord)) *backend.ServiceRecord {
		s := &backend.ServiceRecord{ServiceCard: backend.ServiceCard{Name: "x", Type: backend.ServiceRemote,
			URL: "http://h/mcp"}}
		mut(s)
		return s
	}
	tests := []struct {
		name  string
		svc   *backend.ServiceRecord
		code  backend.Code
		field string
	}{
		{"name taken in another case", remote(func(s *backend.ServiceRecord) { s.Name = "GITHUB" }), backend.CodeConflict, "name"},
		{"unknown type", remote(func(s *backend.ServiceRecord) { s.Type = "ftp" }), backend.CodeInvalidArgument, "type"},
		{"unknown transport", remote(func(s *backend.ServiceRecord) { s.Transport = "ws" }), backend.CodeInvalidArgument, "transport"},
		{"remote without url", remote(func(s *backend.ServiceRecord) { s.URL = "" }), backend.CodeInvalidArgument, "url"},
		{"local without command", remote(func(s *backend.ServiceRecord) { s.Type = backend.ServiceLocal }), backend.CodeInvalidArgument, "local_command"},
		{"negative timeout", remote(func(s *backend.ServiceRecord) { s.TimeoutSeconds = -1 }), backend.CodeInvalidArgument, "timeout_seconds"},
		{"unknown credential", remote(func(s *backend.ServiceRecord) { s.CredentialID = "cred_nope" }), backend.CodeNotFound, "credential_id"},
		{"malformed id", remote(func(s *backend.ServiceRecord) { s.ID = "not-a-uuid" }), backend.CodeInvalidArgument, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			wantCode(t, st.CreateService(ctx, tt.svc), tt.code, tt.field)
		})
	}
	list, err := st.ListServices(ctx)
	mustOK(t, err)
	if len(list) != 1 {
		t.Fatalf("failed creates left rows: %+v", list)
	}
}

func TestServiceHealth(t *testing.T) {
	t.Parallel()
	st := pgtest.NewStore(t)
	svc := newService(t, st, "svc")
	ok := time.Now().Add(-time.Minute).Truncate(time.Microsecond)
	mustOK(t, st.UpdateServiceHealth(ctx, svc.ID, backend.Health{Status: backend.HealthHealthy, LastSuccessAt: &ok, LastCheckedAt: &ok}))
	later := ok.Add(30 * time.Second)
	mustOK(t, st.UpdateServiceHealth(ctx, svc.ID, backend.Health{Status: backend.HealthUnhealthy, LastError: "refused", LastCheckedAt: &later}))
	got, err := st.GetService(ctx, svc.ID)
	mustOK(t, err)
	if got.Health.Status != backend.HealthUnhealthy || got.Health.LastError != "refused" ||
		got.Health.LastSuccessAt == nil || !got.Health.LastSuccessAt.Equal(ok) || !got.Health.LastCheckedAt.Equal(later) {
		t.Fatalf("health = %+v", got.Health)
	}
	wantCode(t, st.UpdateServiceHealth(ctx, svc.ID, backend.Health{Status: "sleepy"}), backend.CodeInvalidArgument, "health_status")
	wantCode(t, st.UpdateServiceHealth(ctx, "00000000-0000-0000-0000-000000000000", backend.Health{}), backend.CodeNotFound, "")
}

// TestServiceTalksBack: once marked, a service is known to talk back; marking again is harmless.
func TestServiceTalksBack(t *testing.T) {
	t.Parallel()
	st := pgtest.NewStore(t)
	svc := newService(t, st, "svc")
	if got, err := st.GetService(ctx, svc.ID); err != nil || got.TalksBack {
		t.Fatalf("a new service talks back: %v %v", got.TalksBack, err)
	}
	mustOK(t, st.MarkServiceTalksBack(ctx, svc.ID))
	mustOK(t, st.MarkServiceTalksBack(ctx, svc.ID))
	got, err := st.GetService(ctx, svc.ID)
	mustOK(t, err)
	if !got.TalksBack {
		t.Error("the mark did not stay")
	}
	wantCode(t, st.MarkServiceTalksBack(ctx, "not-a-service"), backend.CodeNotFound, "")
}

func TestDeletingCredentialUnlinksServices(t *testing.T) {
	t.Parallel()
	st := pgtest.NewStore(t)
	cred := newCredential(t, st, "cred_k", "K")
	svc := newService(t, st, "svc")
	svc.CredentialID = cred.ID
	mustOK(t, st.UpdateService(ctx, &svc))
	mustOK(t, st.DeleteCredential(ctx, cred.ID))
	got, err := st.GetService(ctx, svc.ID)
	mustOK(t, err)
	if got.CredentialID != "" {
		t.Fatalf("credential_id = %q after the credential was deleted", got.CredentialID)
	}
}
