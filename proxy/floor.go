package proxy

import (
	"context"
	"slices"
	"sync"
	"time"

	"github.com/agent-deck/agent-deck/backend"
)

// This file attributes what a downstream sends without saying which call it belongs to.
//
// Every agent session shares the service's one connection. Over Streamable HTTP a request the
// downstream sends on a call's own response stream names its call (the request's context
// carries the call's relay, relay.go), and progress names its call by token on any transport.
// Everything else arrives on a channel shared by all calls: a stdio pipe, an HTTP GET stream, a
// legacy SSE stream. For those, the floor knows which agent sessions ("parties") have calls in
// flight on the connection:
//
//   - one party: it is the one, whatever the downstream sent;
//   - none: a request is refused ("no call … is in progress"); a log message trailing the last
//     call's result (within lateGrace) goes to that call's session, anything later is dropped.
//     Such a message also shows that the downstream writes after its results: from then on a
//     log message that comes within trailWindow of the end of another session's call is
//     dropped, since it may be that call's;
//   - several: a request waits, up to ownerWait, for all but one party's calls to end, and is
//     refused if they do not; from then on the service is known to talk back and its calls take
//     turns, one party at a time (serial), so the question never comes up again. A log message
//     with several parties in flight is dropped.
//
// Until a service has talked back that way, calls of every session run concurrently and pay one
// lock, twice, for being counted.

// ownerWait bounds how long a downstream's request waits for the calls of other sessions to end
// when several sessions have calls in flight.
const ownerWait = 5 * time.Second

// trailWindow is how long after a call of another session ended a log message is still taken
// as possibly that call's (some servers write notifications after the result).
const trailWindow = 250 * time.Millisecond

// floor is the record of one connection's calls in flight, and of the agent sessions that used
// it. mu is never held while talking to anyone.
type floor struct {
	mu    sync.Mutex
	calls []*turn // in flight, oldest first
	queue []*turn // waiting their turn (serial), in arrival order
	last  *turn   // the call that ended last
	ended time.Time
	// trails says the downstream was seen writing a log message after its call's result.
	trails bool
	// moved is closed and replaced whenever calls change; made only while someone waits on it.
	moved chan struct{}
	// users are the agent sessions that called through the connection and have not ended;
	// abandoned is when the last of them ended (zero while one remains, or none ever came).
	users     map[string]struct{}
	abandoned time.Time

	// roots: asked says the downstream asked for roots at least once; of is the party whose
	// roots it got last; got is closed when an answer is given (made only while awaited); lazy
	// says the downstream did not ask again, misses times in a row, when told the roots changed.
	roots struct {
		asked, lazy bool
		misses      int
		of          string
		got         chan struct{}
	}
}

// turn is one call on the floor.
type turn struct {
	party string // the agent session, "" for a call made without one (REST)
	relay backend.Relay
	ready chan struct{} // closed when a queued turn is let on
}

func partyOf(r backend.Relay) string {
	if r == nil {
		return ""
	}
	return r.SessionID()
}

// enter puts a call on the floor. When serial, the call waits until every call in flight is of
// its own party. The returned func takes it off.
func (f *floor) enter(ctx context.Context, r backend.Relay, serial bool) (func(), error) {
	t := &turn{party: partyOf(r), relay: r}
	f.mu.Lock()
	if t.party != "" {
		if f.users == nil {
			f.users = map[string]struct{}{}
		}
		f.users[t.party] = struct{}{}
		f.abandoned = time.Time{}
	}
	if !serial || (len(f.queue) == 0 && f.allOfLocked(t.party)) {
		f.calls = append(f.calls, t)
		f.mu.Unlock()
		return func() { f.leave(t) }, nil
	}
	t.ready = make(chan struct{})
	f.queue = append(f.queue, t)
	f.mu.Unlock()
	select {
	case <-t.ready:
		return func() { f.leave(t) }, nil
	case <-ctx.Done():
	}
	f.mu.Lock()
	if i := slices.Index(f.queue, t); i >= 0 {
		f.queue = slices.Delete(f.queue, i, i+1)
		f.promoteLocked()
		f.mu.Unlock()
		return nil, ctx.Err()
	}
	f.mu.Unlock()
	f.leave(t) // let on just as it gave up
	return nil, ctx.Err()
}

// allOfLocked reports whether every call in flight is of party.
func (f *floor) allOfLocked(party string) bool {
	for _, c := range f.calls {
		if c.party != party {
			return false
		}
	}
	return true
}

// leave takes a call off the floor and lets the next party on.
func (f *floor) leave(t *turn) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if i := slices.Index(f.calls, t); i >= 0 {
		f.calls = slices.Delete(f.calls, i, i+1)
	}
	f.last, f.ended = t, time.Now()
	f.promoteLocked()
	if f.moved != nil {
		close(f.moved)
		f.moved = nil
	}
}

// promoteLocked lets the first waiting party on, with every waiting call of that party, once
// the calls in flight allow it.
func (f *floor) promoteLocked() {
	if len(f.queue) == 0 || !f.allOfLocked(f.queue[0].party) {
		return
	}
	party := f.queue[0].party
	rest := f.queue[:0]
	for _, t := range f.queue {
		if t.party == party {
			f.calls = append(f.calls, t)
			close(t.ready)
		} else {
			rest = append(rest, t)
		}
	}
	clear(f.queue[len(rest):])
	f.queue = rest
}

// ownerLocked is the relay of the one party with calls in flight (its latest call's); n is how
// many parties have calls in flight.
func (f *floor) ownerLocked() (r backend.Relay, party string, n int) {
	for i := len(f.calls) - 1; i >= 0; i-- {
		c := f.calls[i]
		if n == 0 {
			r, party, n = c.relay, c.party, 1
		} else if c.party != party {
			return nil, "", 2
		}
	}
	return r, party, n
}

// refusal texts a downstream reads when its request cannot be attributed.
const (
	refuseNoCall   = "no call of an agent session is in progress on this connection, so there is nobody to ask"
	refuseNoAgent  = "the call in progress was not made by an agent session (it came through the REST API), so there is nobody to ask"
	refuseMixedUse = "calls of several agent sessions are in progress on this connection and Agent Deck cannot tell which one this request belongs to; " +
		"calls to this service now take turns, so ask again during the next call"
)

// owner attributes a downstream's request that names no call: see the file comment. It returns
// the relay to ask, or the text to refuse with. A request made while several sessions have
// calls in flight switches the service to serial (onSerial).
func (f *floor) owner(ctx context.Context, onSerial func()) (backend.Relay, string) {
	var timer *time.Timer
	for {
		f.mu.Lock()
		r, party, n := f.ownerLocked()
		switch {
		case n == 0:
			f.mu.Unlock()
			return nil, refuseNoCall
		case n == 1 && party == "":
			f.mu.Unlock()
			return nil, refuseNoAgent
		case n == 1:
			f.mu.Unlock()
			return r, ""
		}
		if f.moved == nil {
			f.moved = make(chan struct{})
		}
		moved := f.moved
		f.mu.Unlock()
		onSerial()
		if timer == nil {
			timer = time.NewTimer(ownerWait)
			defer timer.Stop()
		}
		select {
		case <-moved:
		case <-timer.C:
			return nil, refuseMixedUse
		case <-ctx.Done():
			return nil, "the request was cancelled"
		}
	}
}

// noteOwner attributes a log message: the one party in flight (unless the downstream trails and
// a call of another party ended within trailWindow), or the last call's party within lateGrace
// when none is in flight; nil when it cannot tell.
func (f *floor) noteOwner() backend.Relay {
	f.mu.Lock()
	defer f.mu.Unlock()
	r, party, n := f.ownerLocked()
	since := time.Since(f.ended)
	switch n {
	case 0:
		if f.last != nil && since < lateGrace {
			f.trails = true
			return f.last.relay
		}
		return nil
	case 1:
		if f.trails && f.last != nil && f.last.party != party && since < trailWindow {
			return nil // perhaps the last words of the call that just ended
		}
		return r
	}
	return nil
}

// forget drops an ended session from the users; it reports whether it was the last one.
func (f *floor) forget(session string) bool {
	f.mu.Lock()
	defer f.mu.Unlock()
	if _, ok := f.users[session]; !ok {
		return false
	}
	delete(f.users, session)
	if len(f.users) == 0 {
		f.abandoned = time.Now()
		return true
	}
	return false
}

// abandonedSince is when the last user ended, zero while a user remains (or none ever came).
func (f *floor) abandonedSince() time.Time {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.abandoned
}

// rootsStale reports whether the downstream, which asks for roots, last got another party's.
func (f *floor) rootsStale(party string) (stale, lazy bool) {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.roots.asked && f.roots.of != party, f.roots.lazy
}

// rootsAsked records that the downstream asks for roots.
func (f *floor) rootsAsked() {
	f.mu.Lock()
	f.roots.asked = true
	f.mu.Unlock()
}

// rootsGiven records that the downstream got party's roots.
func (f *floor) rootsGiven(party string) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.roots.of = party
	if f.roots.got != nil {
		close(f.roots.got)
		f.roots.got = nil
	}
}

// rootsAwait returns a channel closed at the next roots answer given.
func (f *floor) rootsAwait() <-chan struct{} {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.roots.got == nil {
		f.roots.got = make(chan struct{})
	}
	return f.roots.got
}

// rootsOf is the party whose roots the downstream got last.
func (f *floor) rootsOf() string {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.roots.of
}

// rootsIgnored records that the downstream did not ask again when told its roots changed; after
// lazyAfter times in a row it is not waited for any more.
func (f *floor) rootsIgnored(lazyAfter int) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.roots.misses++
	f.roots.lazy = f.roots.misses >= lazyAfter
}

// rootsAnswered records that the downstream asked again when told its roots changed.
func (f *floor) rootsAnswered() {
	f.mu.Lock()
	f.roots.misses = 0
	f.mu.Unlock()
}
