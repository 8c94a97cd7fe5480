package mcptools

import (
	"context"
	"encoding/json"
	"sync"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

	"github.com/agent-deck/agent-deck/backend"
)

// This file is the way back from a downstream to the agent session whose call it serves: a
// backend.Relay bound to the tool call's context, so mcp-go sends what the downstream sent on
// that call's own stream, to that session only.

// errNoElicitation is the refusal a downstream gets when the agent's client cannot be asked.
var errNoElicitation = backend.RelayRefusal("the agent's client did not declare the elicitation capability")

// errNoSampling is the refusal of a sampling request the agent's client cannot answer.
var errNoSampling = backend.RelayRefusal("the agent's client did not declare the sampling capability")

// logLevels remembers the level each session set with logging/setLevel: a session that set
// none gets no downstream log messages, and no connection of its own for them.
type logLevels struct {
	m sync.Map // session id → mcp.LoggingLevel
}

func (l *logLevels) set(id string, level mcp.LoggingLevel) { l.m.Store(id, level) }
func (l *logLevels) drop(id string)                        { l.m.Delete(id) }

func (l *logLevels) get(id string) mcp.LoggingLevel {
	v, _ := l.m.Load(id)
	level, _ := v.(mcp.LoggingLevel)
	return level
}

// sessionRelay is one tool call's relay. It holds the call's context, which carries mcp-go's
// session and the call's response stream.
type sessionRelay struct {
	h       *Handler
	ctx     context.Context
	id      string
	token   any
	wants   backend.RelayWants
	session server.ClientSession
}

// withRelay binds a relay for the agent session of this call to ctx.
func (h *Handler) withRelay(ctx context.Context, req mcp.CallToolRequest) context.Context {
	cs := server.ClientSessionFromContext(ctx)
	if cs == nil {
		return ctx
	}
	r := &sessionRelay{h: h, ctx: ctx, id: cs.SessionID(), session: cs}
	if req.Params.Meta != nil {
		r.token = req.Params.Meta.ProgressToken
	}
	if ci, ok := cs.(server.SessionWithClientInfo); ok {
		caps := ci.GetClientCapabilities()
		r.wants.Elicitation, r.wants.Sampling = caps.Elicitation != nil, caps.Sampling != nil
	}
	r.wants.LogLevel = string(h.levels.get(r.id))
	return backend.WithRelay(ctx, r)
}

func (r *sessionRelay) SessionID() string          { return r.id }
func (r *sessionRelay) Wants() backend.RelayWants  { return r.wants }
func (r *sessionRelay) ProgressToken() any         { return r.token }
func (r *sessionRelay) logLevel() mcp.LoggingLevel { return mcp.LoggingLevel(r.wants.LogLevel) }
func (r *sessionRelay) wantsLog(l mcp.LoggingLevel) bool {
	return r.wants.LogLevel != "" && l.ShouldSendTo(r.logLevel())
}

// Notify forwards a progress or log notification to the call's session; a log message under
// the session's level is dropped here, whatever the downstream's own filter did.
func (r *sessionRelay) Notify(_ context.Context, method string, params json.RawMessage) {
	var fields map[string]any
	if json.Unmarshal(params, &fields) != nil {
		return
	}
	if method == string(mcp.MethodNotificationMessage) {
		level, _ := fields["level"].(string)
		if !r.wantsLog(mcp.LoggingLevel(level)) {
			return
		}
	}
	if err := r.h.mcp.SendNotificationToClient(r.ctx, method, fields); err != nil {
		r.h.log.Debug("a downstream notification could not reach its session", "method", method, "error", err)
	}
}

// Request asks the agent's client on the downstream's behalf and returns the raw answer.
func (r *sessionRelay) Request(ctx context.Context, method string, params json.RawMessage) (json.RawMessage, error) {
	switch method {
	case string(mcp.MethodElicitationCreate):
		if !r.wants.Elicitation {
			return nil, errNoElicitation
		}
		var p mcp.ElicitationParams
		if err := json.Unmarshal(params, &p); err != nil {
			return nil, backend.RelayRefusal("elicitation/create params are malformed")
		}
		cctx, cancel := r.callContext(ctx)
		defer cancel()
		res, err := r.h.mcp.RequestElicitation(cctx, mcp.ElicitationRequest{
			Request: mcp.Request{Method: method}, Params: p})
		if err != nil {
			return nil, err
		}
		withElicitationDefaults(p.RequestedSchema, res)
		return json.Marshal(res)
	case backend.MethodSampling:
		if !r.wants.Sampling {
			return nil, errNoSampling
		}
		var p mcp.CreateMessageParams
		if err := json.Unmarshal(params, &p); err != nil {
			return nil, backend.RelayRefusal("sampling/createMessage params are malformed")
		}
		cctx, cancel := r.callContext(ctx)
		defer cancel()
		//lint:ignore SA1019 sessions speak 2025-11-25 or older, where sampling is current
		res, err := r.h.mcp.RequestSampling(cctx, mcp.CreateMessageRequest{
			Request: mcp.Request{Method: method}, CreateMessageParams: p})
		if err != nil {
			return nil, err
		}
		return json.Marshal(res)
	}
	return nil, backend.RelayRefusal("Agent Deck does not forward " + method)
}

// callContext is the call's context (session, response stream) cancelled also when ctx
// (the downstream's request) ends.
func (r *sessionRelay) callContext(ctx context.Context) (context.Context, context.CancelFunc) {
	out, cancel := context.WithCancel(r.ctx)
	stop := context.AfterFunc(ctx, cancel)
	return out, func() { stop(); cancel() }
}
