package core_test

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"sync"
	"testing"

	"github.com/agent-deck/agent-deck/backend"
	"github.com/agent-deck/agent-deck/backend/core"
	"github.com/agent-deck/agent-deck/backend/postgres/pgtest"
	"github.com/agent-deck/agent-deck/backend/secret"
)

// coreFixture is a Service on a fresh database with one context per scope.
type coreFixture struct {
	svc    *core.Hub
	store  backend.Store
	key    []byte
	ds     *fakeDownstream
	admin  context.Context
	agent  context.Context
	reader context.Context
	anon   context.Context
}

func newCoreFixture(t *testing.T) *coreFixture {
	t.Helper()
	return newCoreFixtureTB(t)
}

// newTestKey makes a fresh random key and its sealer, as a first start without a key file does.
func newTestKey(tb testing.TB) ([]byte, backend.Sealer) {
	tb.Helper()
	key, err := secret.GenerateKey()
	if err != nil {
		tb.Fatal(err)
	}
	sealer, err := secret.NewSealer(key)
	if err != nil {
		tb.Fatal(err)
	}
	return key, sealer
}

// newTestSealer is newTestKey for callers that never need the key itself.
func newTestSealer(tb testing.TB) backend.Sealer {
	tb.Helper()
	_, sealer := newTestKey(tb)
	return sealer
}

func newCoreFixtureTB(t testing.TB) *coreFixture {
	t.Helper()
	st := pgtest.NewStore(t)
	key, sealer := newTestKey(t)
	ds := &fakeDownstream{status: map[string]backend.DownstreamStatus{}}
	ctx := context.Background()
	return &coreFixture{
		svc:    core.NewHub(st, ds, sealer, nil, nil, core.Config{}),
		store:  st,
		key:    key,
		ds:     ds,
		admin:  backend.WithActor(ctx, backend.Actor{TokenID: "", Scope: backend.ScopeAdmin, Kind: backend.ActorUser}),
		agent:  backend.WithActor(ctx, backend.Actor{Scope: backend.ScopeAgent, Kind: backend.ActorAgent}),
		reader: backend.WithActor(ctx, backend.Actor{Scope: backend.ScopeAgentRead, Kind: backend.ActorAgent}),
		anon:   ctx,
	}
}

// fakeDownstream reports canned status and records Forget calls.
type fakeDownstream struct {
	mu      sync.Mutex
	status  map[string]backend.DownstreamStatus
	forgets []string
	ended   []string
}

func (f *fakeDownstream) SessionEnded(id string) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.ended = append(f.ended, id)
}

// sessionsEnded returns the sessions the proxy was told have ended.
func (f *fakeDownstream) sessionsEnded() []string {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]string(nil), f.ended...)
}

func (f *fakeDownstream) ListTools(context.Context, backend.Target) ([]backend.DownstreamTool, error) {
	return nil, errors.New("not used")
}

func (f *fakeDownstream) CallTool(context.Context, backend.Target, string, json.RawMessage) (backend.CallResult, error) {
	return backend.CallResult{}, errors.New("not used")
}

func (f *fakeDownstream) Check(context.Context, backend.Target) backend.Health {
	return backend.Health{Status: backend.HealthUnknown}
}

func (f *fakeDownstream) Status(id string) (backend.DownstreamStatus, bool) {
	f.mu.Lock()
	defer f.mu.Unlock()
	st, ok := f.status[id]
	return st, ok
}

func (f *fakeDownstream) Forget(id string) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.forgets = append(f.forgets, id)
}

func (f *fakeDownstream) forgotten(id string) bool {
	f.mu.Lock()
	defer f.mu.Unlock()
	for _, x := range f.forgets {
		if x == id {
			return true
		}
	}
	return false
}

// wantCode fails unless err carries the code.
func wantCode(t *testing.T, err error, code backend.Code) *backend.Error {
	t.Helper()
	if got := backend.ErrorCode(err); got != code {
		t.Fatalf("error = %v (code %q), want code %s", err, got, code)
	}
	if err == nil {
		return nil
	}
	return backend.AsError(err)
}

// coreMust fails the test on an error.
func coreMust[T any](t testing.TB) func(T, error) T {
	t.Helper()
	return func(v T, err error) T {
		t.Helper()
		if err != nil {
			t.Fatalf("unexpected error: %v", err)
		}
		return v
	}
}

func ptr[T any](v T) *T { return &v }

// noCanary marshals v to JSON and fails when it contains the canary.
func noCanary(t *testing.T, what string, v any, canary string) {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatalf("marshal %s: %v", what, err)
	}
	if strings.Contains(string(b), canary) {
		t.Errorf("%s leaks the secret: %s", what, b)
	}
}

func (f *coreFixture) service(t *testing.T, name string) backend.ServiceCard {
	t.Helper()
	return coreMust[backend.ServiceCard](t)(f.svc.CreateService(f.admin, core.ServiceInput{
		Name: name, Type: backend.ServiceRemote, URL: "https://example.com/" + backend.Slugify(name) + "/mcp",
	}))
}

func (f *coreFixture) credential(t *testing.T, label, value string) backend.Credential {
	t.Helper()
	return coreMust[backend.Credential](t)(f.svc.CreateCredential(f.admin, core.CredentialInput{Label: label, Value: value}))
}

func (f *coreFixture) playbook(t *testing.T, in backend.PlaybookInput) core.PlaybookResult {
	t.Helper()
	return coreMust[core.PlaybookResult](t)(f.svc.CreatePlaybook(f.admin, in))
}

func (f *coreFixture) deck(t *testing.T, name string) backend.Deck {
	t.Helper()
	return coreMust[backend.Deck](t)(f.svc.CreateDeck(f.admin, core.DeckInput{Name: name}))
}

func (f *coreFixture) link(t *testing.T, deck string, ct backend.CardType, id string) core.CardsResult {
	t.Helper()
	return coreMust[core.CardsResult](t)(f.svc.LinkCard(f.admin, core.LinkCardInput{
		CardRef: core.CardRef{Deck: deck, CardType: ct, CardID: id},
	}))
}
