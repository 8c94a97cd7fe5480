package proxy

import (
	"context"
	"encoding/json"
	"testing"
	"time"

	"github.com/agent-deck/agent-deck/backend"
)

// namedRelay is an agent session that answers nothing; only its name matters here.
type namedRelay string

func (n namedRelay) SessionID() string                               { return string(n) }
func (n namedRelay) Wants() backend.RelayWants                       { return backend.RelayWants{} }
func (n namedRelay) ProgressToken() any                              { return nil }
func (n namedRelay) Notify(context.Context, string, json.RawMessage) {}
func (n namedRelay) Request(context.Context, string, json.RawMessage) (json.RawMessage, error) {
	return nil, nil
}

func enterNow(t *testing.T, f *floor, r backend.Relay, serial bool) func() {
	t.Helper()
	leave, err := f.enter(context.Background(), r, serial)
	if err != nil {
		t.Fatal(err)
	}
	return leave
}

// TestFloorAttributes: a request that names no call goes to the one session with calls in
// flight; with none it is refused; with several it waits for all but one to end, and is
// refused (switching the service to taking turns) if they do not.
func TestFloorAttributes(t *testing.T) {
	ctx := context.Background()
	never := func() {}
	var f floor
	if r, why := f.owner(ctx, never); r != nil || why != refuseNoCall {
		t.Errorf("no call in flight: %v %q", r, why)
	}
	leaveA := enterNow(t, &f, namedRelay("A"), false)
	leaveA2 := enterNow(t, &f, namedRelay("A"), false)
	if r, _ := f.owner(ctx, never); r == nil || r.SessionID() != "A" {
		t.Errorf("two calls of A in flight: %v", r)
	}
	leaveB := enterNow(t, &f, namedRelay("B"), false)
	serial := make(chan struct{}, 1)
	got := make(chan backend.Relay, 1)
	go func() {
		r, _ := f.owner(ctx, func() { serial <- struct{}{} })
		got <- r
	}()
	<-serial // A and B in flight: the request waits, and the service must take turns
	leaveA()
	leaveA2()
	if r := <-got; r == nil || r.SessionID() != "B" {
		t.Errorf("once A's calls ended the request went to %v, want B", r)
	}
	leaveB()

	leaveRest := enterNow(t, &f, nil, false)
	if r, why := f.owner(ctx, never); r != nil || why != refuseNoAgent {
		t.Errorf("a REST call in flight: %v %q", r, why)
	}
	leaveRest()
}

// TestFloorTakesTurns: once serial, a call of another session waits until every call in flight
// has ended; calls of the session on the floor go on at once.
func TestFloorTakesTurns(t *testing.T) {
	var f floor
	leaveA := enterNow(t, &f, namedRelay("A"), true)
	leaveA2 := enterNow(t, &f, namedRelay("A"), true) // same session: no wait
	entered := make(chan func(), 1)
	go func() {
		leave, err := f.enter(context.Background(), namedRelay("B"), true)
		if err == nil {
			entered <- leave
		}
	}()
	for {
		f.mu.Lock()
		queued := len(f.queue)
		f.mu.Unlock()
		if queued == 1 {
			break
		}
		time.Sleep(time.Millisecond)
	}
	// A waiting call of B holds later calls of A back too, so B is not starved.
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := f.enter(ctx, namedRelay("A"), true); err == nil {
		t.Error("a third call of A went ahead of the waiting call of B")
	}
	leaveA()
	select {
	case <-entered:
		t.Fatal("B entered while A still had a call in flight")
	default:
	}
	leaveA2()
	leaveB := <-entered
	if r, _ := f.owner(context.Background(), func() {}); r == nil || r.SessionID() != "B" {
		t.Errorf("B on the floor: owner %v", r)
	}
	leaveB()
}

// TestFloorLogMessages: a log message goes to the one session in flight, or to the last call's
// session shortly after it ended; never when several are in flight, nor, once the downstream
// was seen writing after a result, when another session's call just ended.
func TestFloorLogMessages(t *testing.T) {
	var f floor
	if f.noteOwner() != nil {
		t.Error("nobody has called: a log message went somewhere")
	}
	leaveA := enterNow(t, &f, namedRelay("A"), false)
	if r := f.noteOwner(); r == nil || r.SessionID() != "A" {
		t.Errorf("A in flight: %v", r)
	}
	leaveB := enterNow(t, &f, namedRelay("B"), false)
	if r := f.noteOwner(); r != nil {
		t.Errorf("A and B in flight: went to %v", r.SessionID())
	}
	leaveA()
	if r := f.noteOwner(); r == nil || r.SessionID() != "B" {
		t.Errorf("A just ended, B in flight, nothing ever trailed: %v", r)
	}
	leaveB()
	if r := f.noteOwner(); r == nil || r.SessionID() != "B" { // B's result came before it
		t.Errorf("B just ended: %v", r)
	}
	leaveA = enterNow(t, &f, namedRelay("A"), false)
	if r := f.noteOwner(); r != nil {
		t.Errorf("B just ended and the downstream trails, A in flight: went to %v", r.SessionID())
	}
	leaveA()
}

// TestFloorUsers: the connection knows which sessions used it, until they end.
func TestFloorUsers(t *testing.T) {
	var f floor
	enterNow(t, &f, namedRelay("A"), false)()
	enterNow(t, &f, namedRelay("B"), false)()
	if f.forget("C") || f.forget("A") || !f.abandonedSince().IsZero() {
		t.Fatal("A's end left B, or C counted")
	}
	if !f.forget("B") || f.abandonedSince().IsZero() {
		t.Fatal("B was the last user")
	}
	enterNow(t, &f, namedRelay("D"), false)()
	if !f.abandonedSince().IsZero() {
		t.Error("a new session's call did not take the connection back")
	}
}

// TestTalksBackKnownFromTheTarget: a service the core knows to talk back takes turns from its
// first call, and the proxy reports what it learned.
func TestTalksBackKnownFromTheTarget(t *testing.T) {
	p := New(Options{})
	t.Cleanup(func() { _ = p.Close(context.Background()) })
	o, err := p.begin(backend.Target{ServiceID: "svc-known", ServiceName: "known", Type: backend.ServiceLocal, TalksBack: true}, false)
	if err != nil {
		t.Fatal(err)
	}
	if !o.s.talksBack.Load() {
		t.Error("the target's TalksBack did not reach the service")
	}
	if st, ok := p.Status("svc-known"); !ok || !st.TalksBack {
		t.Errorf("status = %+v %v", st, ok)
	}
}
