package proxy

import (
	"context"
	"errors"
	"fmt"
	"sync"
)

// errResultMemoryFull is a read that waited for room in the result budget until its caller's
// time ran out.
var errResultMemoryFull = errors.New("waited for room in the result memory budget")

// heldCopies is how many bytes of memory one byte of a downstream answer costs while it is in
// flight: the message as the transport read it and the result decoded from it live together
// until the call is done with it.
const heldCopies = 2

// budget bounds the memory of downstream answers held at once, across every call and every
// service (Options.ResultMemory). Each byte is charged as it is read, before the transport
// buffers it, heldCopies times; the charge is given back when the call that reads it is done
// with its result (it has been returned or spilled), or, for what no call waits on (tool lists,
// notifications, a stdio line), once the message is handed over. A reader with no room waits,
// and the downstream in turn waits on its socket or pipe.
//
// One ticket at a time is privileged: it takes what it needs without waiting, while the others
// share the budget less one whole message (the hard cap, charged). The privileged ticket thus
// never waits on another and finishes, so waiting readers cannot deadlock, and memory stays
// under the budget. A ticket that must wait becomes privileged when no other is.
type budget struct {
	limit int64
	whole int64 // the most one message is charged: the hard cap, heldCopies times

	mu      sync.Mutex
	used    int64
	priv    *ticket
	changed chan struct{} // closed and replaced whenever a charge is given back
}

// ticket is the charge of one reader: a call, or a stream or pipe no call owns.
type ticket struct {
	b    *budget
	held int64
	// done is set by release: what is read for the call afterwards (a stream it no longer waits
	// on) is not its to hold, and is charged nothing.
	done bool
}

// newBudget bounds answers to limit bytes of memory, for messages of at most hardCap bytes.
func newBudget(limit, hardCap int64) *budget {
	return &budget{limit: limit, whole: heldCopies * hardCap, changed: make(chan struct{})}
}

func (b *budget) ticket() *ticket { return &ticket{b: b} }

// take charges n bytes just read to t, waiting while there is no room for them; it fails only
// when ctx ends first. A nil ticket charges nothing.
func (t *ticket) take(ctx context.Context, n int) error {
	if t == nil || n <= 0 {
		return nil
	}
	b, c := t.b, int64(n)*heldCopies
	b.mu.Lock()
	for {
		if t.done {
			b.mu.Unlock()
			return nil
		}
		if b.priv == nil && b.used+c > b.limit-b.whole {
			b.priv = t
		}
		if b.priv == t || b.used+c <= b.limit-b.whole {
			b.used += c
			t.held += c
			b.mu.Unlock()
			return nil
		}
		wait := b.changed
		b.mu.Unlock()
		select {
		case <-wait:
		case <-ctx.Done():
			return fmt.Errorf("%w: %w", errResultMemoryFull, context.Cause(ctx))
		}
		b.mu.Lock()
	}
}

// give returns the charge of n bytes read (all of t's charge at most).
func (t *ticket) give(n int64) {
	if t != nil && n > 0 {
		t.giveBack(n*heldCopies, false)
	}
}

// release gives back all of t's charge, for good.
func (t *ticket) release() {
	if t != nil {
		t.giveBack(-1, true)
	}
}

func (t *ticket) giveBack(c int64, done bool) {
	b := t.b
	b.mu.Lock()
	defer b.mu.Unlock()
	if c < 0 || c > t.held {
		c = t.held
	}
	t.held -= c
	b.used -= c
	t.done = t.done || done
	if t.held == 0 && b.priv == t {
		b.priv = nil
	}
	close(b.changed)
	b.changed = make(chan struct{})
}

// handOver moves the charge of n bytes read from t to the ticket of the call they answer, which
// holds them from now on (or, done already, gives them back). The total does not change, and a
// privileged reader hands its privilege over with the message: no other reader may take a
// whole message more until that call is done with it.
func (t *ticket) handOver(to *ticket, n int64) {
	b := t.b
	b.mu.Lock()
	defer b.mu.Unlock()
	c := min(n*heldCopies, t.held)
	t.held -= c
	switch {
	case to.done:
		b.used -= c
		if b.priv == t && t.held == 0 {
			b.priv = nil
		}
	default:
		to.held += c
		if b.priv == t {
			b.priv = to
		}
	}
	close(b.changed)
	b.changed = make(chan struct{})
}

type ticketKey struct{}

// withTicket makes the answers read for requests made with ctx charge t.
func withTicket(ctx context.Context, t *ticket) context.Context {
	return context.WithValue(ctx, ticketKey{}, t)
}

func ticketFrom(ctx context.Context) *ticket {
	t, _ := ctx.Value(ticketKey{}).(*ticket)
	return t
}
