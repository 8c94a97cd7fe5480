package tests

import (
	"context"
	"log/slog"
	"testing"
	"time"

	"github.com/agent-deck/agent-deck/backend/postgres/pgtest"
	"github.com/agent-deck/agent-deck/cli"
	"github.com/agent-deck/agent-deck/tests/resttest"
)

// restDeck is a whole deck server started by cli.Start on a random port, driven over REST; api
// sends the admin token with Must and keeps every answer body, for secret scans.
type restDeck struct {
	srv  *cli.Server
	logs *syncBuffer
	api  *resttest.Client
}

func startRESTDeck(t testing.TB) *restDeck {
	t.Helper()
	logs := &syncBuffer{}
	srv, err := cli.Start(context.Background(), cli.ServeConfig{
		Home:        t.TempDir(),
		Addr:        "127.0.0.1:0",
		DatabaseURL: pgtest.NewDB(t),
		Profile:     "standard",
		Logger:      slog.New(slog.NewJSONHandler(logs, &slog.HandlerOptions{Level: slog.LevelDebug})),
	})
	if err != nil {
		t.Fatalf("cli.Start: %v", err)
	}
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 15*time.Second)
		defer cancel()
		if err := srv.Close(ctx); err != nil {
			t.Errorf("closing the deck: %v", err)
		}
	})
	return &restDeck{srv: srv, logs: logs, api: resttest.New(srv.URL(), srv.AdminToken())}
}

// adminREST sends one REST request to srv with the admin token, decodes a JSON answer into out
// unless out is nil, and returns the status.
func adminREST(t *testing.T, srv *cli.Server, method, path string, body, out any) int {
	t.Helper()
	a := resttest.New(srv.URL(), srv.AdminToken()).Do(t, srv.AdminToken(), method, path, body)
	if out != nil && len(a.Body) > 0 {
		a.Decode(t, out)
	}
	return a.Status
}
