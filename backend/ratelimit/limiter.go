// Package ratelimit bounds proxied calls per key (a token, or a service on a deck): calls a
// minute and calls in flight, across every replica that shares one database.
//
// Each replica keeps a local view of each key's bucket, an x/time/rate token bucket that refills
// at the limit's rate and holds a minute's worth, and answers from it without I/O. The buckets
// themselves live in PostgreSQL (Shared): a replica reports the calls it admitted and reads the
// bucket's level back, once per slice of calls (a twentieth of the limit, at least one) and
// every quarter second while it has unreported calls. A replica's view is therefore never
// more than the other replicas' unreported calls too generous: across N replicas, a key admits
// at most (N-1) slices more than its limit at any moment, and the bucket then owes them (its
// level goes below zero), so over longer windows the rate holds. Calls in flight work alike:
// each replica records its own count per key and sums the others' (rows seen in the last 30 s;
// a replica that died stops counting then), reporting each change of an eighth of the limit.
// When the database cannot be reached a replica limits on its own view alone.
package ratelimit

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"log/slog"
	"math"
	"sync"
	"sync/atomic"
	"time"

	"golang.org/x/time/rate"
)

// Limits bound one key; zero means no bound.
type Limits struct {
	// CallsPerMinute is the calls a minute; a minute's worth may come at once.
	CallsPerMinute int `json:"calls_per_minute"`
	// ConcurrentCalls is the calls in flight at once.
	ConcurrentCalls int `json:"concurrent_calls"`
}

// None says the limits bound nothing.
func (l Limits) None() bool { return l.CallsPerMinute <= 0 && l.ConcurrentCalls <= 0 }

// Scope is what a key limits, for refusals and metrics.
type Scope string

// Scopes.
const (
	ScopeToken   Scope = "token"
	ScopeService Scope = "service"
)

// The limits a refusal names.
const (
	LimitCallsPerMinute  = "calls_per_minute"
	LimitConcurrentCalls = "concurrent_calls"
)

// Key is one bucket: a token's, or a service's on a deck.
type Key struct {
	Scope Scope
	// Name identifies the bucket in the shared state; the same on every replica.
	Name   string
	Limits Limits
}

// Refusal says which limit a call met and when to retry.
type Refusal struct {
	Key        Key
	Limit      string // LimitCallsPerMinute or LimitConcurrentCalls
	Value      int
	RetryAfter time.Duration
}

// Shared is the state every replica shares (PostgreSQL).
type Shared interface {
	// TakeRate removes consumed calls from the key's bucket, refilled at perMinute a minute up
	// to perMinute since it was last touched, and returns its level after; below zero when the
	// replicas together took more, never below -perMinute.
	TakeRate(ctx context.Context, key string, perMinute, consumed int) (float64, error)
	// SyncInFlight records this replica's calls in flight for the key and returns the sum of
	// the other replicas' recorded within staleAfter.
	SyncInFlight(ctx context.Context, key, replica string, inFlight int, staleAfter time.Duration) (int, error)
	// PruneRateState forgets buckets and in-flight rows untouched since before.
	PruneRateState(ctx context.Context, before time.Time) error
}

// Timing of the shared state.
const (
	flushEvery   = 250 * time.Millisecond
	inFlightTTL  = 30 * time.Second
	heartbeat    = 10 * time.Second
	lookAgain    = 100 * time.Millisecond
	idleBucket   = 2 * time.Minute
	pruneEvery   = time.Minute
	pruneBefore  = time.Hour
	syncDeadline = 5 * time.Second
	// While the shared state fails, calls stop waiting for it for this long; the flush loop
	// keeps trying.
	downPause = time.Second
)

// Limiter admits calls under per-key limits. Safe for concurrent use.
type Limiter struct {
	shared  Shared
	replica string
	clock   func() time.Time
	log     *slog.Logger

	mu      sync.Mutex
	buckets map[string]*bucket
	// downUntil: the shared state failed; calls do not wait for it before then.
	downUntil time.Time

	stats Stats
}

// Stats count what the limiter did, for metrics.
type Stats struct {
	// Refused counts refusals by scope and limit.
	TokenRate, TokenConcurrent, ServiceRate, ServiceConcurrent atomic.Int64
	// Syncs and SyncErrors count round trips to the shared state.
	Syncs, SyncErrors atomic.Int64
}

// bucket is one key's local state. Its fields are guarded by the Limiter's mu, except sync,
// which serialises round trips for the key.
type bucket struct {
	key      Key
	view     *rate.Limiter // local view of the shared bucket; nil without a rate limit
	known    bool          // view was read from the shared bucket at least once
	unsynced int           // calls admitted here since the last report
	inFlight int
	reported int // inFlight as last reported
	others   int // the other replicas' calls in flight, as last read
	lastUsed time.Time
	lastBeat time.Time
	sync     sync.Mutex
}

// New returns a Limiter over the shared state; clock nil is time.Now.
func New(shared Shared, clock func() time.Time, log *slog.Logger) *Limiter {
	if clock == nil {
		clock = time.Now
	}
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	id := make([]byte, 8)
	_, _ = rand.Read(id)
	return &Limiter{shared: shared, replica: hex.EncodeToString(id), clock: clock, log: log, buckets: map[string]*bucket{}}
}

// Stats returns the limiter's counters.
func (l *Limiter) Stats() *Stats { return &l.stats }

// Acquire admits one call under every key, or refuses it naming the first limit it met and
// taking nothing. release ends the call; call it once.
func (l *Limiter) Acquire(ctx context.Context, keys ...Key) (release func(), refused *Refusal) {
	var taken, report []*bucket
	for _, k := range keys {
		if k.Limits.None() {
			continue
		}
		b, syncNow, ref := l.admit(ctx, k)
		if ref != nil {
			for _, t := range taken {
				l.giveBack(t)
			}
			return func() {}, ref
		}
		taken = append(taken, b)
		if syncNow {
			report = append(report, b)
		}
	}
	// Reported once every key admitted the call, so a refusal by a later key gives back what
	// the earlier ones took before anyone else counted it.
	if l.up() {
		for _, b := range report {
			l.sync(ctx, b)
		}
	}
	var once sync.Once
	return func() {
		once.Do(func() {
			for _, b := range taken {
				l.end(b)
			}
		})
	}, nil
}

// admit takes one call from the key's bucket in the local view; syncNow says a slice is
// waiting to be reported.
func (l *Limiter) admit(ctx context.Context, k Key) (b *bucket, syncNow bool, ref *Refusal) {
	b, first := l.bucketOf(k)
	if first && l.up() {
		l.sync(ctx, b) // the first call of a key on this replica starts from the shared state
	}
	ref, syncNow, again := l.take(b)
	if again && l.up() {
		// The other replicas' calls may have ended: look again before refusing.
		l.sync(ctx, b)
		ref, syncNow, _ = l.take(b)
	}
	if ref != nil {
		l.count(ref)
		return nil, false, ref
	}
	return b, syncNow, nil
}

// up says calls may wait for the shared state: it answered last time, or a while has passed.
func (l *Limiter) up() bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	return !l.clock().Before(l.downUntil)
}

// bucketOf returns the key's bucket, made or brought to its current limits (in place: calls in
// flight hold it to end); first says its state has never been read from the shared state.
func (l *Limiter) bucketOf(k Key) (*bucket, bool) {
	l.mu.Lock()
	defer l.mu.Unlock()
	b, ok := l.buckets[k.Name]
	if !ok {
		b = &bucket{key: k}
		l.buckets[k.Name] = b
	}
	if !ok || b.key.Limits != k.Limits {
		b.key, b.view, b.known = k, nil, false
		if per := k.Limits.CallsPerMinute; per > 0 {
			b.view = rate.NewLimiter(rate.Limit(float64(per)/60), per)
		} else {
			b.unsynced = 0
		}
	}
	b.lastUsed = l.clock()
	return b, !b.known
}

// take admits a call in the local view, or refuses it; syncNow says a slice of calls (or of
// the calls in flight) is waiting to be reported, again that a refusal for calls in flight
// counted the other replicas' calls as last read a while ago.
func (l *Limiter) take(b *bucket) (ref *Refusal, syncNow, again bool) {
	l.mu.Lock()
	defer l.mu.Unlock()
	lim := b.key.Limits
	now := l.clock()
	if c := lim.ConcurrentCalls; c > 0 && b.inFlight+b.others >= c {
		again = b.others > 0 && now.Sub(b.lastBeat) >= lookAgain
		return &Refusal{Key: b.key, Limit: LimitConcurrentCalls, Value: c, RetryAfter: time.Second}, false, again
	}
	if b.view != nil {
		r := b.view.ReserveN(now, 1)
		if wait := r.DelayFrom(now); !r.OK() || wait > 0 {
			r.CancelAt(now)
			// Whole milliseconds, rounded up: the bucket's arithmetic is in floating point.
			wait = (wait + time.Millisecond - 1).Truncate(time.Millisecond)
			return &Refusal{Key: b.key, Limit: LimitCallsPerMinute, Value: lim.CallsPerMinute, RetryAfter: wait}, false, false
		}
		b.unsynced++
	}
	b.inFlight++
	return nil, b.unsynced >= slice(lim.CallsPerMinute, 20) || l.inFlightMoved(b), false
}

// inFlightMoved says the calls in flight moved by a slice since they were last reported.
func (l *Limiter) inFlightMoved(b *bucket) bool {
	c := b.key.Limits.ConcurrentCalls
	return c > 0 && abs(b.inFlight-b.reported) >= slice(c, 8)
}

// slice is the share of a limit a replica may hold unreported.
func slice(limit, parts int) int { return max(1, limit/parts) }

func abs(n int) int {
	if n < 0 {
		return -n
	}
	return n
}

// end finishes one call of the bucket; the change is reported by the flush loop.
func (l *Limiter) end(b *bucket) {
	l.mu.Lock()
	defer l.mu.Unlock()
	b.inFlight--
}

// giveBack undoes an admission refused by a later key: the call never happened.
func (l *Limiter) giveBack(b *bucket) {
	l.mu.Lock()
	defer l.mu.Unlock()
	b.inFlight--
	if b.view != nil && b.unsynced > 0 {
		b.unsynced--
		now := l.clock()
		b.view = levelAt(b.view.Limit(), b.view.Burst(), b.view.TokensAt(now)+1, now)
	}
}

func (l *Limiter) count(r *Refusal) {
	switch {
	case r.Key.Scope == ScopeToken && r.Limit == LimitCallsPerMinute:
		l.stats.TokenRate.Add(1)
	case r.Key.Scope == ScopeToken:
		l.stats.TokenConcurrent.Add(1)
	case r.Limit == LimitCallsPerMinute:
		l.stats.ServiceRate.Add(1)
	default:
		l.stats.ServiceConcurrent.Add(1)
	}
}

// sync reports the bucket's unreported calls and calls in flight, and reads back the shared
// level and the other replicas' calls in flight. Round trips of one key run one at a time.
func (l *Limiter) sync(ctx context.Context, b *bucket) {
	b.sync.Lock()
	defer b.sync.Unlock()
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), syncDeadline)
	defer cancel()
	l.mu.Lock()
	lim, consumed, inFlight := b.key.Limits, b.unsynced, b.inFlight
	l.mu.Unlock()
	var err error
	level, others := 0.0, 0
	if lim.CallsPerMinute > 0 {
		level, err = l.shared.TakeRate(ctx, b.key.Name, lim.CallsPerMinute, min(consumed, lim.CallsPerMinute))
	}
	if err == nil && lim.ConcurrentCalls > 0 {
		others, err = l.shared.SyncInFlight(ctx, b.key.Name, l.replica, inFlight, inFlightTTL)
	}
	l.stats.Syncs.Add(1)
	l.mu.Lock()
	defer l.mu.Unlock()
	now := l.clock()
	if err != nil {
		l.stats.SyncErrors.Add(1)
		if !now.Before(l.downUntil) {
			// The error's text may name the database's address: the counter and this line say enough.
			l.log.Warn("rate limits: the shared state cannot be reached; limiting on this replica's view")
		}
		l.downUntil, b.known = now.Add(downPause), true
		return
	}
	if lim.CallsPerMinute > 0 && b.key.Limits == lim {
		b.unsynced -= consumed
		b.view = levelAt(b.view.Limit(), b.view.Burst(), level-float64(b.unsynced), now)
		b.known = true
	}
	if lim.ConcurrentCalls > 0 {
		b.others, b.reported, b.lastBeat, b.known = others, inFlight, now, true
	}
}

// levelAt is a view holding level tokens at now, within [-burst, burst].
func levelAt(r rate.Limit, burst int, level float64, now time.Time) *rate.Limiter {
	level = math.Max(-float64(burst), math.Min(level, float64(burst)))
	v := rate.NewLimiter(r, burst)
	if level >= 0 {
		// Emptied at the moment from which refilling gives level by now.
		v.ReserveN(now.Add(-time.Duration(level/float64(r)*float64(time.Second))), burst)
		return v
	}
	v.ReserveN(now, burst)
	v.ReserveN(now, int(math.Ceil(-level)))
	return v
}

// Run reports unreported calls every quarter second, keeps this replica's calls in flight
// counted on the others (a heartbeat), and forgets idle buckets, until ctx ends.
func (l *Limiter) Run(ctx context.Context) {
	flush := time.NewTicker(flushEvery)
	defer flush.Stop()
	prune := time.NewTicker(pruneEvery)
	defer prune.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-flush.C:
			for _, b := range l.due() {
				l.sync(ctx, b)
			}
		case <-prune.C:
			l.forgetIdle()
			pctx, cancel := context.WithTimeout(ctx, syncDeadline)
			if err := l.shared.PruneRateState(pctx, l.clock().Add(-pruneBefore)); err != nil && ctx.Err() == nil {
				l.log.Warn("rate limits: pruning the shared state failed")
			}
			cancel()
		}
	}
}

// due lists the buckets with something to report, or whose calls in flight need a heartbeat.
func (l *Limiter) due() []*bucket {
	l.mu.Lock()
	defer l.mu.Unlock()
	now := l.clock()
	var out []*bucket
	for _, b := range l.buckets {
		beat := b.key.Limits.ConcurrentCalls > 0 && b.inFlight > 0 && now.Sub(b.lastBeat) >= heartbeat
		if b.unsynced > 0 || (b.key.Limits.ConcurrentCalls > 0 && b.inFlight != b.reported) || beat {
			out = append(out, b)
		}
	}
	return out
}

// forgetIdle drops buckets unused for a while with nothing to report; the next call reads the
// shared level again.
func (l *Limiter) forgetIdle() {
	l.mu.Lock()
	defer l.mu.Unlock()
	now := l.clock()
	for name, b := range l.buckets {
		if now.Sub(b.lastUsed) > idleBucket && b.inFlight == 0 && b.unsynced == 0 && b.reported == 0 {
			delete(l.buckets, name)
		}
	}
}

// Buckets is how many keys this replica holds state for.
func (l *Limiter) Buckets() int {
	l.mu.Lock()
	defer l.mu.Unlock()
	return len(l.buckets)
}
