package mcptools

import (
	"context"
	"net/http"
	"net/http/httptest"
	"slices"
	"sync"
	"testing"
	"time"
)

// TestKeeperHoldsStateOnlyWhileItCanBeUsed: a session's transport state is dropped at once after
// a request nothing can follow, kept for the linger after one something can follow, and never
// dropped while a request of the session (a GET stream, a call) runs here.
func TestKeeperHoldsStateOnlyWhileItCanBeUsed(t *testing.T) {
	const linger = time.Minute
	var mu sync.Mutex
	var dropped []string
	k := newKeeper(linger, func(id string) { mu.Lock(); dropped = append(dropped, id); mu.Unlock() })
	gone := func(id string) bool { mu.Lock(); defer mu.Unlock(); return slices.Contains(dropped, id) }
	later := time.Now().Add(2 * linger).UnixNano()

	k.end("quiet", false, false) // an initialize of a client that declared nothing
	if !gone("quiet") {
		t.Error("a quiet session's state outlived its request")
	}

	k.begin("talks")
	k.end("talks", true, true) // a call of a session that set a log level
	k.sweep(time.Now().UnixNano())
	if gone("talks") {
		t.Error("a session that may be sent what trails its call was dropped before its linger")
	}
	k.begin("talks")
	k.end("talks", true, false) // a quiet request inside the linger keeps the linger
	if gone("talks") {
		t.Error("a quiet request cut short the linger of the one before")
	}
	k.sweep(later)
	if !gone("talks") {
		t.Error("a session idle past its linger was kept")
	}

	k.begin("stream") // a GET stream, open
	k.begin("stream") // and a call
	k.end("stream", true, false)
	k.sweep(later)
	if gone("stream") {
		t.Error("a session with a stream open here was dropped")
	}
	k.end("stream", true, true) // the stream ends: it may be resumed within the linger
	k.sweep(time.Now().UnixNano())
	if gone("stream") {
		t.Error("a stream's session was dropped before the client could resume it")
	}
	k.sweep(later)
	if !gone("stream") || k.held() != 0 {
		t.Errorf("dropped %v, %d held, want every session dropped", dropped, k.held())
	}
}

// TestKeeperRequestWaitsForADrop: a request that begins while its session's state is being
// dropped runs after the drop, never on half-dropped state.
func TestKeeperRequestWaitsForADrop(t *testing.T) {
	var mu sync.Mutex
	var events []string
	note := func(e string) { mu.Lock(); events = append(events, e); mu.Unlock() }
	inDrop, release := make(chan struct{}), make(chan struct{})
	k := newKeeper(time.Minute, func(string) { close(inDrop); <-release; note("dropped") })
	go k.end("s", false, false)
	<-inDrop
	began := make(chan struct{})
	go func() { k.begin("s"); note("began"); close(began) }()
	time.Sleep(20 * time.Millisecond) // room for a begin that does not wait to overtake the drop
	close(release)
	<-began
	mu.Lock()
	defer mu.Unlock()
	if !slices.Equal(events, []string{"dropped", "began"}) {
		t.Fatalf("events %v, want the drop to end before the request begins", events)
	}
	k.mu.Lock()
	defer k.mu.Unlock()
	if u := k.m["s"]; u == nil || u.busy != 1 || u.dropping != nil {
		t.Fatalf("after the drop the request's use is %+v, want one request running", u)
	}
}

// TestTransportStateOfSessions: on the real endpoint, a session whose client declared nothing
// leaves no transport state behind its requests; one that may be sent something later keeps it
// until its linger passed, gets it back with its next request, and keeps it while a GET stream
// of it is open, however long.
func TestTransportStateOfSessions(t *testing.T) {
	f := newFastFixture(t)
	registered := func(id string) bool {
		// Queues a harmless message in the session as the transport registered it, if it did.
		return f.h.mcp.SendNotificationToSpecificClient(id, "notifications/message",
			map[string]any{"level": "info", "data": "probe"}) == nil
	}
	farAhead := time.Now().Add(2 * DefaultTransportLinger).UnixNano()

	quiet := f.open(t, "fast")
	if registered(quiet) || f.h.keep.held() != 0 {
		t.Errorf("a quiet session's state outlived its requests (%d held)", f.h.keep.held())
	}

	asks := f.openWith(t, "fast", `{"roots":{},"elicitation":{},"sampling":{}}`)
	if registered(asks) || f.h.keep.held() != 0 {
		t.Errorf("a session that sets no log level kept its state, whatever it declared (%d held)", f.h.keep.held())
	}

	talks := f.openWith(t, "fast", `{}`)
	f.post(t, talks, `{"jsonrpc":"2.0","id":4,"method":"logging/setLevel","params":{"level":"info"}}`)
	if !registered(talks) {
		t.Fatal("a session that may be sent something later lost its state at once")
	}
	f.h.keep.sweep(farAhead)
	if registered(talks) {
		t.Fatal("a session idle past its linger kept its state")
	}
	f.post(t, talks, `{"jsonrpc":"2.0","id":5,"method":"ping"}`)
	if !registered(talks) {
		t.Fatal("the session's next request did not restore its state")
	}

	ctx, cancel := context.WithCancel(context.Background())
	r := f.request(talks, "", "").WithContext(ctx)
	r.Method, r.Body = http.MethodGet, http.NoBody
	r.Header.Set("Accept", "text/event-stream")
	done := make(chan struct{})
	go func() { defer close(done); f.h.ServeHTTP(httptest.NewRecorder(), r) }()
	for !f.h.keep.busy(talks) {
		select {
		case <-done:
			t.Fatal("the GET stream ended at once")
		case <-time.After(time.Millisecond):
		}
	}
	f.h.keep.sweep(farAhead)
	if !registered(talks) {
		t.Error("a session with a GET stream open lost its state")
	}
	cancel()
	<-done
	f.h.keep.sweep(farAhead)
	if registered(talks) || f.h.keep.held() != 0 {
		t.Errorf("after its stream closed and its linger passed the session kept its state (%d held)", f.h.keep.held())
	}
}
