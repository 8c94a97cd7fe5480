package mcptools

import (
	"context"
	"net/http"
	"sync"
	"time"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

	"github.com/agent-deck/agent-deck/backend"
)

// keeper decides how long this replica holds a session's transport state in memory: mcp-go's
// session with its buffered channels (about 9 KB), the events stored for resuming its streams,
// and its registration for notifications. That state is a cache: the session lives in its row,
// and any replica serves it without the state (sessions.go). So it is held only while it can be
// used: while a request of the session runs here (a GET stream included, for as long as it is
// open), and for linger after one that can be followed by something for the client (mayFollow):
// a stream that may be resumed, a notification that trails a call's answer. After a request that
// cannot, it is dropped at once. The session's next request here restores what the transport
// needs (restore).
type keeper struct {
	linger time.Duration
	drop   func(id string) // drops the transport state of a session on this replica

	mu sync.Mutex
	m  map[string]*sessionUse
}

// sessionUse is one session's use of this replica.
type sessionUse struct {
	busy     int   // requests of the session running here
	until    int64 // kept at least until then (unix nanoseconds), for what may follow a request
	restored bool  // registered again by restore, not by the transport (see beforeStream)
	// dropping is closed when the session's state has been dropped; a request that begins
	// meanwhile waits for it, so it never runs on half-dropped state.
	dropping chan struct{}
}

func newKeeper(linger time.Duration, drop func(string)) *keeper {
	return &keeper{linger: linger, drop: drop, m: map[string]*sessionUse{}}
}

// begin notes that a request of session id starts here.
func (k *keeper) begin(id string) {
	k.mu.Lock()
	for {
		u := k.m[id]
		if u == nil {
			u = &sessionUse{}
			k.m[id] = u
		}
		if u.dropping == nil {
			u.busy++
			k.mu.Unlock()
			return
		}
		ch := u.dropping
		k.mu.Unlock()
		<-ch
		k.mu.Lock()
	}
}

// end notes that a request of session id ended here; began says whether begin was called for
// it (an initialize learns its session only as it ends), linger whether something may follow
// it. With nothing else to keep it for, the session's state is dropped now.
func (k *keeper) end(id string, began, linger bool) {
	now := time.Now().UnixNano()
	k.mu.Lock()
	u := k.m[id]
	if u == nil {
		u = &sessionUse{}
		k.m[id] = u
	}
	if began && u.busy > 0 {
		u.busy--
	}
	if linger {
		u.until = max(u.until, now+int64(k.linger))
	}
	if !k.idle(u, now) {
		k.mu.Unlock()
		return
	}
	u.dropping = make(chan struct{})
	k.mu.Unlock()
	k.dropNow(id)
}

// idle says u's state may be dropped at now. The caller holds mu.
func (k *keeper) idle(u *sessionUse, now int64) bool {
	return u.busy == 0 && u.dropping == nil && now >= u.until
}

// dropNow drops session id's state, whose use is marked dropping, and forgets it.
func (k *keeper) dropNow(id string) {
	k.drop(id)
	k.mu.Lock()
	close(k.m[id].dropping)
	delete(k.m, id)
	k.mu.Unlock()
}

// markRestored notes that restore registered session id again.
func (k *keeper) markRestored(id string) {
	k.mu.Lock()
	defer k.mu.Unlock()
	if u := k.m[id]; u != nil {
		u.restored = true
	}
}

// takeRestored reports whether session id's registration is restore's, and forgets it.
func (k *keeper) takeRestored(id string) bool {
	k.mu.Lock()
	defer k.mu.Unlock()
	u := k.m[id]
	if u == nil || !u.restored {
		return false
	}
	u.restored = false
	return true
}

// sweep drops the state of every session kept for what may follow a request once its linger
// has passed.
func (k *keeper) sweep(now int64) {
	k.mu.Lock()
	var idle []string
	for id, u := range k.m {
		if k.idle(u, now) {
			u.dropping = make(chan struct{})
			idle = append(idle, id)
		}
	}
	k.mu.Unlock()
	for _, id := range idle {
		k.dropNow(id)
	}
}

// run sweeps every half linger (at least every second) until ctx ends.
func (k *keeper) run(ctx context.Context) {
	t := time.NewTicker(max(k.linger/2, time.Second))
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case now := <-t.C:
			k.sweep(now.UnixNano())
		}
	}
}

// busy says a request of session id runs here (for tests).
func (k *keeper) busy(id string) bool {
	k.mu.Lock()
	defer k.mu.Unlock()
	u := k.m[id]
	return u != nil && u.busy > 0
}

// held counts the sessions whose state this replica holds (for tests).
func (k *keeper) held() int {
	k.mu.Lock()
	defer k.mu.Unlock()
	return len(k.m)
}

// dropLocal drops the transport state of session id on this replica, as mcp-go's own idle sweep
// would: a DELETE of the session handled with the local-only session manager (localSessions),
// which ends nothing in the database.
func (h *Handler) dropLocal(id string) {
	r, err := http.NewRequestWithContext(context.Background(), http.MethodDelete, "/mcp", nil)
	if err != nil {
		return
	}
	r.Header.Set(backend.HeaderMCPSession, id)
	h.http.ServeHTTP(discardResponse{h: http.Header{}}, r)
	h.streams.Delete(id) // no stream of it is open: a stream is a request
}

// restore registers again the session a request of a session runs in, when this replica had
// dropped it (or never had it): what a downstream sends after the call answered then waits in
// it for the session's next request here, as it does in a session the transport registered.
func (h *Handler) restore(ctx context.Context, st *reqState) {
	if st.session == nil || !st.follow || st.method == "" || st.method == string(mcp.MethodInitialize) {
		return
	}
	cs := server.ClientSessionFromContext(ctx)
	if cs == nil || cs.SessionID() != st.session.ID {
		return
	}
	if h.mcp.RegisterSession(ctx, cs) == nil {
		h.keep.markRestored(st.session.ID)
	}
}

// beforeStream makes way for a GET stream of session id: the transport registers the stream's
// own session and refuses to when restore registered one already.
func (h *Handler) beforeStream(ctx context.Context, id string) {
	if h.keep.takeRestored(id) {
		h.mcp.UnregisterSession(ctx, id)
	}
}

// discardResponse is the answer of dropLocal's request, which nobody reads.
type discardResponse struct{ h http.Header }

func (d discardResponse) Header() http.Header       { return d.h }
func (discardResponse) Write(b []byte) (int, error) { return len(b), nil }
func (discardResponse) WriteHeader(int)             {}
