package core

import (
	"context"
	"errors"
	"strings"
	"time"

	"github.com/agent-deck/agent-deck/backend"
	"github.com/agent-deck/agent-deck/backend/ratelimit"
)

// A proxied call reads top to bottom here: resolve the call's plan (what the call goes through),
// run the checks over it, make the one call, record it.

// callPlan is everything a proxied call needs that does not depend on the call itself: the deck
// it goes through, the service, the target with the deck's credential choice applied, the
// deck's rules and sampling grant, the pins and the rate limits of the (deck, service). It is resolved once per (deck, service) and
// reused while the read cache's generation holds, so an unchanged deck and service cost a
// proxied call no database read.
type callPlan struct {
	// deckID is the deck the call goes through; "" for an admin's call that names none.
	deckID string
	// onDeck says the deck links the service; rules are the deck's rules for it.
	onDeck bool
	rules  deckScope
	// service is the service called; set whenever it was found, even if the plan failed.
	service backend.ServiceRecord
	target  backend.Target
	// sampling says the deck lets the service ask the agent's model (bound sessions only).
	sampling bool
	pins     pinView
	// limits bound the service's calls through the deck (service_call_limits.go).
	limits ratelimit.Limits
	// renewBy is when the service's sign-in token needs renewing, and so the plan rebuilding.
	renewBy time.Time
	// personal says the target carries the calling person's own secret: the plan is kept per
	// person (personalPlanKey), and under the plain key only as a marker that says so.
	personal bool
}

// planKey names a plan in the read cache: the deck it goes through and the service as asked for.
func planKey(deckID, serviceRef string) string {
	return deckID + "\x00" + strings.TrimSpace(serviceRef)
}

func planMap(c *caches) map[string]*callPlan { return c.plans }

// personalPlanKey names the plan of one person's calls through a plan that is personal.
func personalPlanKey(key, personID string) string { return key + "\x00person:" + personID }

// cachedPlanFor is cachedPlan for the caller: a personal plan is looked up under the caller's
// own key, so no person's call goes out with another person's target.
func (s *Hub) cachedPlanFor(ctx context.Context, key string) (*callPlan, bool) {
	p, ok := s.cachedPlan(key)
	if !ok || !p.personal {
		return p, ok
	}
	a, _ := backend.ActorFrom(ctx)
	return s.cachedPlan(personalPlanKey(key, a.PersonID))
}

// putPlan caches a plan under its key, and a personal one under the caller's key as well.
func (s *Hub) putPlan(ctx context.Context, gen uint64, key string, p *callPlan) {
	cachePut(s.cache, planMap, gen, key, p)
	if p.personal {
		a, _ := backend.ActorFrom(ctx)
		cachePut(s.cache, planMap, gen, personalPlanKey(key, a.PersonID), p)
	}
}

// cachedPlan returns a plan built since the last change, unless its sign-in token needs
// renewing. The service's secrets are learned again: the service may have been forgotten
// (changed) since.
func (s *Hub) cachedPlan(key string) (*callPlan, bool) {
	p, ok := cacheGet(s.cache, planMap, key)
	if !ok || (!p.renewBy.IsZero() && !s.clock().Before(p.renewBy)) {
		return nil, false
	}
	s.cfg.Redactor.Learn(p.service.ID, p.target.Secrets)
	if p.target.ConnKey != p.service.ID {
		s.cfg.Redactor.Learn(p.target.ConnKey, p.target.Secrets)
	}
	return p, true
}

// boundPlan is the plan of a call from an MCP session: through its bound deck, to a service
// the deck links (NOT_ON_BOUND_DECK names the ones it does).
func (s *Hub) boundPlan(ctx context.Context, sessionID, serviceRef string) (*callPlan, error) {
	sess, err := s.boundSession(ctx, sessionID)
	if err != nil {
		return &callPlan{}, err
	}
	key := planKey(sess.DeckID, serviceRef)
	if p, ok := s.cachedPlanFor(ctx, key); ok {
		return p, nil
	}
	gen, _ := s.cache.generation()
	links, err := s.deckLinks(ctx, sess.DeckID)
	if err != nil {
		return &callPlan{}, backend.StoreErr("listing deck cards", err)
	}
	ids := idsOfType(links, backend.CardService)
	id, ok, err := findLinked(ctx, s.store, backend.CardService, ids, strings.TrimSpace(serviceRef))
	if err != nil {
		return &callPlan{}, err
	}
	if !ok {
		return &callPlan{}, s.notOnBoundDeck(ctx, sess, backend.CardService, strings.TrimSpace(serviceRef), ids)
	}
	p, err := s.buildPlan(ctx, backend.Deck{ID: sess.DeckID, Name: sess.DeckName}, links, id)
	if err != nil {
		return p, err
	}
	if p.sampling, err = s.store.SamplingAllowed(ctx, sess.DeckID, p.service.ID); err != nil {
		return p, backend.StoreErr("reading sampling", err)
	}
	s.putPlan(ctx, gen, key, p)
	return p, nil
}

// deckPlan is the plan of a call made directly (REST): through the deck named by deckRef, which
// an agent token must name and which must link the service; an admin may name no deck.
func (s *Hub) deckPlan(ctx context.Context, a backend.Actor, deckRef, serviceRef string) (*callPlan, error) {
	deckRef = strings.TrimSpace(deckRef)
	if deckRef == "" {
		if !a.IsAdmin() {
			return &callPlan{}, s.deckNotNamed(ctx, a)
		}
		return s.plainPlan(ctx, serviceRef)
	}
	d, err := s.deckByRefCached(ctx, deckRef)
	if err != nil {
		return &callPlan{}, err
	}
	key := planKey(d.ID, serviceRef)
	if p, ok := s.cachedPlanFor(ctx, key); ok {
		return p, s.reachable(ctx, a, d, p, serviceRef)
	}
	gen, _ := s.cache.generation()
	links, err := s.deckLinks(ctx, d.ID)
	if err != nil {
		return &callPlan{}, backend.StoreErr("listing deck cards", err)
	}
	id := serviceRef
	if !a.IsAdmin() {
		found, ok, err := findLinked(ctx, s.store, backend.CardService, idsOfType(links, backend.CardService), strings.TrimSpace(serviceRef))
		if err != nil {
			return &callPlan{}, err
		}
		if !ok || strings.TrimSpace(serviceRef) == "" {
			return &callPlan{}, s.notOnNamedDeck(ctx, d, links, serviceRef)
		}
		id = found
	}
	p, err := s.buildPlan(ctx, d, links, id)
	if err != nil {
		return p, err
	}
	s.putPlan(ctx, gen, key, p)
	return p, s.reachable(ctx, a, d, p, serviceRef)
}

// plainPlan is an admin's call that names no deck: no deck's rules apply.
func (s *Hub) plainPlan(ctx context.Context, serviceRef string) (*callPlan, error) {
	key := planKey("", serviceRef)
	if p, ok := s.cachedPlanFor(ctx, key); ok {
		return p, nil
	}
	gen, _ := s.cache.generation()
	p, err := s.buildPlan(ctx, backend.Deck{}, nil, serviceRef)
	if err != nil {
		return p, err
	}
	s.putPlan(ctx, gen, key, p)
	return p, nil
}

// reachable refuses an agent a cached plan of a service its deck does not link.
func (s *Hub) reachable(ctx context.Context, a backend.Actor, d backend.Deck, p *callPlan, serviceRef string) error {
	if a.IsAdmin() || p.onDeck {
		return nil
	}
	links, err := s.deckLinks(ctx, d.ID)
	if err != nil {
		return backend.StoreErr("listing deck cards", err)
	}
	return s.notOnNamedDeck(ctx, d, links, serviceRef)
}

// buildPlan resolves the service (id or name) once, builds its target, and applies what the
// deck (with its links; none for an admin's plain call) says about it.
func (s *Hub) buildPlan(ctx context.Context, d backend.Deck, links []backend.CardLink, serviceRef string) (*callPlan, error) {
	p := &callPlan{deckID: d.ID}
	rec, t, err := s.serviceTarget(ctx, serviceRef)
	p.service = rec
	if err != nil {
		return p, err
	}
	p.renewBy = backend.OAuthToken{ExpiresAt: t.OauthExpires}.RenewBy()
	p.rules = deckScope{name: d.Name}
	for _, l := range links {
		if l.CardType == backend.CardService && l.CardID == rec.ID {
			p.onDeck, p.rules.settings = true, l.Settings
		}
	}
	if p.target, err = s.scopedTarget(ctx, p.rules, rec, t); err != nil {
		return p, err
	}
	if p.target.PerPerson() {
		a, _ := backend.ActorFrom(ctx)
		if p.target, err = s.personTarget(ctx, a, rec, p.target); err != nil {
			return p, err
		}
		p.personal = true
		p.renewBy = backend.OAuthToken{ExpiresAt: p.target.OauthExpires}.RenewBy()
	}
	if p.pins, err = s.pinsFor(ctx, rec, p.target, nil); err != nil {
		return p, err
	}
	if p.limits, err = s.planLimits(ctx, d.ID, rec.ID); err != nil {
		return p, err
	}
	return p, nil
}

// admit runs the checks a call must pass before it reaches the downstream: the deck's rules,
// and under agent:read a tool annotated read-only; then, last so that a refused call counts
// against no limit, the rate limits of the token and of the (deck, service), whose release
// ends the call. Pins are checked by the proxy against the definition it holds at call time
// (Target.Admit).
func (s *Hub) admit(ctx context.Context, a backend.Actor, p *callPlan, tool string) (release func(), err error) {
	checks := []func() error{
		func() error { return p.rules.admitTool(ctx, p.service, tool) },
		func() error {
			if a.Scope != backend.ScopeAgentRead {
				return nil
			}
			return s.requireReadOnlyTool(ctx, p.service, p.target, tool)
		},
	}
	for _, check := range checks {
		if err := check(); err != nil {
			return func() {}, err
		}
	}
	return s.acquireLimits(ctx, a, p)
}

// toolNamed refuses a call that names no tool, saying where the tools are listed.
func toolNamed(ctx context.Context, tool string) error {
	if strings.TrimSpace(tool) != "" {
		return nil
	}
	return backend.Invalid("tool_name", "the name of the tool to call is required").
		WithHint(backend.InWordsOf(ctx, "GET /api/v1/services/{service}/tools lists the service's tools",
			backend.ToolFor(ctx, "list_service_tools")+" shows the service's tools"))
}

// call makes the one downstream call of a plan: once more with a renewed sign-in token if the
// service refused its token, and a refusal for want of scope starts a step-up.
func (s *Hub) call(ctx context.Context, p *callPlan, in CallInput) (backend.CallResult, error) {
	t := p.target
	if err := sendable(t); err != nil {
		return backend.CallResult{}, err
	}
	t.Admit = p.pins.admit(p.service)
	res, err := s.downstream.CallTool(ctx, t, in.ToolName, in.Arguments)
	if renewed, ok := s.signIn().renewOAuthAfterRefusal(ctx, p.service, t, err); ok {
		res, err = s.downstream.CallTool(ctx, renewed, in.ToolName, in.Arguments)
	}
	if err != nil {
		err = s.signIn().stepUpOAuth(ctx, p.service, t.OauthPerson, err)
	}
	s.syncHealth(ctx, p.service, false)
	return res, err
}

// CallBoundServiceTool is call_service_tool: a tool of a service on the session's bound deck,
// under that deck's rules, whatever the agent sent as a deck.
func (s *Hub) CallBoundServiceTool(ctx context.Context, sessionID, serviceRef string, in CallInput) (res backend.CallResult, err error) {
	a, err := backend.RequireRead(ctx, "call service tools")
	if err != nil {
		return backend.CallResult{}, err
	}
	ca := s.startCallAudit(ctx, a, sessionID, serviceRef, in)
	defer func() { s.finishCallAudit(ca, res, err) }()
	if err := toolNamed(ctx, in.ToolName); err != nil {
		return backend.CallResult{}, err
	}
	p, err := s.boundPlan(ctx, sessionID, serviceRef)
	ca.resolved(p.service)
	if err != nil {
		return backend.CallResult{}, err
	}
	release, err := s.admit(ctx, a, p, in.ToolName)
	defer release()
	if err != nil {
		return backend.CallResult{}, err
	}
	if !p.sampling {
		ctx = withoutSampling(ctx)
	}
	s.ends.hold(sessionID)
	return s.call(ctx, p, in)
}

// CallServiceTool calls a downstream tool (REST): of any service for admins, of a service on
// the deck named in in.Deck for agent tokens. Under agent:read only tools annotated
// readOnlyHint: true may be called.
func (s *Hub) CallServiceTool(ctx context.Context, ref string, in CallInput) (res backend.CallResult, err error) {
	a, err := backend.RequireRead(ctx, "call service tools")
	if err != nil {
		return backend.CallResult{}, err
	}
	ca := s.startCallAudit(ctx, a, "", ref, in)
	defer func() { s.finishCallAudit(ca, res, err) }()
	if err := toolNamed(ctx, in.ToolName); err != nil {
		return backend.CallResult{}, err
	}
	p, err := s.deckPlan(ctx, a, in.Deck, ref)
	ca.resolved(p.service)
	if err != nil {
		return backend.CallResult{}, err
	}
	release, err := s.admit(ctx, a, p, in.ToolName)
	defer release()
	if err != nil {
		return backend.CallResult{}, err
	}
	return s.call(ctx, p, in)
}

// sendable refuses a target that takes a person's own secret or sign-in but holds neither:
// nothing goes out without it.
func sendable(t backend.Target) error {
	if t.PersonalCredential && (t.Credential == nil || t.Credential.Secret == "") {
		return backend.Internal("sending a call", errors.New("a personal target without the person's secret"))
	}
	if t.PersonalSignIn && !t.PersonalCredential && (t.OauthAccess == "" || t.OauthPerson == "") {
		return backend.Internal("sending a call", errors.New("a personal target without the person's sign-in"))
	}
	return nil
}
