package core_test

import (
	"context"
	"encoding/json"
	"errors"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/agent-deck/agent-deck/backend"
	"github.com/agent-deck/agent-deck/backend/core"
	"github.com/agent-deck/agent-deck/backend/postgres"
	"github.com/agent-deck/agent-deck/backend/postgres/pgtest"
)

// replicaDeadline bounds how long a change made on one replica may take to reach another.
const replicaDeadline = 2 * time.Second

// targetRecorder is a Downstream that answers every call and remembers the last target.
type targetRecorder struct {
	fakeDownstream
	mu   sync.Mutex
	last backend.Target
}

func (r *targetRecorder) CallTool(_ context.Context, t backend.Target, _ string, _ json.RawMessage) (backend.CallResult, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.last = t
	return backend.CallResult{}, nil
}

func (r *targetRecorder) lastTarget() backend.Target {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.last
}

// replicas is two Services on one database, each with its own Store (pool and listener), as
// two serve processes behind a load balancer are.
type replicas struct {
	url          string
	a, b         *core.Hub
	dsA, dsB     *targetRecorder
	admin, agent context.Context
}

func newReplicas(t *testing.T) *replicas {
	t.Helper()
	return newReplicasWith(t, core.Config{})
}

// newReplicasWith is newReplicas with replica A configured by cfgA.
func newReplicasWith(t *testing.T, cfgA core.Config) *replicas {
	t.Helper()
	url := pgtest.NewDB(t)
	sealer := newTestSealer(t)
	open := func(ds backend.Downstream, cfg core.Config) *core.Hub {
		st, err := postgres.Open(context.Background(), url)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(st.Close)
		return core.NewHub(st, ds, sealer, nil, nil, cfg)
	}
	r := &replicas{url: url, dsA: newRecorder(), dsB: newRecorder()}
	r.a, r.b = open(r.dsA, cfgA), open(r.dsB, core.Config{})
	ctx := context.Background()
	r.admin = backend.WithActor(ctx, backend.SystemActor)
	r.agent = backend.WithActor(ctx, backend.Actor{Scope: backend.ScopeAgent, Kind: backend.ActorAgent})
	r.waitListening(t)
	return r
}

func newRecorder() *targetRecorder {
	return &targetRecorder{fakeDownstream: fakeDownstream{status: map[string]backend.DownstreamStatus{}}}
}

// waitListening waits until both replicas' change listeners are connected, so the test
// exercises the caches rather than the bypass that precedes them.
func (r *replicas) waitListening(t *testing.T) {
	t.Helper()
	eventually(t, "two listeners connected", func() bool { return listeners(t, r.url) == 2 })
}

// listeners counts the database's connections listening for changes.
func listeners(t *testing.T, url string) int {
	t.Helper()
	var n int
	withConn(t, url, func(c *pgx.Conn) error {
		return c.QueryRow(context.Background(), `SELECT count(*) FROM pg_stat_activity
			WHERE datname = current_database() AND query LIKE 'LISTEN %'`).Scan(&n)
	})
	return n
}

// withConn runs fn on a plain connection of its own, outside both replicas.
func withConn(t *testing.T, url string, fn func(*pgx.Conn) error) {
	t.Helper()
	ctx := context.Background()
	c, err := pgx.Connect(ctx, url)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close(ctx)
	if err := fn(c); err != nil {
		t.Fatal(err)
	}
}

// eventually polls cond until it holds or replicaDeadline passes.
func eventually(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(replicaDeadline)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("%s: not within %v", what, replicaDeadline)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// authOK reports whether svc accepts the token secret.
func authOK(svc *core.Hub, secret string) bool {
	_, err := svc.Authenticate(context.Background(), secret, backend.ActorAgent)
	return err == nil
}

func TestReplicaSeesRevocation(t *testing.T) {
	r := newReplicas(t)
	tok := coreMust[core.NewToken](t)(r.a.CreateToken(r.admin, core.TokenInput{Name: "t", Scope: backend.ScopeAgent}))
	for _, svc := range []*core.Hub{r.a, r.b, r.b} { // the second use on B is a cache hit
		if !authOK(svc, tok.Secret) {
			t.Fatal("fresh token refused")
		}
	}
	if err := r.a.RevokeToken(r.admin, tok.ID); err != nil {
		t.Fatal(err)
	}
	if authOK(r.a, tok.Secret) {
		t.Error("replica A accepted the token it revoked")
	}
	eventually(t, "replica B refuses the revoked token", func() bool { return !authOK(r.b, tok.Secret) })
}

func TestReplicaSeesSessionChanges(t *testing.T) {
	r := newReplicas(t)
	d1 := coreMust[backend.Deck](t)(r.a.CreateDeck(r.admin, core.DeckInput{Name: "one"}))
	d2 := coreMust[backend.Deck](t)(r.a.CreateDeck(r.admin, core.DeckInput{Name: "two"}))
	sess := coreMust[backend.MCPSession](t)(r.a.OpenSession(r.agent, core.OpenSessionInput{
		ID: "6f1c1a52-8a54-4a58-9d7e-0c39f4f1a001", Profile: "standard", Deck: d1.ID}))
	deckOnB := func() string {
		m, err := r.b.LookupSession(r.agent, sess.ID)
		if err != nil {
			return "gone"
		}
		return m.DeckID
	}
	if got := deckOnB(); got != d1.ID {
		t.Fatalf("B sees deck %q, want %q", got, d1.ID)
	}
	deckOnB() // cached now
	coreMust[core.Binding](t)(r.a.SwitchBoundDeck(r.agent, sess.ID, d2.ID))
	eventually(t, "B sees the rebind", func() bool { return deckOnB() == d2.ID })
	if err := r.a.TerminateSession(r.agent, sess.ID); err != nil {
		t.Fatal(err)
	}
	if _, err := r.a.LookupSession(r.agent, sess.ID); backend.ErrorCode(err) != backend.CodeNotFound {
		t.Errorf("A after terminate: %v, want NOT_FOUND", err)
	}
	eventually(t, "B sees the termination", func() bool { return deckOnB() == "gone" })
}

func TestReplicaSeesServiceAndCredentialChanges(t *testing.T) {
	r := newReplicas(t)
	cred := coreMust[backend.Credential](t)(r.a.CreateCredential(r.admin, core.CredentialInput{Label: "key", Value: "first"}))
	pinTools := false // the fake downstream lists no tools to pin
	svc := coreMust[backend.ServiceCard](t)(r.a.CreateService(r.admin, core.ServiceInput{
		Name: "remote", Type: backend.ServiceRemote, URL: "http://127.0.0.1:1/one", CredentialID: cred.ID,
		PinTools: &pinTools}))
	call := func() backend.Target {
		t.Helper()
		coreMust[backend.CallResult](t)(r.b.CallServiceTool(r.admin, svc.ID, core.CallInput{ToolName: "echo"}))
		return r.dsB.lastTarget()
	}
	if got := call(); got.URL != "http://127.0.0.1:1/one" || got.Credential.Secret != "first" {
		t.Fatalf("first target: %s %q", got.URL, got.Credential.Secret)
	}
	call() // cached now
	url := "http://127.0.0.1:1/two"
	coreMust[backend.ServiceCard](t)(r.a.UpdateService(r.admin, svc.ID, core.ServicePatch{URL: &url}))
	eventually(t, "B calls the new URL", func() bool { return call().URL == url })
	coreMust[backend.Credential](t)(r.a.RotateCredential(r.admin, cred.ID, "second"))
	eventually(t, "B sends the rotated secret", func() bool { return call().Credential.Secret == "second" })
}

func TestReplicaSeesDeckLinks(t *testing.T) {
	r := newReplicas(t)
	d := coreMust[backend.Deck](t)(r.a.CreateDeck(r.admin, core.DeckInput{Name: "d"}))
	svc := coreMust[backend.ServiceCard](t)(r.a.CreateService(r.admin, core.ServiceInput{
		Name: "remote", Type: backend.ServiceRemote, URL: "http://127.0.0.1:1/mcp"}))
	services := func() int {
		snap := coreMust[core.DeckSnapshot](t)(r.b.DeckSnapshot(r.agent, d.ID))
		return len(snap.Services)
	}
	for range 2 { // the second read is served from B's cache
		if services() != 0 {
			t.Fatal("empty deck has services")
		}
	}
	link := core.CardRef{Deck: d.ID, CardType: backend.CardService, CardID: svc.ID}
	coreMust[core.CardsResult](t)(r.a.LinkCard(r.admin, core.LinkCardInput{CardRef: link}))
	if snap := coreMust[core.DeckSnapshot](t)(r.a.DeckSnapshot(r.agent, d.ID)); len(snap.Services) != 1 {
		t.Errorf("A's own snapshot after link: %d services", len(snap.Services))
	}
	eventually(t, "B's snapshot shows the link", func() bool { return services() == 1 })
	coreMust[core.CardsResult](t)(r.a.UnlinkCard(r.admin, link))
	eventually(t, "B's snapshot drops the link", func() bool { return services() == 0 })
}

// TestReplicaListenerLoss cuts B's listener in the same transaction as a revocation, so the
// change's notification can never reach B: B must refuse the token anyway, because losing the
// listener flushes and bypasses its caches until it listens again.
func TestReplicaListenerLoss(t *testing.T) {
	r := newReplicas(t)
	tok := coreMust[core.NewToken](t)(r.a.CreateToken(r.admin, core.TokenInput{Name: "t", Scope: backend.ScopeAgent}))
	for range 2 { // the second check is served from B's cache
		if !authOK(r.b, tok.Secret) {
			t.Fatal("fresh token refused")
		}
	}
	withConn(t, r.url, func(c *pgx.Conn) error {
		return pgx.BeginFunc(context.Background(), c, func(tx pgx.Tx) error {
			ctx := context.Background()
			if _, err := tx.Exec(ctx, `SELECT pg_terminate_backend(pid) FROM pg_stat_activity
				WHERE datname = current_database() AND query LIKE 'LISTEN %'`); err != nil {
				return err
			}
			tag, err := tx.Exec(ctx, `UPDATE tokens SET revoked_at = now() WHERE id = $1`, tok.ID)
			if err == nil && tag.RowsAffected() != 1 {
				err = errors.New("token not revoked")
			}
			return err
		})
	})
	eventually(t, "B refuses the token revoked while its listener was down",
		func() bool { return !authOK(r.b, tok.Secret) })
	r.waitListening(t)
	if authOK(r.b, tok.Secret) {
		t.Error("B accepts the revoked token after reconnecting")
	}
}

// TestSnapshotHealthStaysLive checks that a cached deck still shows the proxy's current health
// on every snapshot.
func TestSnapshotHealthStaysLive(t *testing.T) {
	f := newCoreFixture(t)
	d := coreMust[backend.Deck](t)(f.svc.CreateDeck(f.admin, core.DeckInput{Name: "d"}))
	svc := coreMust[backend.ServiceCard](t)(f.svc.CreateService(f.admin, core.ServiceInput{
		Name: "remote", Type: backend.ServiceRemote, URL: "http://127.0.0.1:1/mcp"}))
	coreMust[core.CardsResult](t)(f.svc.LinkCard(f.admin, core.LinkCardInput{
		CardRef: core.CardRef{Deck: d.ID, CardType: backend.CardService, CardID: svc.ID}}))
	health := func() backend.HealthStatus {
		t.Helper()
		snap := coreMust[core.DeckSnapshot](t)(f.svc.DeckSnapshot(f.reader, d.ID))
		return snap.Services[0].Health.Status
	}
	for _, want := range []backend.HealthStatus{backend.HealthUnknown, backend.HealthHealthy, backend.HealthHealthy,
		backend.HealthUnhealthy} {
		now := time.Now()
		f.ds.mu.Lock()
		f.ds.status[svc.ID] = backend.DownstreamStatus{Health: backend.Health{Status: want, LastCheckedAt: &now}}
		f.ds.mu.Unlock()
		if got := health(); got != want {
			t.Errorf("health = %s, want %s", got, want)
		}
	}
}

func TestReplicaSeesDeckRename(t *testing.T) {
	r := newReplicas(t)
	coreMust[backend.Deck](t)(r.a.CreateDeck(r.admin, core.DeckInput{Name: "old"}))
	byName := func(name string) error {
		_, err := r.b.DeckSnapshot(r.agent, name)
		return err
	}
	for range 2 { // the second lookup by name is a cache hit
		if err := byName("OLD"); err != nil {
			t.Fatal(err)
		}
	}
	coreMust[backend.Deck](t)(r.a.RenameDeck(r.admin, "old", core.DeckInput{Name: "new"}))
	eventually(t, "B no longer finds the old name", func() bool { return backend.ErrorCode(byName("old")) == backend.CodeNotFound })
	if err := byName("new"); err != nil {
		t.Errorf("B by the new name: %v", err)
	}
}

// TestReplicaSeesSessionEnd: a session that made proxied calls through both replicas and is then
// closed by its client on A, expired by A's sweep, or evicted on A (its token opened one session
// past the cap) is announced as ended to both proxies (B's through the change feed) and to B's
// front end, once; a session that never made a proxied call is not.
func TestReplicaSeesSessionEnd(t *testing.T) {
	const sessionCap = 2
	ends := []struct {
		name string
		end  func(t *testing.T, r *replicas, open func() backend.MCPSession, called, idle backend.MCPSession)
	}{
		{"closed", func(t *testing.T, r *replicas, _ func() backend.MCPSession, called, idle backend.MCPSession) {
			for _, id := range []string{idle.ID, called.ID} {
				if err := r.a.TerminateSession(r.agent, id); err != nil {
					t.Fatal(err)
				}
			}
		}},
		{"expired", func(t *testing.T, r *replicas, _ func() backend.MCPSession, called, idle backend.MCPSession) {
			withConn(t, r.url, func(c *pgx.Conn) error {
				_, err := c.Exec(context.Background(), `UPDATE mcp_sessions SET last_seen_at = now() - interval '2 days'
					WHERE id = ANY($1)`, []string{called.ID, idle.ID})
				return err
			})
			if n, err := r.a.ExpireIdleSessions(r.admin); err != nil || n != 2 {
				t.Fatalf("expired %d sessions (%v), want 2", n, err)
			}
		}},
		{"evicted", func(t *testing.T, r *replicas, open func() backend.MCPSession, called, idle backend.MCPSession) {
			open() // the token's third live session: the least recently used one, called, goes
			if _, err := r.a.LookupSession(r.agent, called.ID); backend.ErrorCode(err) != backend.CodeNotFound {
				t.Fatalf("the least recently used session was not evicted: %v", err)
			}
		}},
	}
	for _, e := range ends {
		t.Run(e.name, func(t *testing.T) {
			r := newReplicasWith(t, core.Config{MaxSessionsPerToken: sessionCap})
			d := coreMust[backend.Deck](t)(r.a.CreateDeck(r.admin, core.DeckInput{Name: "d"}))
			pinTools := false
			svc := coreMust[backend.ServiceCard](t)(r.a.CreateService(r.admin, core.ServiceInput{
				Name: "remote", Type: backend.ServiceRemote, URL: "http://127.0.0.1:1/mcp", PinTools: &pinTools}))
			coreMust[core.CardsResult](t)(r.a.LinkCard(r.admin, core.LinkCardInput{CardRef: core.CardRef{
				Deck: d.ID, CardType: backend.CardService, CardID: svc.ID}}))
			tok := coreMust[core.NewToken](t)(r.a.CreateToken(r.admin, core.TokenInput{Name: "agent", Scope: backend.ScopeAgent}))
			r.agent = backend.WithActor(context.Background(), backend.Actor{TokenID: tok.ID, Scope: backend.ScopeAgent, Kind: backend.ActorAgent})
			var mu sync.Mutex
			var told []string
			r.b.OnSessionEnded(func(id string) { mu.Lock(); told = append(told, id); mu.Unlock() })
			open := func() backend.MCPSession {
				return coreMust[backend.MCPSession](t)(r.a.OpenSession(r.agent, core.OpenSessionInput{Profile: "standard", Deck: d.ID}))
			}
			called := open()
			idle := open()
			for _, hub := range []*core.Hub{r.a, r.b} {
				coreMust[backend.CallResult](t)(hub.CallBoundServiceTool(r.agent, called.ID, svc.ID, core.CallInput{ToolName: "echo"}))
			}
			e.end(t, r, open, called, idle)
			for name, ds := range map[string]*targetRecorder{"A": r.dsA, "B": r.dsB} {
				eventually(t, name+"'s proxy is told the session ended", func() bool {
					return slices.Equal(ds.sessionsEnded(), []string{called.ID})
				})
			}
			eventually(t, "B's front end is told the session ended", func() bool {
				mu.Lock()
				defer mu.Unlock()
				return slices.Equal(told, []string{called.ID})
			})
			// Once is once: ending it again on A tells A's proxy nothing more.
			if err := r.a.TerminateSession(r.agent, called.ID); err != nil {
				t.Fatal(err)
			}
			if got := r.dsA.sessionsEnded(); len(got) != 1 {
				t.Errorf("A's proxy was told %v", got)
			}
		})
	}
}
