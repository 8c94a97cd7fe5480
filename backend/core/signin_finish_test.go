package core_test

import (
	"bytes"
	"context"
	"errors"
	"log/slog"
	"strings"
	"sync"
	"testing"

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
