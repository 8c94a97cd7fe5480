package postgres_test

import (
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/agent-deck/agent-deck/backend"
	"github.com/agent-deck/agent-deck/backend/postgres/pgtest"
)

func TestCredentialRoundTrip(t *testing.T) {
	t.Parallel()
	st := pgtest.NewStore(t)
	c := backend.CredentialRecord{
		Credential: backend.Credential{ID: "cred_openai", Label: "OpenAI", Scheme: backend.SchemeHeader,
			HeaderName: "X-Api-Key", EnvName: "OPENAI_API_KEY", Tags: []string{"ai"}, DocsURL: "https://x"},
		SealedSecret: []byte("sealed"),
	}
	mustOK(t, st.CreateCredential(ctx, &c))
	for _, ref := range []string{"cred_openai", "openai", "OPENAI"} {
		got, err := st.GetCredential(ctx, ref)
		mustOK(t, err)
		if diff := cmp.Diff(c, got, cmpopts.EquateApproxTime(time.Millisecond)); diff != "" {
			t.Fatalf("GetCredential(%q) (-want +got):\n%s", ref, diff)
		}
	}
	c.SealedSecret, c.Scheme, c.HeaderName = []byte("rotated"), "", ""
	mustOK(t, st.UpdateCredential(ctx, &c))
	got, err := st.GetCredential(ctx, c.ID)
	mustOK(t, err)
	if string(got.SealedSecret) != "rotated" || got.Scheme != backend.SchemeBearer || !got.HasSecret {
		t.Fatalf("after update: %+v", got)
	}

	none := backend.CredentialRecord{Credential: backend.Credential{ID: "cred_none", Label: "None", EnvName: "NONE_API_KEY"}}
	mustOK(t, st.CreateCredential(ctx, &none))
	got, err = st.GetCredential(ctx, "none")
	mustOK(t, err)
	if got.HasSecret || got.Tags == nil {
		t.Fatalf("credential without a secret: %+v", got)
	}
}

func TestCredentialConstraints(t *testing.T) {
	t.Parallel()
	st := pgtest.NewStore(t)
	newCredential(t, st, "cred_gh", "GitHub")
	cred := func(id, label string, scheme backend.AuthScheme, header, env string) *backend.CredentialRecord {
		return &backend.CredentialRecord{Credential: backend.Credential{ID: id, Label: label, Scheme: scheme,
			HeaderName: header, EnvName: env}}
	}
	tests := []struct {
		name  string
		c     *backend.CredentialRecord
		code  backend.Code
		field string
	}{
		{"label taken in another case", cred("cred_x", "github", "", "", "E"), backend.CodeConflict, "label"},
		{"id taken", cred("cred_gh", "Other", "", "", "E"), backend.CodeConflict, "id"},
		{"unknown scheme", cred("cred_x", "X", "digest", "", "E"), backend.CodeInvalidArgument, "scheme"},
		{"header scheme needs a header name", cred("cred_x", "X", backend.SchemeHeader, "", "E"), backend.CodeInvalidArgument, "header_name"},
		{"env name required", cred("cred_x", "X", "", "", ""), backend.CodeInvalidArgument, "env_name"},
		{"id required", cred("", "X", "", "", "E"), backend.CodeInvalidArgument, "id"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			wantCode(t, st.CreateCredential(ctx, tt.c), tt.code, tt.field)
		})
	}
	wantCode(t, st.UpdateCredential(ctx, cred("cred_missing", "M", "", "", "E")), backend.CodeNotFound, "")
}
