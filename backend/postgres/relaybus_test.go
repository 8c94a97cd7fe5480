package postgres_test

import (
	"context"
	"encoding/json"
	"sync"
	"testing"
	"time"

	"github.com/agent-deck/agent-deck/backend"
	"github.com/agent-deck/agent-deck/backend/postgres"
	"github.com/agent-deck/agent-deck/backend/postgres/pgtest"
)

// TestRelayBus: an answer left by one replica reaches the replica it names, once, whether that
// replica listened already or starts listening later; other replicas' answers stay. A session
// message reaches every listener.
func TestRelayBus(t *testing.T) {
	t.Parallel()
	url := pgtest.NewDB(t)
	open := func() *postgres.Store {
		st, err := postgres.Open(context.Background(), url)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(st.Close)
		return st
	}
	a, b := open(), open()
	post := func(replica, id string) {
		t.Helper()
		mustOK(t, a.PostRelayAnswer(ctx, backend.RelayAnswer{Replica: replica, SessionID: "s-1", RequestID: id,
			Body: json.RawMessage(`{"jsonrpc":"2.0","id":"` + id + `","result":{}}`)}))
	}
	post("b", "early") // left before b listens
	var mu sync.Mutex
	got := map[string]string{}
	lctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	b.ListenRelay(lctx, "b", func(ans backend.RelayAnswer) {
		mu.Lock()
		defer mu.Unlock()
		got[ans.RequestID] += ans.SessionID + " " + string(ans.Body) + ";"
	}, func(session string, msg json.RawMessage) {
		mu.Lock()
		defer mu.Unlock()
		got["message"] += session + " " + string(msg) + ";"
	})
	post("c", "other")
	post("b", "late")
	deadline := time.Now().Add(10 * time.Second)
	for {
		mu.Lock()
		n := len(got)
		mu.Unlock()
		if n >= 2 || time.Now().After(deadline) {
			break
		}
		time.Sleep(10 * time.Millisecond)
	}
	mustOK(t, a.PostSessionMessage(ctx, "s-2", json.RawMessage(`{"jsonrpc":"2.0","method":"notifications/message"}`)))
	for {
		mu.Lock()
		n := len(got)
		mu.Unlock()
		if n >= 3 || time.Now().After(deadline) {
			break
		}
		time.Sleep(10 * time.Millisecond)
	}
	mu.Lock()
	defer mu.Unlock()
	want := map[string]string{
		"early":   `s-1 {"jsonrpc":"2.0","id":"early","result":{}};`,
		"late":    `s-1 {"jsonrpc":"2.0","id":"late","result":{}};`,
		"message": `s-2 {"jsonrpc":"2.0","method":"notifications/message"};`,
	}
	if len(got) != 3 || got["early"] != want["early"] || got["late"] != want["late"] || got["message"] != want["message"] {
		t.Errorf("replica b got %v", got)
	}
}

// TestSessionClientState: a session row keeps what its client declared and the level it set.
func TestSessionClientState(t *testing.T) {
	t.Parallel()
	st := pgtest.NewStore(t)
	s := newSession("sess-caps", "otter", time.Now())
	s.Caps = backend.ClientCaps{Elicitation: true, Roots: true}
	mustOK(t, st.CreateSession(ctx, s))
	mustOK(t, st.SetSessionLogLevel(ctx, s.ID, "warning"))
	got, err := st.GetSession(ctx, s.ID)
	mustOK(t, err)
	if got.Caps != s.Caps || got.LogLevel != "warning" {
		t.Errorf("session row: caps %+v level %q", got.Caps, got.LogLevel)
	}
	wantCode(t, st.SetSessionLogLevel(ctx, "sess-none", "info"), backend.CodeNotFound, "")
}
