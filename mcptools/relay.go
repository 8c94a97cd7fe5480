package mcptools

import (
	"context"
	"encoding/json"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

	"github.com/agent-deck/agent-deck/backend"
)

// This file is the way back from a downstream to the agent session whose call it serves: a
// backend.Relay bound to the tool call's context. Notifications and requests go out on that
// call's own stream (jsonResponse.send), turning its answer into an SSE stream; a request's
// answer may reach any replica (asks.go). What the session declared and the log level it set come from its row,
// so every replica serving the session knows them.

// The refusals a downstream gets when the agent's client cannot be asked.
var (
	errNoElicitation = backend.RelayRefusal("the agent's client did not declare the elicitation capability")
	errNoSampling    = backend.RelayRefusal("the agent's client did not declare the sampling capability")
)

// noRoots is the answer to a roots/list for a session whose client declared no roots: none.
var noRoots = json.RawMessage(`{"roots":[]}`)

// sessionRelay is one tool call's relay. It holds the call's context (the request's state and
// its session) and the call's response stream, on the transport and on the fast path alike.
type sessionRelay struct {
	h      *Handler
	ctx    context.Context
	id     string
	token  any
	wants  backend.RelayWants
	stream *jsonResponse // the call's own stream; nil when it has none
}

// wantsOf is what a session's row says a downstream may use.
func wantsOf(sess *backend.MCPSession) backend.RelayWants {
	if sess == nil {
		return backend.RelayWants{}
	}
	return backend.RelayWants{Elicitation: sess.Caps.Elicitation, Sampling: sess.Caps.Sampling,
		Roots: sess.Caps.Roots, LogLevel: sess.LogLevel}
}

// withRelay binds a relay for the agent session of this call to ctx.
func (h *Handler) withRelay(ctx context.Context, req mcp.CallToolRequest) context.Context {
	st := stateFrom(ctx)
	if st == nil || st.session == nil || (st.stream == nil && server.ClientSessionFromContext(ctx) == nil) {
		return ctx // no session, or a call served by neither the transport nor the fast path
	}
	r := &sessionRelay{h: h, ctx: ctx, id: st.session.ID, wants: wantsOf(st.session), stream: st.stream}
	if req.Params.Meta != nil {
		r.token = req.Params.Meta.ProgressToken
	}
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
	msg, err := json.Marshal(mcp.JSONRPCNotification{JSONRPC: mcp.JSONRPC_VERSION,
		Notification: mcp.Notification{Method: method, Params: mcp.NotificationParams{AdditionalFields: fields}}})
	if err != nil || r.send(msg) == nil {
		return
	}
	// The call has answered already: the session's GET stream carries it, here or on the
	// replica that holds it.
	r.h.toSession(r.ctx, r.id, msg)
}

// send writes a message on the call's own stream.
func (r *sessionRelay) send(msg []byte) error {
	if r.stream == nil {
		return errStreamGone
	}
	return r.stream.send(msg)
}

// Request asks the agent's client on the downstream's behalf and returns the raw answer. A
// request the client cannot answer is refused at once, naming what it lacks; roots of a client
// that declared none are none.
func (r *sessionRelay) Request(ctx context.Context, method string, params json.RawMessage) (json.RawMessage, error) {
	var schema any // an elicitation's requested schema, for its defaults
	switch method {
	case backend.MethodElicitation:
		if !r.wants.Elicitation {
			return nil, errNoElicitation
		}
		var p mcp.ElicitationParams
		if err := json.Unmarshal(params, &p); err != nil {
			return nil, backend.RelayRefusal("elicitation/create params are malformed")
		}
		schema = p.RequestedSchema
	case backend.MethodSampling:
		if !r.wants.Sampling {
			return nil, errNoSampling
		}
		var p mcp.CreateMessageParams
		if err := json.Unmarshal(params, &p); err != nil {
			return nil, backend.RelayRefusal("sampling/createMessage params are malformed")
		}
	case backend.MethodRoots:
		if !r.wants.Roots {
			return noRoots, nil
		}
		params = nil
	default:
		return nil, backend.RelayRefusal("Agent Deck does not forward " + method)
	}
	cctx, cancel := r.callContext(ctx)
	defer cancel()
	res, err := r.h.asks.ask(cctx, r.id, func(id string) error {
		msg, err := json.Marshal(askRequest{JSONRPC: mcp.JSONRPC_VERSION, ID: id, Method: method, Params: params})
		if err != nil {
			return err
		}
		return r.send(msg)
	})
	if err != nil || method != backend.MethodElicitation {
		return res, err
	}
	var answer mcp.ElicitationResult
	if err := json.Unmarshal(res, &answer); err != nil {
		return nil, backend.RelayRefusal("the agent's client answered the elicitation with malformed JSON")
	}
	withElicitationDefaults(schema, &answer)
	return json.Marshal(&answer)
}

// askRequest is a request Agent Deck sends a client.
type askRequest struct {
	JSONRPC string          `json:"jsonrpc"`
	ID      string          `json:"id"`
	Method  string          `json:"method"`
	Params  json.RawMessage `json:"params,omitempty"`
}

// callContext is the call's context (session, response stream) cancelled also when ctx
// (the downstream's request) ends.
func (r *sessionRelay) callContext(ctx context.Context) (context.Context, context.CancelFunc) {
	out, cancel := context.WithCancel(r.ctx)
	stop := context.AfterFunc(ctx, cancel)
	return out, func() { stop(); cancel() }
}
