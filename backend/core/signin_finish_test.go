package core_test

import (
	"bytes"
	"context"
	"errors"
	"log/slog"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/agent-deck/agent-deck/backend"
	"github.com/agent-deck/agent-deck/backend/core"
	"github.com/agent-deck/agent-deck/backend/postgres/pgtest"
)

// refusingFlow starts sign-ins and refuses every code.
type refusingFlow struct{ backend.OAuthFlow }

func (refusingFlow) Begin(_ context.Context, in backend.OAuthBegin) (backend.OAuthPending, error) {
	return backend.OAuthPending{ServiceID: in.ServiceID, State: "state-" + in.ServiceID, AuthURL: "https://as.example/authorize"}, nil
}

func (refusingFlow) Exchange(context.Context, backend.OAuthService, backend.OAuthPending, string) (backend.OAuthToken, error) {
	return backend.OAuthToken{}, errors.New("invalid_grant")
}

// failingSignInWrites is a Store whose sign-in writes fail once armed.
type failingSignInWrites struct {
	backend.Store
	mu    sync.Mutex
	armed bool
}

func (f *failingSignInWrites) PutOAuth(ctx context.Context, r *backend.OAuthRecord) error {
	f.mu.Lock()
	armed := f.armed
	f.mu.Unlock()
	if armed {
		return backend.Errorf(backend.CodeUnavailable, "database unavailable")
	}
	return f.Store.PutOAuth(ctx, r)
}

// TestFinishOAuthLogsAFailedRecord: when a sign-in ends in an error and recording that error
// fails too, the person still gets the sign-in's error and the log says the record was lost.
func TestFinishOAuthLogsAFailedRecord(t *testing.T) {
	for _, tc := range []struct{ name, code, oauthError, want string }{
		{"consent refused", "", "access_denied", "was not allowed"},
		{"code exchange failed", "a-code", "", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			st := &failingSignInWrites{Store: pgtest.NewStore(t)}
			var logs bytes.Buffer
			hub := core.NewHub(st, nil, newTestSealer(t), nil, slog.New(slog.NewTextHandler(&logs, nil)),
				core.Config{ServiceOAuth: refusingFlow{}})
			admin := backend.WithActor(context.Background(), backend.SystemActor)
			svc := coreMust[backend.ServiceCard](t)(hub.CreateService(admin, core.ServiceInput{
				Name: "remote", Type: backend.ServiceRemote, URL: "https://mcp.example/mcp"}))
			coreMust[core.OAuthConnect](t)(hub.ConnectService(admin, svc.ID, "http://127.0.0.1:1110/oauth/callback", core.OAuthConnectInput{}))
			st.mu.Lock()
			st.armed = true
			st.mu.Unlock()
			_, err := hub.FinishOAuth(admin, "state-"+svc.ID, tc.code, tc.oauthError)
			if backend.ErrorCode(err) != backend.CodeDownstreamAuth || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("FinishOAuth = %v, want the sign-in's own DOWNSTREAM_AUTH", err)
			}
			if !strings.Contains(logs.String(), "recording a failed sign-in failed") {
				t.Errorf("the lost record was not logged:\n%s", logs.String())
			}
		})
	}
}

// acceptingFlow starts sign-ins and exchanges every code for the same token.
type acceptingFlow struct{ refusingFlow }

func (acceptingFlow) Exchange(context.Context, backend.OAuthService, backend.OAuthPending, string) (backend.OAuthToken, error) {
	return backend.OAuthToken{AccessToken: "new-access-token", TokenType: "Bearer", Scope: "mcp:read"}, nil
}

// signInChecker is a downstream whose Check hands what it was sent to seen, then reports the
// service healthy.
type signInChecker struct {
	fakeDownstream
	seen func(backend.Target)
}

func (c *signInChecker) Check(_ context.Context, t backend.Target) backend.Health {
	c.seen(t)
	now := time.Now()
	h := backend.Health{Status: backend.HealthHealthy, LastCheckedAt: &now, LastSuccessAt: &now}
	c.mu.Lock()
	c.status = map[string]backend.DownstreamStatus{t.ServiceID: {Health: h}}
	c.mu.Unlock()
	return h
}

// TestFinishOAuthChecksBeforeItEnds: the sign-in reaches the service with its new token while
// the sign-in still reads as pending, and its health is stored by the time it no longer does.
// The dashboard draws the service once when the sign-in stops being pending: a check that ran
// after that left the page saying the service needs a sign-in (now and then, on a busy machine).
func TestFinishOAuthChecksBeforeItEnds(t *testing.T) {
	st := pgtest.NewStore(t)
	admin := backend.WithActor(context.Background(), backend.SystemActor)
	var hub *core.Hub
	var sent string
	var during core.OAuthStatus
	ds := &signInChecker{}
	ds.seen = func(tg backend.Target) {
		sent = tg.Headers["Authorization"]
		during = coreMust[core.OAuthStatus](t)(hub.ServiceOAuthStatus(admin, tg.ServiceID))
	}
	hub = core.NewHub(st, ds, newTestSealer(t), nil, nil, core.Config{ServiceOAuth: acceptingFlow{}})
	svc := coreMust[backend.ServiceCard](t)(hub.CreateService(admin, core.ServiceInput{
		Name: "remote", Type: backend.ServiceRemote, URL: "https://mcp.example/mcp"}))
	coreMust[core.OAuthConnect](t)(hub.ConnectService(admin, svc.ID, "http://127.0.0.1:1110/oauth/callback", core.OAuthConnectInput{}))
	coreMust[core.OAuthConnect](t)(hub.FinishOAuth(admin, "state-"+svc.ID, "a-code", ""))

	if sent != "Bearer new-access-token" {
		t.Errorf("the check after the sign-in sent Authorization %q, want the new token", sent)
	}
	if !during.Pending {
		t.Errorf("while the service was checked the sign-in read %+v, want still pending", during)
	}
	after := coreMust[core.OAuthStatus](t)(hub.ServiceOAuthStatus(admin, svc.ID))
	if after.Pending || after.State != backend.OAuthStateConnected {
		t.Errorf("after the callback the sign-in reads %+v, want connected", after)
	}
	rec, err := st.GetService(context.Background(), svc.ID)
	if err != nil {
		t.Fatal(err)
	}
	if rec.Health.Status != backend.HealthHealthy {
		t.Errorf("stored health after the sign-in is %q, want healthy", rec.Health.Status)
	}
}
