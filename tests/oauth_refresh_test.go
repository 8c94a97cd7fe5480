package tests

import (
	"context"
	"encoding/json"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/agent-deck/agent-deck/backend"
	"github.com/agent-deck/agent-deck/backend/core"
	"github.com/agent-deck/agent-deck/backend/postgres/pgtest"
	"github.com/agent-deck/agent-deck/backend/secret"
	"github.com/agent-deck/agent-deck/proxy"
	"github.com/agent-deck/agent-deck/tests/oauthas"
)

// oauthCore is a Service on a fresh database with the real proxy and OAuth flow.
type oauthCore struct {
	svc   *core.Hub
	store backend.Store
	admin context.Context
}

func newOAuthCore(t *testing.T, store backend.Store, sealer backend.Sealer) oauthCore {
	t.Helper()
	px := proxy.New(proxy.Options{Home: t.TempDir()})
	t.Cleanup(func() { _ = px.Close(context.Background()) })
	svc := core.NewHub(store, px, sealer, nil, nil, core.Config{ServiceOAuth: proxy.NewOAuthFlow(proxy.Network{})})
	admin := backend.WithActor(context.Background(), backend.Actor{Scope: backend.ScopeAdmin, Kind: backend.ActorUser})
	return oauthCore{svc: svc, store: store, admin: admin}
}

func newOAuthSealer(t *testing.T) backend.Sealer {
	t.Helper()
	key, err := secret.GenerateKey()
	if err != nil {
		t.Fatal(err)
	}
	sealer, err := secret.NewSealer(key)
	if err != nil {
		t.Fatal(err)
	}
	return sealer
}

// connect registers the service and signs in, following the consent as a browser would and
// handing the redirect to FinishOAuth as the callback route does.
func (c oauthCore) connect(t *testing.T, as *oauthas.Server, name string) backend.ServiceCard {
	t.Helper()
	card, err := c.svc.CreateService(c.admin, core.ServiceInput{Name: name, Type: backend.ServiceRemote, URL: as.MCPURL()})
	if err != nil {
		t.Fatalf("create service: %v", err)
	}
	started, err := c.svc.ConnectService(c.admin, name, "http://127.0.0.1:1/oauth/callback", core.OAuthConnectInput{})
	if err != nil {
		t.Fatalf("ConnectService: %v", err)
	}
	code, state := consentCode(t, started.AuthURL)
	if _, err := c.svc.FinishOAuth(context.Background(), state, code, ""); err != nil {
		t.Fatalf("FinishOAuth: %v", err)
	}
	return card
}

// TestOAuthServiceSignIn: a service that needs sign-in refuses calls with a teaching
// DOWNSTREAM_AUTH until connected, then works; its state shows without any token; disconnect
// revokes and forgets.
func TestOAuthServiceSignIn(t *testing.T) {
	as := newOAuthService(t, oauthas.Options{Scope: "mcp:read"})
	c := newOAuthCore(t, pgtest.NewStore(t), newOAuthSealer(t))
	if _, err := c.svc.FinishOAuth(context.Background(), "forged-state", "code", ""); backend.ErrorCode(err) != backend.CodeInvalidArgument {
		t.Fatalf("FinishOAuth with an unknown state: %v, want INVALID_ARGUMENT", err)
	}
	c.connect(t, as, "notes")
	st, err := c.svc.ServiceOAuthStatus(c.admin, "notes")
	if err != nil {
		t.Fatal(err)
	}
	if st.State != backend.OAuthStateConnected || st.ExpiresAt == nil || strings.Join(st.Scopes, " ") != "mcp:read" {
		t.Fatalf("status %+v, want connected with expiry and scope mcp:read", st)
	}
	h, err := c.svc.CheckService(c.admin, "notes", "")
	if err != nil || h.Status != backend.HealthHealthy {
		t.Fatalf("check after sign-in: %+v %v, want healthy", h, err)
	}
	raw, _ := json.Marshal(st)
	if strings.Contains(string(raw), "token\"") {
		t.Errorf("status shows a token: %s", raw)
	}
	if err := c.svc.DisconnectService(c.admin, "notes"); err != nil {
		t.Fatalf("DisconnectService: %v", err)
	}
	if as.Counts().Revocations == 0 {
		t.Errorf("disconnect revoked nothing")
	}
	if st, _ := c.svc.ServiceOAuthStatus(c.admin, "notes"); st.State != backend.OAuthStateNone {
		t.Errorf("state after disconnect %q, want none", st.State)
	}
}

// TestOAuthConcurrentRefresh: calls that find the token about to expire at once refresh it once
// (row lock), the others use the result; no refresh token is sent twice, and every call gets in.
func TestOAuthConcurrentRefresh(t *testing.T) {
	as := newOAuthService(t, oauthas.Options{TokenTTL: 30 * time.Second, // inside the refresh margin
		RefreshDelay: 300 * time.Millisecond})
	store, sealer := pgtest.NewStore(t), newOAuthSealer(t)
	c := newOAuthCore(t, store, sealer)
	c.connect(t, as, "notes")
	// The sign-in checks the service at once, which may already renew a token this short.
	before := as.Counts()
	as.SetTokenTTL(time.Hour)
	// Two replicas share the database: each has its own Service and proxy.
	replicas := []oauthCore{c, newOAuthCore(t, store, sealer)}
	var wg sync.WaitGroup
	errs := make(chan error, 8)
	for i := range 8 {
		wg.Add(1)
		go func(r oauthCore) {
			defer wg.Done()
			h, err := r.svc.CheckService(r.admin, "notes", "")
			if err == nil && h.Status != backend.HealthHealthy {
				err = backend.Errorf(backend.CodeDownstreamAuth, "health %s: %s", h.Status, h.LastError)
			}
			errs <- err
		}(replicas[i%2])
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		if err != nil {
			t.Errorf("check during the refresh: %v", err)
		}
	}
	if got := as.Counts(); got.Refreshes-before.Refreshes != 1 || got.RefreshReuse != 0 {
		t.Errorf("refreshes %d, reused refresh tokens %d; want 1 and 0", got.Refreshes-before.Refreshes, got.RefreshReuse)
	}
}

// TestOAuthRefreshOnRefusal: a service that stops accepting a token before its expiry (revoked
// or expired early) gets a refreshed one, and the call goes through once more, unnoticed.
func TestOAuthRefreshOnRefusal(t *testing.T) {
	as := newOAuthService(t, oauthas.Options{})
	c := newOAuthCore(t, pgtest.NewStore(t), newOAuthSealer(t))
	c.connect(t, as, "notes")
	call := func() (backend.CallResult, error) {
		return c.svc.CallServiceTool(c.admin, "notes", core.CallInput{ToolName: "echo", Arguments: json.RawMessage(`{"text":"hi"}`)})
	}
	if _, err := call(); err != nil {
		t.Fatalf("first call: %v", err)
	}
	as.ExpireAccessTokens()
	res, err := call()
	if err != nil {
		t.Fatalf("call after the server dropped the token: %v", err)
	}
	if raw, _ := json.Marshal(res); !strings.Contains(string(raw), "echo: hi") {
		t.Errorf("result %s", raw)
	}
	if got := as.Counts().Refreshes; got != 1 {
		t.Errorf("refreshes %d, want 1", got)
	}
}
