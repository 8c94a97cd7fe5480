package mcptools

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"

	"github.com/mark3labs/mcp-go/server"

	"github.com/agent-deck/agent-deck/backend"
	"github.com/agent-deck/agent-deck/backend/core"
)

// reqState is what the endpoint learns about one HTTP request before mcp-go handles it: who
// calls, which profile the connection asked for, and the session once it is looked up or opened.
type reqState struct {
	actor      backend.Actor
	profile    Profile // server profile narrowed by ?profile= / x-agent-deck-profile
	deckHeader string
	method     string
	clientName string
	toolName   string             // the tool of a tools/call
	requestID  json.RawMessage    // the JSON-RPC id, for answers given before the transport
	call       *fastCall          // a tools/call body as the fast path needs it (fastpath.go)
	cancelOf   any                // the request id a notifications/cancelled names
	caps       backend.ClientCaps // what an initialize declares a downstream may use
	answerID   string             // the id of a client's answer to one of Agent Deck's requests (asks.go)
	answer     json.RawMessage    // that answer, as sent
	session    *backend.MCPSession
	openErr    error
	// meta says the request's params carry _meta (a progress token, for one).
	meta bool
	// follow says something may follow the request for the client (mayFollow).
	follow bool
	// fast says the fast path serves the request (it tracks the call for cancellation itself).
	fast bool
	// stream is the POST's answer: the call's own stream for what Agent Deck sends the client
	// during the call (relay.go); nil outside the transport.
	stream *jsonResponse
}

type stateKey struct{}

func withState(ctx context.Context, st *reqState) context.Context {
	return context.WithValue(ctx, stateKey{}, st)
}

func stateFrom(ctx context.Context) *reqState {
	st, _ := ctx.Value(stateKey{}).(*reqState)
	return st
}

// effectiveProfile is the narrowest of the connection's profile and the one its session was
// opened with, so a session never widens later.
func (st *reqState) effectiveProfile() Profile {
	p := st.profile
	if st.session != nil {
		// Of two profiles of one size (standard and resource), the connection's wins: either
		// may ask for the other's shape.
		if q := Profile(st.session.Profile); q.rank() >= 0 && q.rank() < p.rank() {
			p = q
		}
	}
	return p
}

// sessionResolver hands mcp-go a session id manager bound to the request, so opening and
// checking sessions run with the caller's context (actor, headers) against Postgres.
type sessionResolver struct {
	h *Handler
}

// ResolveSessionIdManager returns a Postgres-backed manager for requests and a local-only one
// for mcp-go's own housekeeping (idle sweep, shutdown), which must never end a session that
// another replica, or this one after a restart, still serves.
func (r sessionResolver) ResolveSessionIdManager(req *http.Request) server.SessionIdManager {
	if req == nil {
		return localSessions{}
	}
	st := stateFrom(req.Context())
	if st == nil {
		return localSessions{}
	}
	return &dbSessions{h: r.h, ctx: req.Context(), st: st}
}

// dbSessions implements mcp-go's SessionIdManager on the Service's session rows.
type dbSessions struct {
	h   *Handler
	ctx context.Context
	st  *reqState
}

// Generate opens a session row at initialize. On failure it returns no id and keeps the error
// for the initialize hook, which answers with it.
func (m *dbSessions) Generate() string {
	sess, err := m.h.svc.OpenSession(m.ctx, core.OpenSessionInput{ClientName: m.st.clientName,
		Profile: string(m.st.profile), Deck: m.st.deckHeader, Caps: m.st.caps})
	if err != nil {
		m.st.openErr = err
		return ""
	}
	m.st.session = &sess
	return sess.ID
}

// Validate accepts the session the request already looked up; anything else is checked again.
func (m *dbSessions) Validate(id string) (bool, error) {
	if m.st.session != nil && m.st.session.ID == id {
		return false, nil
	}
	sess, err := m.h.svc.LookupSession(m.ctx, id)
	if err != nil {
		return false, err
	}
	m.st.session = &sess
	return false, nil
}

// Terminate ends the session row (the client's DELETE). An already-gone session is fine.
func (m *dbSessions) Terminate(id string) (bool, error) {
	err := m.h.svc.TerminateSession(m.ctx, id)
	if err == nil || backend.ErrorCode(err) == backend.CodeNotFound {
		return false, nil
	}
	m.h.log.Error("ending an MCP session failed", "error", err)
	return false, errors.New("the session could not be ended; retry")
}

// localSessions is for mcp-go's housekeeping: it drops only this replica's in-memory state.
type localSessions struct{}

func (localSessions) Generate() string               { return "" }
func (localSessions) Validate(string) (bool, error)  { return false, nil }
func (localSessions) Terminate(string) (bool, error) { return false, nil }
