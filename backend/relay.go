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
	// SessionID names the agent session; a downstream connection opened for a session's
	// server-to-client traffic (its lane) is keyed by it.
	SessionID() string
	// Wants is what the agent session declared or asked for, declared in turn to a downstream
	// opened for it.
	Wants() RelayWants
	// ProgressToken is the token the agent sent with this call, nil when it asked for no
	// progress.
	ProgressToken() any
	// Notify sends a notification (notifications/progress or notifications/message) to the
	// agent session. It never blocks on the agent for long and drops what cannot be sent.
	Notify(ctx context.Context, method string, params json.RawMessage)
	// Request asks the agent's client (elicitation/create, sampling/createMessage) and returns
	// its raw result. ctx ends when the downstream cancels its request.
	Request(ctx context.Context, method string, params json.RawMessage) (json.RawMessage, error)
}

// RelayWants is the part of an agent session's client capabilities a downstream may use.
type RelayWants struct {
	// Elicitation: the client declared the elicitation capability.
	Elicitation bool
	// Sampling: the client declared sampling and (once the core has checked, deck_sampling.go)
	// the deck allows it for the service.
	Sampling bool
	// LogLevel is the level the agent set with logging/setLevel; "" when it set none.
	LogLevel string
}

// Lane reports whether calls need a downstream connection of their own session: only a
// session that can be asked something, or that asked for log messages, does.
func (w RelayWants) Lane() bool {
	return w.Elicitation || w.Sampling || w.LogLevel != ""
}

// RelayRefusal is a relay's refusal of a downstream's request that the downstream may read as
// is: it names what is missing (a capability the agent did not declare, a deck setting).
type RelayRefusal string

func (r RelayRefusal) Error() string { return string(r) }

// MethodSampling is the MCP method of a sampling request.
const MethodSampling = "sampling/createMessage"

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
