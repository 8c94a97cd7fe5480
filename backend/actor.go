package backend

import "context"

// ActorKind records who made a change: a person (REST, CLI) or an agent (MCP).
type ActorKind string

// Actor kinds.
const (
	ActorUser  ActorKind = "user"
	ActorAgent ActorKind = "agent"
)

// Actor is the authenticated caller of a Service method. Scopes are checked against it inside
// the Service, so no front end can bypass them.
type Actor struct {
	TokenID string
	Scope   Scope
	Kind    ActorKind
	// DeckID is the deck the token's MCP sessions start bound to (an OAuth grant's consent).
	DeckID string
	// PersonID, PersonName and Role are the person the token belongs to: every token acts for
	// its person, with that person's role. Empty for the composition root's own work.
	PersonID   string
	PersonName string
	Role       Role
}

type actorKey struct{}

// WithActor returns ctx carrying the caller.
func WithActor(ctx context.Context, a Actor) context.Context {
	return context.WithValue(ctx, actorKey{}, a)
}

// ActorFrom returns the caller carried by ctx.
func ActorFrom(ctx context.Context) (Actor, bool) {
	a, ok := ctx.Value(actorKey{}).(Actor)
	return a, ok
}

// SystemActor is used by the composition root for bootstrap work (the first admin token).
var SystemActor = Actor{TokenID: "", Scope: ScopeAdmin, Kind: ActorUser}

// CanWrite reports whether the scope allows changing cards and decks.
func (s Scope) CanWrite() bool { return s == ScopeAdmin || s == ScopeAgent }

// Valid reports whether s is a known scope.
func (s Scope) Valid() bool {
	return s == ScopeAdmin || s == ScopeAgent || s == ScopeAgentRead
}

func requireScope(ctx context.Context, need func(Scope) bool, what string) (Actor, error) {
	return requireScopeRole(ctx, need, false, what)
}

// requireScopeRole is requireScope that, with admin set, also needs a person whose role is
// admin: a member's own token may carry the admin scope (their CLI and dashboard) yet never
// reaches server settings.
func requireScopeRole(ctx context.Context, need func(Scope) bool, admin bool, what string) (Actor, error) {
	a, ok := ActorFrom(ctx)
	if !ok {
		return Actor{}, Errorf(CodeUnauthenticated, "a token is required to %s", what).
			WithHint("send Authorization: Bearer <token>")
	}
	if !need(a.Scope) {
		return a, Refuse(a.Scope, what).WithHint(scopeHint(need))
	}
	if admin && !a.SeesAll() {
		return a, Errorf(CodeForbidden, "%s is a member and members may not %s", QuoteClip(a.PersonName), what).
			WithHint("ask an admin; a member manages their own decks, cards and tokens")
	}
	return a, nil
}

// Refuse is the one sentence of every refusal for want of scope, on every surface:
// `scope "agent" may not accept proposals`. what is a verb phrase that completes "may not"
// (TestRefusalsAreSentences holds every caller to it); the caller adds the hint, the scope
// that may, or what the caller may do instead.
func Refuse(s Scope, what string) *Error {
	return Errorf(CodeForbidden, "scope %q may not %s", s, what)
}

func scopeHint(need func(Scope) bool) string {
	for _, s := range []Scope{ScopeAgentRead, ScopeAgent, ScopeAdmin} {
		if need(s) {
			return "this needs a token with scope " + string(s) + " or wider"
		}
	}
	return ""
}

func isAdmin(s Scope) bool  { return s == ScopeAdmin }
func canWrite(s Scope) bool { return s.CanWrite() }
func canRead(s Scope) bool  { return s.Valid() }

// RequireAdmin, RequirePerson, RequireWrite and RequireRead are the permission checks every
// Hub method starts with. RequireAdmin needs the admin scope and an admin person: server
// settings.
func RequireAdmin(ctx context.Context, what string) (Actor, error) {
	return requireScopeRole(ctx, isAdmin, true, what)
}

// RequirePerson needs the admin scope of a person's own surfaces (the CLI, REST, the dashboard)
// whatever the person's role: what a member does for themselves (their tokens, their decks'
// sharing, their own secrets). The method then checks what the person may touch.
func RequirePerson(ctx context.Context, what string) (Actor, error) {
	return requireScope(ctx, isAdmin, what)
}

func RequireWrite(ctx context.Context, what string) (Actor, error) {
	return requireScope(ctx, canWrite, what)
}

func RequireRead(ctx context.Context, what string) (Actor, error) {
	return requireScope(ctx, canRead, what)
}

// inWordsOf picks the hint for the caller's surface: agents (MCP) are taught with tools and
// their parameters, people (REST and the CLI over it) with routes and fields. A hint in the
// other surface's words names something the caller cannot use.
func InWordsOf(ctx context.Context, people, agents string) string {
	if a, ok := ActorFrom(ctx); ok && a.Kind == ActorAgent {
		return agents
	}
	return people
}

// Authorize checks that the caller's scope is at least need (agent:read < agent < admin) before
// an adapter reads a request's shape, so a caller who may not do something learns that first,
// not how to spell the request. what completes "scope X may not …". It is the same check the
// Service method runs again; adapters call it only to order their answers.
func Authorize(ctx context.Context, need Scope, what string) error {
	check := canRead
	switch need {
	case ScopeAdmin:
		check = isAdmin
	case ScopeAgent:
		check = canWrite
	}
	_, err := requireScope(ctx, check, what)
	return err
}
