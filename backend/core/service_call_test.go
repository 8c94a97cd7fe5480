package core_test

import (
	"context"
	"encoding/json"
	"sync/atomic"
	"testing"

	"github.com/agent-deck/agent-deck/backend"
	"github.com/agent-deck/agent-deck/backend/core"
	"github.com/agent-deck/agent-deck/backend/postgres"
	"github.com/agent-deck/agent-deck/backend/postgres/pgtest"
)

// readCounter is a Store that counts the reads a proxied call's plan is built from.
type readCounter struct {
	backend.Store
	reads atomic.Int64
}

func (c *readCounter) GetSession(ctx context.Context, id string) (backend.MCPSession, error) {
	c.reads.Add(1)
	return c.Store.GetSession(ctx, id)
}

func (c *readCounter) ListLinks(ctx context.Context, deckID string) ([]backend.CardLink, error) {
	c.reads.Add(1)
	return c.Store.ListLinks(ctx, deckID)
}

func (c *readCounter) GetService(ctx context.Context, ref string) (backend.ServiceRecord, error) {
	c.reads.Add(1)
	return c.Store.GetService(ctx, ref)
}

func (c *readCounter) ToolPins(ctx context.Context, serviceID string) ([]backend.ToolPin, error) {
	c.reads.Add(1)
	return c.Store.ToolPins(ctx, serviceID)
}

func (c *readCounter) SamplingAllowed(ctx context.Context, deckID, serviceID string) (bool, error) {
	c.reads.Add(1)
	return c.Store.SamplingAllowed(ctx, deckID, serviceID)
}

// samplingRecorder answers every call and remembers whether the call's relay could sample.
type samplingRecorder struct {
	fakeDownstream
	sampling atomic.Bool
}

func (r *samplingRecorder) CallTool(ctx context.Context, _ backend.Target, _ string, _ json.RawMessage) (backend.CallResult, error) {
	rl := backend.RelayFrom(ctx)
	r.sampling.Store(rl != nil && rl.Wants().Sampling)
	return backend.CallResult{}, nil
}

// samplingRelay is an agent session whose client offers sampling.
type samplingRelay struct{ backend.Relay }

func (samplingRelay) SessionID() string { return "" }
func (samplingRelay) Wants() backend.RelayWants {
	return backend.RelayWants{Sampling: true}
}

// TestCallPlanReadsNothingWhenUnchanged: the second call of a session to the same service goes
// through the plan the first one resolved, with no database read, until something changes.
func TestCallPlanReadsNothingWhenUnchanged(t *testing.T) {
	url := pgtest.NewDB(t)
	st, err := postgres.Open(context.Background(), url)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(st.Close)
	counted := &readCounter{Store: st}
	hub := core.NewHub(counted, &samplingRecorder{fakeDownstream: fakeDownstream{status: map[string]backend.DownstreamStatus{}}},
		newTestSealer(t), nil, nil, core.Config{})
	admin := backend.WithActor(context.Background(), backend.SystemActor)
	agent := backend.WithActor(context.Background(), backend.Actor{Scope: backend.ScopeAgent, Kind: backend.ActorAgent})
	eventually(t, "the change listener connected", func() bool { return listeners(t, url) == 1 })
	d := coreMust[backend.Deck](t)(hub.CreateDeck(admin, core.DeckInput{Name: "d"}))
	pinTools := false
	svc := coreMust[backend.ServiceCard](t)(hub.CreateService(admin, core.ServiceInput{
		Name: "remote", Type: backend.ServiceRemote, URL: "http://127.0.0.1:1/mcp", PinTools: &pinTools}))
	coreMust[core.CardsResult](t)(hub.LinkCard(admin, core.LinkCardInput{
		CardRef: core.CardRef{Deck: d.ID, CardType: backend.CardService, CardID: svc.ID}}))
	sess := coreMust[backend.MCPSession](t)(hub.OpenSession(agent, core.OpenSessionInput{
		ID: "6f1c1a52-8a54-4a58-9d7e-0c39f4f1a0c1", Profile: "standard", Deck: d.ID}))
	ctx := core.WithSession(agent, sess) // as the MCP endpoint hands each call its session
	call := func() int64 {
		t.Helper()
		before := counted.reads.Load()
		coreMust[backend.CallResult](t)(hub.CallBoundServiceTool(ctx, sess.ID, "remote", core.CallInput{ToolName: "echo"}))
		return counted.reads.Load() - before
	}
	if n := call(); n == 0 {
		t.Fatal("the first call read nothing: the counter does not see the plan's reads")
	}
	// The change feed echoes this test's own writes a moment later, and each echo drops the
	// caches once more; once they are all in, a plan stays.
	eventually(t, "a call through a cached plan", func() bool { return call() == 0 })
	for range 3 {
		if n := call(); n != 0 {
			t.Fatalf("a call read the database %d times with nothing changed; want its plan from the cache", n)
		}
	}
	desc := "changed"
	coreMust[backend.ServiceCard](t)(hub.UpdateService(admin, svc.ID, core.ServicePatch{Description: &desc}))
	if n := call(); n == 0 {
		t.Error("the call after a service change read nothing: a stale plan was used")
	}
}

// TestReplicaSeesSamplingGrant: a sampling grant made on one replica reaches the plans the other
// replica holds.
func TestReplicaSeesSamplingGrant(t *testing.T) {
	r := newReplicas(t)
	recB := &samplingRecorder{fakeDownstream: fakeDownstream{status: map[string]backend.DownstreamStatus{}}}
	st, err := postgres.Open(context.Background(), r.url)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(st.Close)
	b := core.NewHub(st, recB, newTestSealer(t), nil, nil, core.Config{})
	eventually(t, "three listeners connected", func() bool { return listeners(t, r.url) == 3 })
	d := coreMust[backend.Deck](t)(r.a.CreateDeck(r.admin, core.DeckInput{Name: "d"}))
	pinTools := false
	svc := coreMust[backend.ServiceCard](t)(r.a.CreateService(r.admin, core.ServiceInput{
		Name: "remote", Type: backend.ServiceRemote, URL: "http://127.0.0.1:1/mcp", PinTools: &pinTools}))
	coreMust[core.CardsResult](t)(r.a.LinkCard(r.admin, core.LinkCardInput{
		CardRef: core.CardRef{Deck: d.ID, CardType: backend.CardService, CardID: svc.ID}}))
	sess := coreMust[backend.MCPSession](t)(b.OpenSession(r.agent, core.OpenSessionInput{
		ID: "6f1c1a52-8a54-4a58-9d7e-0c39f4f1a0c2", Profile: "standard", Deck: d.ID}))
	ctx := backend.WithRelay(r.agent, samplingRelay{})
	sampled := func() bool {
		t.Helper()
		coreMust[backend.CallResult](t)(b.CallBoundServiceTool(ctx, sess.ID, "remote", core.CallInput{ToolName: "echo"}))
		return recB.sampling.Load()
	}
	for range 2 { // the second call goes through B's cached plan
		if sampled() {
			t.Fatal("the service could sample before any grant")
		}
	}
	allow := true
	coreMust[core.DeckSampling](t)(r.a.SetDeckSampling(r.admin, core.DeckSamplingInput{Deck: d.ID, Service: svc.ID, Allowed: &allow}))
	eventually(t, "B's calls may sample", sampled)
	allow = false
	coreMust[core.DeckSampling](t)(r.a.SetDeckSampling(r.admin, core.DeckSamplingInput{Deck: d.ID, Service: svc.ID, Allowed: &allow}))
	eventually(t, "B's calls may no longer sample", func() bool { return !sampled() })
}
