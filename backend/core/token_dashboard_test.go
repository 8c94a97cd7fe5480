package core_test

import (
	"context"
	"sync"
	"testing"
	"time"

	"github.com/agent-deck/agent-deck/backend"
	"github.com/agent-deck/agent-deck/backend/core"
	"github.com/agent-deck/agent-deck/backend/postgres/pgtest"
)

// testClock is a clock the test moves by hand.
type testClock struct {
	mu  sync.Mutex
	now time.Time
}

func (c *testClock) Now() time.Time { c.mu.Lock(); defer c.mu.Unlock(); return c.now }
func (c *testClock) Add(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.now = c.now.Add(d)
}

// TestDashboardSessionRules: a sign-in code needs an admin, works once and only before it
// expires; the session it opens is an admin session that expires, is listed with the tokens,
// works only as the dashboard cookie, and stops working when revoked.
func TestDashboardSessionRules(t *testing.T) {
	clock := &testClock{now: time.Now().UTC().Truncate(time.Second)}
	svc := core.NewHub(pgtest.NewStore(t), &fakeDownstream{status: map[string]backend.DownstreamStatus{}},
		newTestSealer(t), clock.Now, nil, core.Config{})
	admin := backend.WithActor(context.Background(), backend.Actor{Scope: backend.ScopeAdmin, Kind: backend.ActorUser})
	agent := backend.WithActor(context.Background(), backend.Actor{Scope: backend.ScopeAgent, Kind: backend.ActorAgent})
	anon := context.Background()

	_, err := svc.CreateSignInCode(agent)
	wantCode(t, err, backend.CodeForbidden)

	code := coreMust[core.SignInCode](t)(svc.CreateSignInCode(admin))
	s := coreMust[core.DashboardSession](t)(svc.StartDashboardSession(anon, code.Code))
	if s.Scope != backend.ScopeAdmin || s.Kind != backend.TokenKindDashboard || s.ExpiresAt == nil ||
		!s.ExpiresAt.Equal(clock.Now().Add(core.DashboardSessionTTL)) || s.CSRF != core.DashboardCSRF(s.Secret) {
		t.Fatalf("session %+v", s)
	}
	_, err = svc.StartDashboardSession(anon, code.Code)
	wantCode(t, err, backend.CodeUnauthenticated)

	late := coreMust[core.SignInCode](t)(svc.CreateSignInCode(admin))
	clock.Add(core.SignInCodeTTL)
	_, err = svc.StartDashboardSession(anon, late.Code)
	wantCode(t, err, backend.CodeUnauthenticated)

	actor := coreMust[backend.Actor](t)(svc.AuthenticateDashboard(anon, s.Secret))
	if actor.Scope != backend.ScopeAdmin || actor.TokenID != s.ID {
		t.Errorf("actor %+v", actor)
	}
	_, err = svc.Authenticate(anon, s.Secret, backend.ActorUser)
	wantCode(t, err, backend.CodeUnauthenticated)
	api := coreMust[core.NewToken](t)(svc.CreateToken(admin, core.TokenInput{Name: "cli", Scope: backend.ScopeAdmin}))
	_, err = svc.AuthenticateDashboard(anon, api.Secret)
	wantCode(t, err, backend.CodeUnauthenticated)

	listed := false
	for _, tok := range coreMust[[]backend.Token](t)(svc.ListTokens(admin)) {
		listed = listed || tok.ID == s.ID && tok.Kind == backend.TokenKindDashboard && tok.ExpiresAt != nil
	}
	if !listed {
		t.Error("the dashboard session is not listed with the tokens")
	}

	clock.Add(core.DashboardSessionTTL)
	_, err = svc.AuthenticateDashboard(anon, s.Secret)
	wantCode(t, err, backend.CodeUnauthenticated)

	code = coreMust[core.SignInCode](t)(svc.CreateSignInCode(admin))
	s = coreMust[core.DashboardSession](t)(svc.StartDashboardSession(anon, code.Code))
	if err := svc.RevokeToken(admin, s.ID); err != nil {
		t.Fatal(err)
	}
	_, err = svc.AuthenticateDashboard(anon, s.Secret)
	wantCode(t, err, backend.CodeUnauthenticated)

	if err := core.CheckDashboardCSRF(s.Secret, s.CSRF); err != nil {
		t.Errorf("the session's own CSRF token is refused: %v", err)
	}
	for _, bad := range []string{"", core.DashboardCSRF("adk_other"), s.Secret} {
		wantCode(t, core.CheckDashboardCSRF(s.Secret, bad), backend.CodeForbidden)
	}
}
