package proxy

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"time"

	"github.com/agent-deck/agent-deck/backend"
	"github.com/mark3labs/mcp-go/client/transport"
	"github.com/mark3labs/mcp-go/mcp"
)

// This file carries what a downstream sends during a call back to the agent session that
// made it (backend.Relay), and nowhere else. Every session shares the service's one connection,
// which declares every client capability a session may have (elicitation, sampling, roots); a
// session that lacks one gets the downstream's request refused, naming what is missing.
//
// Progress names its call: each call that asked for progress gets a fresh random downstream
// token, mapped back to the agent's token and relay; a token is only honoured on the connection
// its call was sent on. A request the downstream sends on an HTTP call's own response stream
// names its call too: it arrives with that call's context. A log message on such a stream is
// taken off it by the body tap (sse.go). Everything else is attributed by the floor (floor.go).

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

// capabilities are the client capabilities declared to a downstream: everything a session may
// offer, whichever sessions end up calling through the connection.
func (c *conn) capabilities() mcp.ClientCapabilities {
	var caps mcp.ClientCapabilities
	caps.Elicitation = &mcp.ElicitationCapability{}
	caps.Sampling = &mcp.SamplingCapability{}
	caps.Roots = &struct {
		ListChanged bool `json:"listChanged,omitempty"`
	}{ListChanged: true}
	return caps
}

// onLogMessage sends a log message to the session the floor attributes it to; one that cannot
// be attributed is dropped.
func (c *conn) onLogMessage(n mcp.JSONRPCNotification) {
	if r := c.floor.noteOwner(); r != nil {
		c.relayNotify(r, n.Method, n.Params.AdditionalFields)
		return
	}
	c.svc.p.log.Debug("dropped a downstream log message: no single session to give it to", "service_id", c.svc.id)
}

// callLog sends a log message that came on a call's own response stream to that call's session.
func (c *conn) callLog(r backend.Relay, params json.RawMessage) {
	var fields map[string]any
	if json.Unmarshal(params, &fields) == nil {
		c.relayNotify(r, string(mcp.MethodNotificationMessage), fields)
	}
}

// onCancelled ends the agent-side request a downstream's request caused, when the downstream
// cancels its own request (notifications/cancelled naming it).
func (c *conn) onCancelled(n mcp.JSONRPCNotification) {
	id := fmt.Sprint(n.Params.AdditionalFields["requestId"])
	c.inboundMu.Lock()
	cancel := c.inbound[id]
	c.inboundMu.Unlock()
	if cancel != nil {
		cancel()
	}
}

// onRequest answers a downstream's request (elicitation, sampling, roots) through the relay of
// the call it belongs to: the call whose response stream it came on, else the one the floor
// attributes it to. What the agent's client says passes back raw; a refusal names what is
// missing; other failures say only that the agent did not answer.
func (c *conn) onRequest(ctx context.Context, req transport.JSONRPCRequest) (*transport.JSONRPCResponse, error) {
	switch req.Method {
	case string(mcp.MethodPing):
		return transport.NewJSONRPCResultResponse(req.ID, json.RawMessage(`{}`)), nil
	case backend.MethodElicitation, backend.MethodSampling, backend.MethodRoots:
	default:
		return transport.NewJSONRPCErrorResponse(req.ID, mcp.METHOD_NOT_FOUND, "Agent Deck does not forward "+req.Method, nil), nil
	}
	if req.Method == backend.MethodRoots {
		// A downstream that asks for roots may keep them: it is told whenever the session it
		// serves changes (refreshRoots), which needs one session at a time to be unambiguous.
		c.floor.rootsAsked()
		c.svc.talksBack.Store(true)
	}
	r := backend.RelayFrom(ctx)
	if r == nil {
		var why string
		if r, why = c.floor.owner(ctx, func() { c.svc.talksBack.Store(true) }); r == nil {
			return transport.NewJSONRPCErrorResponse(req.ID, mcp.INVALID_REQUEST, why, nil), nil
		}
	}
	params, err := json.Marshal(req.Params)
	if err != nil {
		return transport.NewJSONRPCErrorResponse(req.ID, mcp.INVALID_PARAMS, "params are malformed", nil), nil
	}
	if string(params) == "null" {
		params = json.RawMessage(`{}`)
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
	c.inboundMu.Lock()
	if c.inbound == nil {
		c.inbound = map[string]context.CancelFunc{}
	}
	c.inbound[key] = cancel
	c.inboundMu.Unlock()
	defer func() {
		c.inboundMu.Lock()
		delete(c.inbound, key)
		c.inboundMu.Unlock()
	}()
	res, err := r.Request(ctx, req.Method, params)
	if err != nil {
		return transport.NewJSONRPCErrorResponse(req.ID, refusalCode(req.Method), refusal(err), nil), nil
	}
	if req.Method == backend.MethodRoots {
		c.floor.rootsGiven(r.SessionID())
	}
	return transport.NewJSONRPCResultResponse(req.ID, res), nil
}

func refusalCode(method string) int {
	switch method {
	case backend.MethodElicitation, backend.MethodSampling, backend.MethodRoots:
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

// rootsRefreshWait bounds the wait for a downstream to ask for roots again once told they
// changed (the question goes to the agent's client and back); one that lets rootsLazyAfter
// such waits in a row pass without asking is not waited for again.
const (
	rootsRefreshWait = 10 * time.Second
	rootsLazyAfter   = 3
)

// beforeCall readies the connection for a call of relay r, on the floor already: the downstream
// gets the log level the session asked for (levels only ever get more verbose: each session's
// own level is applied by its relay), and a downstream that keeps roots is told they changed
// when it last got another session's.
func (c *conn) beforeCall(ctx context.Context, r backend.Relay) {
	if r != nil {
		c.raiseLevel(ctx, r.Wants().LogLevel)
	}
	party := partyOf(r)
	stale, lazy := c.floor.rootsStale(party)
	if !stale {
		return
	}
	got := c.floor.rootsAwait()
	n := mcp.JSONRPCNotification{JSONRPC: mcp.JSONRPC_VERSION,
		Notification: mcp.Notification{Method: mcp.MethodNotificationRootsListChanged}}
	if err := c.tr.SendNotification(ctx, n); err != nil || lazy {
		return
	}
	t := time.NewTimer(rootsRefreshWait)
	defer t.Stop()
	select {
	case <-got:
		c.floor.rootsAnswered()
		if c.floor.rootsOf() == party {
			// A ping answered after the roots were given means the downstream has read them
			// before it reads the call.
			_, _ = c.request(ctx, string(mcp.MethodPing), nil, nil)
		}
	case <-t.C:
		c.floor.rootsIgnored(rootsLazyAfter)
	case <-ctx.Done():
	}
}

// raiseLevel sets logging/setLevel on a downstream that offers logging when a session asks for
// more than it was set to.
func (c *conn) raiseLevel(ctx context.Context, level string) {
	want := slices.Index(backend.LogLevels, level)
	if want < 0 || c.client == nil || c.client.GetServerCapabilities().Logging == nil {
		return
	}
	for {
		cur := c.level.Load()
		if cur != 0 && want >= int(cur)-1 {
			return
		}
		if c.level.CompareAndSwap(cur, int32(want)+1) {
			break
		}
	}
	_, _ = c.request(ctx, string(mcp.MethodSetLogLevel), map[string]any{"level": level}, nil)
}
