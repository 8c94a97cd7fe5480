package core_test

import (
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/agent-deck/agent-deck/backend"
	"github.com/agent-deck/agent-deck/backend/core"
)

func TestTokens(t *testing.T) {
	f := newCoreFixture(t)
	_, err := f.svc.CreateToken(f.agent, core.TokenInput{Name: "x", Scope: backend.ScopeAgent})
	wantCode(t, err, backend.CodeForbidden)
	_, err = f.svc.CreateToken(f.admin, core.TokenInput{Name: "x", Scope: "root"})
	e := wantCode(t, err, backend.CodeInvalidArgument)
	if diff := cmp.Diff([]string{"admin", "agent", "agent:read"}, e.Details["accepted"]); diff != "" {
		t.Errorf("accepted scopes (-want +got):\n%s", diff)
	}
	nt := coreMust[core.NewToken](t)(f.svc.CreateToken(f.admin, core.TokenInput{Name: "laptop", Scope: backend.ScopeAgentRead}))
	if !strings.HasPrefix(nt.Secret, "adk_") || len(nt.Secret) != 4+43 {
		t.Errorf("secret %q: want adk_ + 43 base64url characters", nt.Secret)
	}
	a := coreMust[backend.Actor](t)(f.svc.Authenticate(f.anon, nt.Secret, backend.ActorAgent))
	// A token made without a person acts for the first admin.
	want := backend.Actor{TokenID: nt.ID, Scope: backend.ScopeAgentRead, Kind: backend.ActorAgent,
		PersonID: nt.PersonID, PersonName: "admin", Role: backend.RoleAdmin}
	if diff := cmp.Diff(want, a); diff != "" || nt.PersonID == "" {
		t.Errorf("actor (-want +got):\n%s", diff)
	}
	list := coreMust[[]backend.Token](t)(f.svc.ListTokens(f.admin))
	if len(list) != 1 || list[0].LastUsedAt == nil {
		t.Errorf("tokens after use = %+v, want last_used_at set", list)
	}
	noCanary(t, "token list", list, nt.Secret)
	_, err = f.svc.Authenticate(f.anon, nt.Secret+"x", backend.ActorUser)
	wantCode(t, err, backend.CodeUnauthenticated)
	_, err = f.svc.Authenticate(f.anon, "", backend.ActorUser)
	wantCode(t, err, backend.CodeUnauthenticated)
	wantCode(t, f.svc.RevokeToken(f.agent, nt.ID), backend.CodeForbidden)
	if err := f.svc.RevokeToken(f.admin, nt.ID); err != nil {
		t.Fatal(err)
	}
	_, err = f.svc.Authenticate(f.anon, nt.Secret, backend.ActorAgent)
	e = wantCode(t, err, backend.CodeUnauthenticated)
	if !strings.Contains(e.Message, "revoked") {
		t.Errorf("revoked message = %q", e.Message)
	}
	wantCode(t, f.svc.RevokeToken(f.admin, "00000000-0000-4000-8000-000000000000"), backend.CodeNotFound)
}

func TestTokenTouchIsThrottled(t *testing.T) {
	st := newCoreFixture(t).store
	now := time.Date(2030, 1, 1, 12, 0, 0, 0, time.UTC)
	svc := core.NewHub(st, nil, newTestSealer(t), func() time.Time { return now }, nil, core.Config{})
	admin := backend.WithActor(t.Context(), backend.SystemActor)
	nt := coreMust[core.NewToken](t)(svc.CreateToken(admin, core.TokenInput{Name: "n", Scope: backend.ScopeAdmin}))
	lastUsed := func() time.Time {
		t.Helper()
		for _, tok := range coreMust[[]backend.Token](t)(svc.ListTokens(admin)) {
			if tok.ID == nt.ID && tok.LastUsedAt != nil {
				return tok.LastUsedAt.UTC()
			}
		}
		return time.Time{}
	}
	coreMust[backend.Actor](t)(svc.Authenticate(t.Context(), nt.Secret, backend.ActorUser))
	first := lastUsed()
	now = now.Add(30 * time.Second)
	coreMust[backend.Actor](t)(svc.Authenticate(t.Context(), nt.Secret, backend.ActorUser))
	if got := lastUsed(); !got.Equal(first) {
		t.Errorf("touched again after 30 s: %v → %v", first, got)
	}
	now = now.Add(time.Minute)
	coreMust[backend.Actor](t)(svc.Authenticate(t.Context(), nt.Secret, backend.ActorUser))
	if got := lastUsed(); !got.Equal(now) {
		t.Errorf("last used = %v, want %v", got, now)
	}
}
