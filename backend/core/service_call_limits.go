package core

import (
	"context"
	"fmt"
	"math"
	"slices"

	"github.com/agent-deck/agent-deck/backend"
	"github.com/agent-deck/agent-deck/backend/ratelimit"
)

// Rate limits of proxied calls: per token (the server's limits) and per service on a deck (the
// server's default, overridden for a deck's services, for a service on every deck, or for one
// service on one deck). The limits of a (deck, service) are part of the call's plan, read once
// per plan; the counting is ratelimit.Limiter's, shared by every replica through PostgreSQL.

// Bounds of the limits one may set.
const (
	maxCallsPerMinute  = 1_000_000
	maxConcurrentCalls = 10_000
)

// Where a limit comes from, most specific first.
const (
	limitFromPair    = "deck_service"
	limitFromService = "service"
	limitFromDeck    = "deck"
	limitFromServer  = "server"
)

// serviceLimitKey names the bucket of a service's calls through a deck ("" for an admin's call
// that names none).
func serviceLimitKey(deckID, serviceID string) string { return "service:" + deckID + ":" + serviceID }

// acquireLimits admits the call under its token's and its (deck, service)'s limits, or refuses
// it with RATE_LIMITED; release ends the call.
func (s *Hub) acquireLimits(ctx context.Context, a backend.Actor, p *callPlan) (release func(), err error) {
	if s.cfg.Limiter == nil {
		return func() {}, nil
	}
	keys := make([]ratelimit.Key, 0, 2)
	if a.TokenID != "" {
		keys = append(keys, ratelimit.Key{Scope: ratelimit.ScopeToken, Name: "token:" + a.TokenID, Limits: s.cfg.TokenLimits})
	}
	keys = append(keys, ratelimit.Key{Scope: ratelimit.ScopeService, Name: serviceLimitKey(p.deckID, p.service.ID), Limits: p.limits})
	release, refused := s.cfg.Limiter.Acquire(ctx, keys...)
	if refused != nil {
		return release, rateLimited(ctx, refused, p)
	}
	return release, nil
}

// rateLimited is the teaching refusal of a call over a limit: which limit, and when to retry.
func rateLimited(ctx context.Context, r *ratelimit.Refusal, p *callPlan) error {
	secs := max(1, int(math.Ceil(r.RetryAfter.Seconds())))
	what := fmt.Sprintf("%d calls a minute", r.Value)
	if r.Limit == ratelimit.LimitConcurrentCalls {
		what = fmt.Sprintf("%d calls in flight at once", r.Value)
	}
	var msg, change string
	if r.Key.Scope == ratelimit.ScopeToken {
		msg = "rate limited: this token may make " + what
		change = "serve --token-calls-per-minute and --token-concurrent-calls"
	} else {
		msg = "rate limited: calls to service " + backend.QuoteClip(p.service.Name)
		change = "agent-deck service limits " + p.service.Name
		if p.rules.name != "" {
			msg += " through deck " + backend.QuoteClip(p.rules.name)
			change = "agent-deck deck limits " + p.rules.name + " " + p.service.Name
		}
		msg += " may be " + what
	}
	retry := fmt.Sprintf("retry in %d s", secs)
	if r.Limit == ratelimit.LimitConcurrentCalls {
		retry = fmt.Sprintf("retry when one of the calls in flight ends (in about %d s)", secs)
	}
	return backend.Errorf(backend.CodeRateLimited, "%s", msg).
		WithDetail("scope", string(r.Key.Scope)).WithDetail("limit", r.Limit).WithDetail("limit_value", r.Value).
		WithDetail(backend.DetailRetryAfter, secs).
		WithHint(retry + "; " + backend.InWordsOf(ctx, "an admin changes the limit: "+change,
			"if the limit is too low for the task, tell the user: an admin changes it ("+change+")"))
}

// planLimits resolves the limits of a service's calls through a deck ("" for none).
func (s *Hub) planLimits(ctx context.Context, deckID, serviceID string) (ratelimit.Limits, error) {
	if s.cfg.Limiter == nil {
		return ratelimit.Limits{}, nil
	}
	v, err := s.resolveLimits(ctx, deckID, serviceID)
	return ratelimit.Limits{CallsPerMinute: v.CallsPerMinute, ConcurrentCalls: v.ConcurrentCalls}, err
}

// RateLimits are the limits that apply to a subject, and where each comes from: deck_service,
// service, deck or server.
type RateLimits struct {
	DeckID                string `json:"deck_id,omitempty"`
	DeckName              string `json:"deck_name,omitempty"`
	ServiceID             string `json:"service_id,omitempty"`
	ServiceName           string `json:"service_name,omitempty"`
	CallsPerMinute        int    `json:"calls_per_minute"`
	CallsPerMinuteSource  string `json:"calls_per_minute_source"`
	ConcurrentCalls       int    `json:"concurrent_calls"`
	ConcurrentCallsSource string `json:"concurrent_calls_source"`
	// Token are the limits of every token, the server's.
	Token ratelimit.Limits `json:"token"`
}

// RateLimitsInput overrides the limits of a subject: a deck's services (Deck alone), a service
// on every deck (Service alone) or a service on a deck (both). A nil limit inherits; 0 means no
// limit; both nil remove the override.
type RateLimitsInput struct {
	Deck            string `json:"-"`
	Service         string `json:"-"`
	CallsPerMinute  *int   `json:"calls_per_minute,omitempty"`
	ConcurrentCalls *int   `json:"concurrent_calls,omitempty"`
}

// RateLimitsOf shows the limits that apply to a subject (see RateLimitsInput).
func (s *Hub) RateLimitsOf(ctx context.Context, in RateLimitsInput) (RateLimits, error) {
	if _, err := backend.RequireRead(ctx, "read rate limits"); err != nil {
		return RateLimits{}, err
	}
	deck, svc, err := s.limitSubject(ctx, in)
	if err != nil {
		return RateLimits{}, err
	}
	v, err := s.resolveLimits(ctx, deck.ID, svc.ID)
	v.DeckID, v.DeckName, v.ServiceID, v.ServiceName = deck.ID, deck.Name, svc.ID, svc.Name
	return v, err
}

// SetRateLimits overrides the limits of a subject. Admin only.
func (s *Hub) SetRateLimits(ctx context.Context, in RateLimitsInput) (RateLimits, error) {
	if _, err := backend.RequireAdmin(ctx, "change rate limits"); err != nil {
		return RateLimits{}, err
	}
	for _, f := range []struct {
		name     string
		v        *int
		most     int
		accepted string
	}{{"calls_per_minute", in.CallsPerMinute, maxCallsPerMinute, "calls a minute"},
		{"concurrent_calls", in.ConcurrentCalls, maxConcurrentCalls, "calls in flight at once"}} {
		if f.v != nil && (*f.v < 0 || *f.v > f.most) {
			return RateLimits{}, backend.Invalid(f.name, "must be 0 (no limit) to %d %s, or null to inherit; got %d", f.most, f.accepted, *f.v)
		}
	}
	deck, svc, err := s.limitSubject(ctx, in)
	if err != nil {
		return RateLimits{}, err
	}
	st := backend.RateLimitSetting{DeckID: deck.ID, ServiceID: svc.ID, CallsPerMinute: in.CallsPerMinute, ConcurrentCalls: in.ConcurrentCalls}
	if err := s.store.SetRateLimitSetting(ctx, st); err != nil {
		return RateLimits{}, backend.StoreErr("saving rate limits", err)
	}
	return s.RateLimitsOf(ctx, in)
}

// limitSubject resolves the deck and service a limit is about; a service named with a deck
// must be on it.
func (s *Hub) limitSubject(ctx context.Context, in RateLimitsInput) (backend.Deck, backend.ServiceRecord, error) {
	var deck backend.Deck
	var svc backend.ServiceRecord
	var err error
	if in.Deck == "" && in.Service == "" {
		return deck, svc, backend.Invalid("deck", "name a deck, a service, or both")
	}
	if in.Deck != "" {
		if deck, err = s.deckByRef(ctx, s.store, in.Deck); err != nil {
			return deck, svc, err
		}
	}
	if in.Service != "" {
		if svc, err = backend.ServiceByRef(ctx, s.store, in.Service); err != nil {
			return deck, svc, err
		}
	}
	if deck.ID != "" && svc.ID != "" {
		links, err := s.deckLinks(ctx, deck.ID)
		if err != nil {
			return deck, svc, backend.StoreErr("listing deck cards", err)
		}
		if !slices.Contains(idsOfType(links, backend.CardService), svc.ID) {
			return deck, svc, backend.Errorf(backend.CodeInvalidArgument, "service %s is not on deck %s", svc.Name, deck.Name).
				WithDetail("field", "service").WithHint("link the service to the deck first, or set the service's own limits")
		}
	}
	return deck, svc, nil
}

// resolveLimits takes each limit from the most specific setting that sets it: the pair's, the
// service's, the deck's, else the server's default.
func (s *Hub) resolveLimits(ctx context.Context, deckID, serviceID string) (RateLimits, error) {
	v := RateLimits{CallsPerMinute: s.cfg.ServiceLimits.CallsPerMinute, CallsPerMinuteSource: limitFromServer,
		ConcurrentCalls: s.cfg.ServiceLimits.ConcurrentCalls, ConcurrentCallsSource: limitFromServer, Token: s.cfg.TokenLimits}
	rows, err := s.store.RateLimitSettings(ctx, deckID, serviceID)
	if err != nil {
		return v, backend.StoreErr("reading rate limits", err)
	}
	rank := func(st backend.RateLimitSetting) (int, string) {
		switch {
		case st.DeckID != "" && st.ServiceID != "":
			return 3, limitFromPair
		case st.ServiceID != "":
			return 2, limitFromService
		default:
			return 1, limitFromDeck
		}
	}
	calls, conc := 0, 0
	for _, st := range rows {
		r, src := rank(st)
		if st.DeckID != "" && st.DeckID != deckID || st.ServiceID != "" && st.ServiceID != serviceID {
			continue
		}
		if st.CallsPerMinute != nil && r > calls {
			calls, v.CallsPerMinute, v.CallsPerMinuteSource = r, *st.CallsPerMinute, src
		}
		if st.ConcurrentCalls != nil && r > conc {
			conc, v.ConcurrentCalls, v.ConcurrentCallsSource = r, *st.ConcurrentCalls, src
		}
	}
	return v, nil
}
