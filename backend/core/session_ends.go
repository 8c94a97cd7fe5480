package core

import (
	"context"
	"sync"
	"time"

	"github.com/agent-deck/agent-deck/backend"
)

// sessionEnds tells the proxy (backend.Downstream.SessionEnded) and whoever asked (OnSessionEnded)
// that an agent session which made proxied calls through this replica has ended: closed by its
// client, expired or evicted, here or on any other replica. A session ended here is announced at
// once; one ended elsewhere arrives as a change of its row on the change feed and is confirmed by
// reading the row. While the feed is down nothing is announced; once it listens again every
// session held is checked.
type sessionEnds struct {
	hub  *Hub
	held sync.Map // session id → struct{}

	mu  sync.Mutex
	fns []func(sessionID string)
}

// OnSessionEnded registers fn to be called once for each session that ended after making proxied
// calls through this replica. fn must not block.
func (s *Hub) OnSessionEnded(fn func(sessionID string)) {
	s.ends.mu.Lock()
	defer s.ends.mu.Unlock()
	s.ends.fns = append(s.ends.fns, fn)
}

// hold notes that a session made a proxied call through this replica.
func (e *sessionEnds) hold(id string) {
	if id == "" {
		return
	}
	if _, ok := e.held.Load(id); !ok {
		e.held.Store(id, struct{}{})
	}
}

// ended announces a session's end, once, if it made proxied calls here.
func (e *sessionEnds) ended(id string) {
	if _, ok := e.held.LoadAndDelete(id); !ok {
		return
	}
	if e.hub.downstream != nil {
		e.hub.downstream.SessionEnded(id)
	}
	e.mu.Lock()
	fns := append([]func(string){}, e.fns...)
	e.mu.Unlock()
	for _, fn := range fns {
		fn(id)
	}
}

// apply follows the change feed: a change of a held session's row, or the feed listening again,
// starts a check of whether the session still lives.
func (e *sessionEnds) apply(ch backend.Change) {
	var ids []string
	switch {
	case ch.Table == "" && ch.Listening, ch.Table == "mcp_sessions" && ch.ID == "":
		e.held.Range(func(k, _ any) bool { ids = append(ids, k.(string)); return true })
	case ch.Table == "mcp_sessions":
		if _, ok := e.held.Load(ch.ID); ok {
			ids = []string{ch.ID}
		}
	}
	if len(ids) == 0 {
		return
	}
	go e.check(ids)
}

// check announces the end of each session the database no longer has live.
func (e *sessionEnds) check(ids []string) {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	for _, id := range ids {
		if _, err := e.hub.store.GetSession(ctx, id); backend.IsNotFound(err) {
			e.ended(id)
		} else if err != nil && ctx.Err() == nil {
			e.hub.log.Debug("could not check whether a session ended", "session_id", id, "error", err)
		}
	}
}
