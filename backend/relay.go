package backend

import (
	"context"
	"encoding/json"
)

// Relay is the way back to the agent session whose tool call is running: what a downstream
// server sends during that call (progress, log messages, elicitation and sampling requests)
// goes through it, to that session and no other. The MCP front end puts one in the context of
// each call (WithRelay); the proxy reads it (RelayFrom). Messages stay raw JSON so the core
// needs no MCP library.
type Relay interface {
	// SessionID names the agent session. What a downstream sends on a connection several
	// sessions share is attributed to a session by it (proxy/floor.go).
	SessionID() string
	// Wants is what the agent session declared or asked for: a request it cannot answer is
	// refused at once, naming what is missing.
	Wants() RelayWants
	// ProgressToken is the token the agent sent with this call, nil when it asked for no
	// progress.
	ProgressToken() any
	// Notify sends a notification (notifications/progress or notifications/message) to the
	// agent session. It never blocks on the agent for long and drops what cannot be sent.
	Notify(ctx context.Context, method string, params json.RawMessage)
	// Request asks the agent's client (elicitation/create, sampling/createMessage, roots/list)
	// and returns its raw result. ctx ends when the downstream cancels its request.
	Request(ctx context.Context, method string, params json.RawMessage) (json.RawMessage, error)
}

// RelayWants is the part of an agent session's client capabilities a downstream may use.
type RelayWants struct {
	// Elicitation: the client declared the elicitation capability.
	Elicitation bool
	// Sampling: the client declared sampling and (once the core has checked, deck_sampling.go)
	// the deck allows it for the service.
	Sampling bool
	// Roots: the client declared the roots capability.
	Roots bool
	// LogLevel is the level the agent set with logging/setLevel; "" when it set none.
	LogLevel string
}

// RelayRefusal is a relay's refusal of a downstream's request that the downstream may read as
// is: it names what is missing (a capability the agent did not declare, a deck setting).
type RelayRefusal string

func (r RelayRefusal) Error() string { return string(r) }

// The MCP methods of the requests a downstream may send the agent's client through a relay.
const (
	MethodSampling    = "sampling/createMessage"
	MethodElicitation = "elicitation/create"
	MethodRoots       = "roots/list"
)

type relayKey struct{}

// WithRelay returns ctx carrying r for the downstream calls made under it.
func WithRelay(ctx context.Context, r Relay) context.Context {
	return context.WithValue(ctx, relayKey{}, r)
}

// RelayFrom returns the relay of the calling agent session, nil outside an MCP tool call.
func RelayFrom(ctx context.Context) Relay {
	r, _ := ctx.Value(relayKey{}).(Relay)
	return r
}

// RelayAnswer is a client's answer to a request the hub sent it on a downstream's behalf, on its
// way from the replica that received it to the replica that sent the request (and waits for it).
type RelayAnswer struct {
	// Replica names the replica that sent the request (it is part of the request's id).
	Replica   string
	SessionID string
	RequestID string
	// Body is the JSON-RPC response as the client sent it.
	Body json.RawMessage
}

// RelayBus carries what one replica receives for another between the replicas sharing one
// database: clients' answers to the requests a replica sent, and messages for a session whose
// stream another replica holds. backend/postgres implements it with a table and NOTIFY.
type RelayBus interface {
	// PostRelayAnswer leaves an answer for its replica and wakes that replica.
	PostRelayAnswer(ctx context.Context, a RelayAnswer) error
	// PostSessionMessage hands a message for a session's client to every replica; it is for
	// the one that holds a stream of the session. A message over a few KB is refused.
	PostSessionMessage(ctx context.Context, sessionID string, msg json.RawMessage) error
	// ListenRelay hands onAnswer each answer left for replica, once, and onMessage each
	// session message, until ctx ends or the store closes. It returns at once; answers left
	// while it was not listening are handed over when it listens again (messages are not).
	ListenRelay(ctx context.Context, replica string, onAnswer func(RelayAnswer),
		onMessage func(sessionID string, msg json.RawMessage))
}
