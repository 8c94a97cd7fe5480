package mcptools

import (
	"context"

	"github.com/agent-deck/agent-deck/backend"
)

// sessionWords is backend.ToolWords for one profile and scope: how a session of that profile
// calls each canonical tool, computed from the registry once. The core writes its hints with
// backend.ToolFor, so a hint never names a tool the session does not have (issue 27).
type sessionWords struct {
	resource bool
	// tools maps a canonical tool, and "tool action" for tools with an action parameter, to how
	// the session calls it; a tool the session cannot call is absent.
	tools map[string]string
}

// Tool implements backend.ToolWords.
func (w sessionWords) Tool(canonical, action string) string {
	if action != "" {
		if s, ok := w.tools[canonical+" "+action]; ok {
			return s
		}
		if w.resource {
			return ""
		}
	}
	return w.tools[canonical]
}

// newSessionWords builds the words of profile p under a read-only scope or not.
func newSessionWords(p Profile, readOnly bool) sessionWords {
	w := sessionWords{resource: p == ProfileResource, tools: map[string]string{}}
	if !w.resource {
		have := map[string]bool{}
		for _, n := range ToolNames(p, readOnly) {
			have[n] = true
		}
		for _, t := range Tools() {
			if !have[t.Name] {
				continue
			}
			w.tools[t.Name] = t.Name
			for _, a := range actionValues(t) {
				w.tools[t.Name+" "+a] = t.Name + " (action " + a + ")"
			}
		}
		return w
	}
	for _, t := range Tools() {
		if t.Tier != TierResource {
			continue
		}
		view, ok := t, true
		if readOnly {
			view, ok = t.readOnlyView()
		}
		if !ok {
			continue
		}
		for _, a := range view.actions {
			say := t.Name + " action " + a.name
			if fixed, ok := a.fixed["action"].(string); ok {
				w.tools[a.canonical+" "+fixed] = say
			}
			if _, seen := w.tools[a.canonical]; !seen {
				w.tools[a.canonical] = say
			}
		}
	}
	return w
}

// actionValues are the values of a canonical tool's action parameter, for "tool (action x)".
func actionValues(t ToolSpec) []string {
	for _, p := range t.Params {
		if p.Name == "action" {
			return p.Enum
		}
	}
	return nil
}

// withWords puts the words of the call's session into ctx for the core's hints.
func (h *Handler) withWords(ctx context.Context) context.Context {
	p, readOnly := h.profile, false
	if st := stateFrom(ctx); st != nil {
		p, readOnly = st.effectiveProfile(), !st.actor.Scope.CanWrite()
	}
	return backend.WithToolWords(ctx, h.words[visibility{p, readOnly}])
}
