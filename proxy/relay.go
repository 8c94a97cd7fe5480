package proxy

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/agent-deck/agent-deck/backend"
	"github.com/mark3labs/mcp-go/client/transport"
	"github.com/mark3labs/mcp-go/mcp"
)

// This file carries what a downstream sends during a call back to the agent session that
// made it (backend.Relay), and nowhere else.
//
// Progress rides on any connection: each call that asked for progress gets a fresh random
// downstream token, mapped back to the agent's token and relay; a token is only honoured on
// the connection its call was sent on.
//
// Everything else (log messages, elicitation, sampling, a downstream's cancellation of its own
// request) cannot be tied to one call on a shared connection: over stdio they carry no request
// id at all. So a session that can be asked something or asked for log messages gets a lane:
// a connection of its own to the service, declaring what that session declared, used only by
// its calls. Every other session keeps sharing one connection, and its calls cost nothing more.

// progressRoute is where a downstream progress token leads.
type progressRoute struct {
	c     *conn
	relay backend.Relay
	token any
}

// withProgress maps the agent's progress token of this call, if any, to a downstream token on
// params; the returned func ends the mapping.
func (p *Proxy) withProgress(ctx context.Context, params *callParams) func() {
	r := backend.RelayFrom(ctx)
	if r == nil || r.ProgressToken() == nil {
		return func() {}
	}
	var b [12]byte
	_, _ = rand.Read(b[:])
	token := "adk-" + hex.EncodeToString(b[:])
	params.Meta = map[string]any{"progressToken": token}
	p.progress.Store(token, &progressRoute{relay: r, token: r.ProgressToken()})
	return func() { time.AfterFunc(lateGrace, func() { p.progress.Delete(token) }) }
}

// lateGrace is how long after a call ends what the downstream sends for it is still carried
// to its session: some servers write notifications from another goroutine than the result, so
// the last ones can trail it. The session's next stream delivers them.
const lateGrace = 2 * time.Second

// routeProgress sends a downstream progress notification to the call it belongs to, with the
// agent's own token, masked of the service's secrets.
func (c *conn) routeProgress(n mcp.JSONRPCNotification) {
	token, _ := n.Params.AdditionalFields["progressToken"].(string)
	v, ok := c.svc.p.progress.Load(token)
	if !ok {
		return
	}
	route := v.(*progressRoute)
	if !route.bind(c) {
		return // a token of a call on another connection
	}
	fields := map[string]any{}
	for k, v := range n.Params.AdditionalFields {
		fields[k] = v
	}
	fields["progressToken"] = route.token
	c.relayNotify(route.relay, string(mcp.MethodNotificationProgress), fields)
}

// bind ties a route to the first connection that reports on it (the one its call went out
// on): a token reported on any other connection is ignored.
func (r *progressRoute) bind(c *conn) bool {
	c.svc.p.progressMu.Lock()
	defer c.svc.p.progressMu.Unlock()
	if r.c == nil {
		r.c = c
	}
	return r.c == c
}

// relayNotify masks a notification's params of the service's secrets and hands it to relay.
func (c *conn) relayNotify(relay backend.Relay, method string, fields map[string]any) {
	raw, err := json.Marshal(fields)
	if err != nil {
		return
	}
	c.svc.mu.Lock()
	scrub := c.svc.scrub
	c.svc.mu.Unlock()
	if scrub != nil {
		raw = scrub.JSON(raw)
	}
	relay.Notify(c.ctx, method, raw)
}

// lane is the per-session part of a connection: its session, what it declared, and the calls
// of that session in flight (the most recent one carries what the downstream sends).
type lane struct {
	session string
	wants   backend.RelayWants
	level   string // the log level last set on the downstream

	mu    sync.Mutex
	calls []backend.Relay
	// last is the relay of the session's last call, for what trails its result (lateGrace).
	last    backend.Relay
	lastEnd time.Time
	inbound map[string]context.CancelFunc // downstream request id → cancel
}

// current is the relay of the session's most recent call still in flight, or of its last call
// within lateGrace of its end; nil when none. Every relay of a lane is of the same session.
func (l *lane) current() backend.Relay {
	l.mu.Lock()
	defer l.mu.Unlock()
	if len(l.calls) == 0 {
		if l.last != nil && time.Since(l.lastEnd) < lateGrace {
			return l.last
		}
		return nil
	}
	return l.calls[len(l.calls)-1]
}

// enter notes a call of the session in flight; the returned func ends it.
func (l *lane) enter(r backend.Relay) func() {
	l.mu.Lock()
	l.calls = append(l.calls, r)
	l.mu.Unlock()
	return func() {
		l.mu.Lock()
		defer l.mu.Unlock()
		for i, x := range l.calls {
			if x == r {
				l.calls = append(l.calls[:i], l.calls[i+1:]...)
				l.last, l.lastEnd = r, time.Now()
				break
			}
		}
	}
}

// capabilities are the client capabilities declared to a downstream: a lane declares what its
// session declared; a shared connection declares nothing.
func (c *conn) capabilities() mcp.ClientCapabilities {
	var caps mcp.ClientCapabilities
	if c.lane == nil {
		return caps
	}
	if c.lane.wants.Elicitation {
		caps.Elicitation = &mcp.ElicitationCapability{}
	}
	if c.lane.wants.Sampling {
		caps.Sampling = &mcp.SamplingCapability{}
	}
	return caps
}

// onLaneMessage handles a lane's notifications other than progress and list changes.
func (c *conn) onLaneMessage(n mcp.JSONRPCNotification) {
	switch n.Method {
	case string(mcp.MethodNotificationMessage):
		if r := c.lane.current(); r != nil {
			c.relayNotify(r, n.Method, n.Params.AdditionalFields)
		}
	case string(mcp.MethodNotificationCancelled):
		id := fmt.Sprint(n.Params.AdditionalFields["requestId"])
		c.lane.mu.Lock()
		cancel := c.lane.inbound[id]
		c.lane.mu.Unlock()
		if cancel != nil {
			cancel()
		}
	}
}

// onRequest answers a downstream's request (elicitation, sampling) through the relay of the
// session's call in flight. What the agent's client says passes back raw; a refusal names
// what is missing; other failures say only that the agent did not answer.
func (c *conn) onRequest(ctx context.Context, req transport.JSONRPCRequest) (*transport.JSONRPCResponse, error) {
	if req.Method == string(mcp.MethodPing) {
		return transport.NewJSONRPCResultResponse(req.ID, json.RawMessage(`{}`)), nil
	}
	if c.lane == nil {
		return transport.NewJSONRPCErrorResponse(req.ID, refusalCode(req.Method), undeclared(req.Method), nil), nil
	}
	r := c.lane.current()
	if r == nil {
		return transport.NewJSONRPCErrorResponse(req.ID, mcp.INVALID_REQUEST,
			"no call of this agent session is in progress", nil), nil
	}
	params, err := json.Marshal(req.Params)
	if err != nil {
		return transport.NewJSONRPCErrorResponse(req.ID, mcp.INVALID_PARAMS, "params are malformed", nil), nil
	}
	c.svc.mu.Lock()
	scrub := c.svc.scrub
	c.svc.mu.Unlock()
	if scrub != nil {
		params = scrub.JSON(params)
	}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	key := fmt.Sprint(req.ID.Value())
	c.lane.mu.Lock()
	if c.lane.inbound == nil {
		c.lane.inbound = map[string]context.CancelFunc{}
	}
	c.lane.inbound[key] = cancel
	c.lane.mu.Unlock()
	defer func() {
		c.lane.mu.Lock()
		delete(c.lane.inbound, key)
		c.lane.mu.Unlock()
	}()
	res, err := r.Request(ctx, req.Method, params)
	if err != nil {
		return transport.NewJSONRPCErrorResponse(req.ID, refusalCode(req.Method), refusal(err), nil), nil
	}
	return transport.NewJSONRPCResultResponse(req.ID, res), nil
}

// undeclared is the refusal of a request on a shared connection, which declared nothing: the
// calling session either did not offer the capability or, for sampling, the deck forbids it.
func undeclared(method string) string {
	switch method {
	case string(mcp.MethodElicitationCreate):
		return "the agent's client did not declare the elicitation capability"
	case string(mcp.MethodSamplingCreateMessage):
		return "sampling is not allowed for this service on this deck, or the agent's client does not offer it " +
			"(an admin allows it: agent-deck deck sampling DECK SERVICE --allow)"
	}
	return "Agent Deck does not forward " + method
}

func refusalCode(method string) int {
	switch method {
	case string(mcp.MethodElicitationCreate), string(mcp.MethodSamplingCreateMessage):
		return mcp.INVALID_REQUEST
	}
	return mcp.METHOD_NOT_FOUND
}

// refusal is the text a downstream gets for a request the agent could not answer: a refusal
// the relay spelled out (backend.RelayRefusal), else a generic line with no internal detail.
func refusal(err error) string {
	if r, ok := errors.AsType[backend.RelayRefusal](err); ok {
		return string(r)
	}
	if ctxCause(err) {
		return "the request was cancelled"
	}
	return "the agent's client did not answer"
}

// laneFor returns the session's lane to the service, opening one if needed, with its
// in-flight count taken: the caller must call release.
func (s *service) laneFor(ctx context.Context, t backend.Target, fp string, r backend.Relay) (*conn, error) {
	s.mu.Lock()
	c := s.lanes[r.SessionID()]
	var drop *conn
	if c != nil && (c.fp != fp || c.isDead() || c.lane.wants.Elicitation != r.Wants().Elicitation ||
		c.lane.wants.Sampling != r.Wants().Sampling) {
		drop, c = c, nil
		delete(s.lanes, r.SessionID())
	}
	if c == nil {
		c = newConn(s, t, fp)
		c.lane = &lane{session: r.SessionID(), wants: r.Wants(), level: r.Wants().LogLevel}
		if !s.p.goOwned(func() { c.open(t) }) {
			s.mu.Unlock()
			return nil, errClosed
		}
		if s.lanes == nil {
			s.lanes = map[string]*conn{}
		}
		s.lanes[r.SessionID()] = c
	}
	c.inflight.Add(1)
	s.mu.Unlock()
	if drop != nil {
		s.p.closeAsync(drop)
	}
	select {
	case <-c.ready:
	case <-ctx.Done():
		c.release()
		return nil, ctx.Err()
	}
	if c.err != nil {
		c.release()
		s.dropLane(c)
		return nil, c.err
	}
	return c, nil
}

// dropLane forgets a lane that failed or died; the next call of its session opens another.
func (s *service) dropLane(c *conn) bool {
	s.mu.Lock()
	mine := c.lane != nil && s.lanes[c.lane.session] == c
	if mine {
		delete(s.lanes, c.lane.session)
	}
	s.mu.Unlock()
	return mine
}

// takeLanes detaches every lane for the caller to close.
func (s *service) takeLanes() []*conn {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := make([]*conn, 0, len(s.lanes))
	for _, c := range s.lanes {
		out = append(out, c)
	}
	s.lanes = nil
	return out
}

// reapIdleLanes closes lanes that served no call for idle: sessions end without telling the
// proxy, so an unused lane is presumed gone.
func (s *service) reapIdleLanes(now time.Time, idle time.Duration) {
	var drop []*conn
	s.mu.Lock()
	for id, c := range s.lanes {
		if c.isReady() && c.inflight.Load() == 0 && now.Sub(time.Unix(0, c.lastUsed.Load())) >= idle {
			drop = append(drop, c)
			delete(s.lanes, id)
		}
	}
	s.mu.Unlock()
	for _, c := range drop {
		s.p.closeAsync(c)
	}
}

// syncLevel sets the session's current log level on its lane when it changed since the lane
// last set it, before the call goes out.
func (c *conn) syncLevel(ctx context.Context, r backend.Relay) {
	level := r.Wants().LogLevel
	c.lane.mu.Lock()
	same := c.lane.level == level
	c.lane.level = level
	c.lane.mu.Unlock()
	if !same {
		c.setLevel(ctx, level)
	}
}

// setLevel sends logging/setLevel to a downstream that offers logging.
func (c *conn) setLevel(ctx context.Context, level string) {
	if level == "" || c.client == nil || c.client.GetServerCapabilities().Logging == nil {
		return
	}
	_, _ = c.request(ctx, string(mcp.MethodSetLogLevel), map[string]any{"level": level})
}
