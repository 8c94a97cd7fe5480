package core_test

import (
	"context"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/agent-deck/agent-deck/backend"
	"github.com/agent-deck/agent-deck/backend/core"
	"github.com/agent-deck/agent-deck/backend/secret"
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

// TestServeAdminTokenOncePerCluster holds issue 27 item 17: replicas that share the database and
// the key get the same serve admin token, made once even when they start at the same moment; a
// revoked one is not brought back (the next generation replaces it); another key gets another.
func TestServeAdminTokenOncePerCluster(t *testing.T) {
	f := newCoreFixture(t)
	replicas := []*core.Hub{f.svc}
	for range 3 {
		sealer, err := secret.NewSealer(f.key)
		if err != nil {
			t.Fatal(err)
		}
		replicas = append(replicas, core.NewHub(f.store, f.ds, sealer, nil, nil, core.Config{}))
	}
	secrets := make([]string, len(replicas))
	var wg sync.WaitGroup
	for i, h := range replicas {
		wg.Go(func() {
			s, err := h.ServeAdminToken(context.Background())
			if err != nil {
				t.Error(err)
			}
			secrets[i] = s
		})
	}
	wg.Wait()
	serveTokens := func() (live, revoked int) {
		list, err := f.svc.ListTokens(f.admin)
		if err != nil {
			t.Fatal(err)
		}
		for _, tk := range list {
			switch {
			case tk.Name != core.ServeAdminTokenName:
			case tk.RevokedAt == nil:
				live++
			default:
				revoked++
			}
		}
		return live, revoked
	}
	for _, s := range secrets[1:] {
		if s != secrets[0] || !strings.HasPrefix(s, backend.TokenPrefix) {
			t.Fatalf("replicas got different serve tokens: %q", secrets)
		}
	}
	if live, _ := serveTokens(); live != 1 {
		t.Fatalf("%d live serve admin tokens, want 1", live)
	}
	a, err := f.svc.Authenticate(context.Background(), secrets[0], backend.ActorUser)
	if err != nil || a.Scope != backend.ScopeAdmin {
		t.Fatalf("the serve token: %+v %v", a, err)
	}
	if err := f.svc.RevokeToken(f.admin, a.TokenID); err != nil {
		t.Fatal(err)
	}
	next, err := replicas[2].ServeAdminToken(context.Background())
	if err != nil || next == secrets[0] {
		t.Fatalf("after a revoke: %q, %v; want a new token", next, err)
	}
	if again, _ := replicas[3].ServeAdminToken(context.Background()); again != next {
		t.Errorf("the next replica got %q, want %q", again, next)
	}
	if live, revoked := serveTokens(); live != 1 || revoked != 1 {
		t.Errorf("%d live and %d revoked serve tokens, want 1 and 1", live, revoked)
	}
	_, other := newTestKey(t)
	elsewhere, err := core.NewHub(f.store, f.ds, other, nil, nil, core.Config{}).ServeAdminToken(context.Background())
	if err != nil || elsewhere == next {
		t.Errorf("another key derived %q (%v), the same as this key's", elsewhere, err)
	}
}
