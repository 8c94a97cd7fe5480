package core

import (
	"context"
	"encoding/json"
	"sync"
	"time"

	"github.com/agent-deck/agent-deck/backend"
)

// The tools of a deck's services as one caller may use them, which tool search and projected
// tools both start from: enabled by the service and by the deck's rules, read-only under
// agent:read, and a held tool marked held, with its approved definition (never its unreviewed one).

const (
	// deckToolsTimeout bounds reaching one service for its tools.
	deckToolsTimeout = 10 * time.Second
	// deckToolsFanOut is how many services are reached at once.
	deckToolsFanOut = 8
)

// deckTool is one tool of a service on the deck that the caller may use.
type deckTool struct {
	service backend.ServiceRecord
	tool    backend.DownstreamTool
	// held is why the tool is held ("" when it is not); approved is its approved definition.
	held     string
	approved json.RawMessage
}

// planFunc resolves the plan of a call to one service on the deck.
type planFunc func(ctx context.Context, serviceID string) (*callPlan, error)

// deckTools reaches each service (a few at once) for its tools, in deck order. A service that
// cannot be reached, or needs signing in, is skipped and named.
func (s *Hub) deckTools(ctx context.Context, a backend.Actor, ids []string, plan planFunc) ([]deckTool, []SkippedSvc) {
	per := make([][]deckTool, len(ids))
	skipped := make([]*SkippedSvc, len(ids))
	var wg sync.WaitGroup
	sem := make(chan struct{}, deckToolsFanOut)
	for i, id := range ids {
		wg.Add(1)
		go func() {
			defer wg.Done()
			sem <- struct{}{}
			defer func() { <-sem }()
			ctx, cancel := context.WithTimeout(ctx, deckToolsTimeout)
			defer cancel()
			tools, name, err := s.serviceTools(ctx, a, id, plan)
			if err != nil {
				p := backend.Public(err, "")
				if name == "" {
					name = id
				}
				skipped[i] = &SkippedSvc{Service: name, Code: p.Code, Message: p.Message, Hint: p.Hint}
				return
			}
			per[i] = tools
		}()
	}
	wg.Wait()
	var out []deckTool
	var skip []SkippedSvc
	for i := range ids {
		out = append(out, per[i]...)
		if skipped[i] != nil {
			skip = append(skip, *skipped[i])
		}
	}
	return out, skip
}

// serviceTools is one service's tools as the caller may use them.
func (s *Hub) serviceTools(ctx context.Context, a backend.Actor, serviceID string, plan planFunc) ([]deckTool, string, error) {
	p, err := plan(ctx, serviceID)
	if err != nil {
		return nil, p.service.Name, err
	}
	tools, err := s.downstream.ListTools(ctx, p.target)
	s.syncHealth(ctx, p.service, false)
	if err != nil {
		return nil, p.service.Name, err
	}
	var out []deckTool
	for _, tool := range tools {
		if !tool.Enabled || !p.rules.settings.Allows(tool.Name) || a.Scope == backend.ScopeAgentRead && !tool.ReadOnly {
			continue
		}
		dt := deckTool{service: p.service, tool: tool}
		if dt.held = p.pins.heldReason(tool); dt.held != "" {
			if pin, ok := p.pins.pins[tool.Name]; ok {
				dt.approved = pin.Definition
			}
		}
		out = append(out, dt)
	}
	return out, p.service.Name, nil
}

// boundPlans resolves plans through the session's bound deck.
func (s *Hub) boundPlans(sessionID string) planFunc {
	return func(ctx context.Context, serviceID string) (*callPlan, error) {
		return s.boundPlan(ctx, sessionID, serviceID)
	}
}
