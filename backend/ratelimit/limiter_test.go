package ratelimit

import (
	"context"
	"errors"
	"math"
	"sync"
	"testing"
	"time"
)

// memShared is the shared state as PostgreSQL keeps it (backend/postgres/ratelimit.go), in
// memory, on the test's clock.
type memShared struct {
	mu       sync.Mutex
	now      func() time.Time
	buckets  map[string]*memBucket
	inFlight map[string]map[string]memFlight
	down     bool
}

type memBucket struct {
	tokens float64
	at     time.Time
}

type memFlight struct {
	n    int
	seen time.Time
}

func newMemShared(now func() time.Time) *memShared {
	return &memShared{now: now, buckets: map[string]*memBucket{}, inFlight: map[string]map[string]memFlight{}}
}

var errDown = errors.New("database down")

func (m *memShared) TakeRate(_ context.Context, key string, perMinute, consumed int) (float64, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.down {
		return 0, errDown
	}
	now, capacity := m.now(), float64(perMinute)
	b, ok := m.buckets[key]
	if !ok {
		b = &memBucket{tokens: capacity, at: now}
		m.buckets[key] = b
	}
	elapsed := math.Max(0, now.Sub(b.at).Seconds())
	b.tokens = math.Max(-capacity, math.Min(capacity, b.tokens+capacity/60*elapsed)-float64(consumed))
	if now.After(b.at) {
		b.at = now
	}
	return b.tokens, nil
}

func (m *memShared) SyncInFlight(_ context.Context, key, replica string, inFlight int, staleAfter time.Duration) (int, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.down {
		return 0, errDown
	}
	if m.inFlight[key] == nil {
		m.inFlight[key] = map[string]memFlight{}
	}
	now := m.now()
	m.inFlight[key][replica] = memFlight{n: inFlight, seen: now}
	others := 0
	for r, f := range m.inFlight[key] {
		if r != replica && now.Sub(f.seen) < staleAfter {
			others += f.n
		}
	}
	return others, nil
}

func (m *memShared) PruneRateState(context.Context, time.Time) error { return nil }

// testClock is a clock tests move by hand.
type testClock struct {
	mu sync.Mutex
	t  time.Time
}

func (c *testClock) now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.t
}

func (c *testClock) add(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.t = c.t.Add(d)
}

func newTestLimiters(n int) ([]*Limiter, *memShared, *testClock) {
	clock := &testClock{t: time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)}
	shared := newMemShared(clock.now)
	out := make([]*Limiter, n)
	for i := range out {
		out[i] = New(shared, clock.now, nil)
	}
	return out, shared, clock
}

func tokenKey(name string, perMinute, concurrent int) Key {
	return Key{Scope: ScopeToken, Name: "token:" + name, Limits: Limits{CallsPerMinute: perMinute, ConcurrentCalls: concurrent}}
}

// TestLimiterCallsPerMinute: a key admits a minute's worth at once, then refuses saying when the
// next call fits, and admits again once that time has passed; another key is not touched.
func TestLimiterCallsPerMinute(t *testing.T) {
	ls, _, clock := newTestLimiters(1)
	l, ctx := ls[0], context.Background()
	a, b := tokenKey("a", 6, 0), tokenKey("b", 6, 0)
	for i := range 6 {
		if _, ref := l.Acquire(ctx, a); ref != nil {
			t.Fatalf("call %d refused: %+v", i+1, ref)
		}
	}
	_, ref := l.Acquire(ctx, a)
	if ref == nil || ref.Limit != LimitCallsPerMinute || ref.Value != 6 || ref.RetryAfter != 10*time.Second {
		t.Fatalf("7th call = %+v, want calls_per_minute 6, retry after 10s", ref)
	}
	clock.add(4 * time.Second)
	if _, ref := l.Acquire(ctx, a); ref == nil || ref.RetryAfter != 6*time.Second {
		t.Fatalf("4 s later = %+v, want a retry after 6 s", ref)
	}
	if _, ref := l.Acquire(ctx, b); ref != nil {
		t.Fatalf("another key refused: %+v", ref)
	}
	clock.add(6 * time.Second)
	if _, ref := l.Acquire(ctx, a); ref != nil {
		t.Fatalf("after the retry time: %+v", ref)
	}
	if n := l.Stats().TokenRate.Load(); n != 2 {
		t.Errorf("refusals counted = %d, want 2", n)
	}
}

// TestLimiterConcurrentCalls: a key admits as many calls at once as its limit, and one more once
// a call ends.
func TestLimiterConcurrentCalls(t *testing.T) {
	ls, _, _ := newTestLimiters(1)
	l, ctx := ls[0], context.Background()
	k := tokenKey("a", 0, 2)
	r1, ref1 := l.Acquire(ctx, k)
	_, ref2 := l.Acquire(ctx, k)
	_, ref3 := l.Acquire(ctx, k)
	if ref1 != nil || ref2 != nil || ref3 == nil || ref3.Limit != LimitConcurrentCalls || ref3.Value != 2 {
		t.Fatalf("refusals %+v %+v %+v, want the third for concurrent_calls 2", ref1, ref2, ref3)
	}
	r1()
	r1() // a second release ends nothing more
	if _, ref := l.Acquire(ctx, k); ref != nil {
		t.Fatalf("after a call ended: %+v", ref)
	}
	if _, ref := l.Acquire(ctx, k); ref == nil {
		t.Fatal("a double release freed two places")
	}
}

// TestLimiterRefusalTakesNothing: a call refused by its second key leaves the first key as it
// was.
func TestLimiterRefusalTakesNothing(t *testing.T) {
	ls, _, _ := newTestLimiters(1)
	l, ctx := ls[0], context.Background()
	tok := tokenKey("a", 2, 1)
	svc := Key{Scope: ScopeService, Name: "service:d:s", Limits: Limits{ConcurrentCalls: 1}}
	hold, ref := l.Acquire(ctx, svc)
	if ref != nil {
		t.Fatal(ref)
	}
	for range 3 {
		if _, ref := l.Acquire(ctx, tok, svc); ref == nil || ref.Key.Scope != ScopeService {
			t.Fatalf("with the service full: %+v, want the service's refusal", ref)
		}
	}
	hold()
	for i := range 2 {
		release, ref := l.Acquire(ctx, tok, svc)
		if ref != nil {
			t.Fatalf("call %d: %+v; refused calls took from the token", i+1, ref)
		}
		release()
	}
}

// TestLimiterReplicasShareTheBucket: two replicas calling one key in turn, as fast as they can,
// admit together at most the limit plus one slice (a twentieth of it) before both refuse, and
// the bucket owes what they took over it.
func TestLimiterReplicasShareTheBucket(t *testing.T) {
	for _, perMinute := range []int{6, 60, 600} {
		ls, shared, _ := newTestLimiters(2)
		ctx := context.Background()
		k := tokenKey("shared", perMinute, 0)
		admitted, refusedInARow := 0, 0
		for i := 0; refusedInARow < 4; i++ {
			if _, ref := ls[i%2].Acquire(ctx, k); ref != nil {
				refusedInARow++
			} else {
				admitted, refusedInARow = admitted+1, 0
			}
		}
		tolerance := slice(perMinute, 20)
		if admitted > perMinute+tolerance || admitted < perMinute {
			t.Errorf("%d a minute: two replicas admitted %d, want %d to %d", perMinute, admitted, perMinute, perMinute+tolerance)
		}
		for _, l := range ls {
			l.sync(ctx, l.buckets[k.Name])
		}
		if got := shared.buckets[k.Name].tokens; got != float64(perMinute-admitted) {
			t.Errorf("%d a minute: shared level %v, want %d", perMinute, got, perMinute-admitted)
		}
	}
}

// TestLimiterConcurrentAcrossReplicas: calls in flight on one replica count on the other once
// reported, and a replica that stopped reporting (gone) stops counting.
func TestLimiterConcurrentAcrossReplicas(t *testing.T) {
	ls, _, clock := newTestLimiters(2)
	ctx := context.Background()
	k := tokenKey("a", 0, 2)
	for range 2 {
		if _, ref := ls[0].Acquire(ctx, k); ref != nil {
			t.Fatal(ref)
		}
	}
	if _, ref := ls[1].Acquire(ctx, k); ref == nil || ref.Limit != LimitConcurrentCalls {
		t.Fatalf("second replica with the first one full: %+v", ref)
	}
	clock.add(inFlightTTL + time.Second) // the first replica died without a word
	if _, ref := ls[1].Acquire(ctx, k); ref != nil {
		t.Fatalf("a gone replica's calls still count: %+v", ref)
	}
}

// TestLimiterWithoutSharedState: when the database cannot be reached each replica limits on its
// own view and says so in its counters.
func TestLimiterWithoutSharedState(t *testing.T) {
	ls, shared, _ := newTestLimiters(1)
	shared.down = true
	l, ctx := ls[0], context.Background()
	k := tokenKey("a", 3, 0)
	for range 3 {
		if _, ref := l.Acquire(ctx, k); ref != nil {
			t.Fatal(ref)
		}
	}
	if _, ref := l.Acquire(ctx, k); ref == nil {
		t.Fatal("the local view admitted past the limit")
	}
	if l.Stats().SyncErrors.Load() == 0 {
		t.Error("failed round trips were not counted")
	}
}

// TestLimiterLimitsChangeWithCallsInFlight: a call admitted under the old limits still ends
// under the new ones, so no place in flight is lost.
func TestLimiterLimitsChangeWithCallsInFlight(t *testing.T) {
	ls, _, _ := newTestLimiters(1)
	l, ctx := ls[0], context.Background()
	release, ref := l.Acquire(ctx, tokenKey("a", 0, 1))
	if ref != nil {
		t.Fatal(ref)
	}
	if _, ref := l.Acquire(ctx, tokenKey("a", 0, 2)); ref != nil {
		t.Fatalf("a second place after the limit grew: %+v", ref)
	}
	if _, ref := l.Acquire(ctx, tokenKey("a", 0, 2)); ref == nil {
		t.Fatal("a third call fit in two places")
	}
	release()
	if _, ref := l.Acquire(ctx, tokenKey("a", 0, 2)); ref != nil {
		t.Fatalf("the call admitted under the old limit did not give its place back: %+v", ref)
	}
}
