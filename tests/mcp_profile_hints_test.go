package tests

import (
	"slices"
	"strings"
	"testing"

	"github.com/agent-deck/agent-deck/backend"
)

// TestMCPProfileHints holds issue 15 item 7: a tool of a wider profile is refused with the
// profile that has it and how to connect with that profile; a tool no profile has is not found,
// with the session's own tools.
func TestMCPProfileHints(t *testing.T) {
	d := startAgentDeck(t)
	rt := d.stack.connect(t, d.stack.token(backend.ScopeAgent), nil, "?profile=runtime")
	t.Run("07 a tool of a wider profile teaches which profile has it", func(t *testing.T) {
		if slices.Contains(rt.toolNames(), "create_deck") {
			t.Fatal("a runtime session lists create_deck")
		}
		e := rt.fails("create_deck", map[string]any{"name": "pc-sneaky"})
		if !strings.Contains(e.Message, "profile standard") || !strings.Contains(e.Hint, "?profile=standard") ||
			!strings.Contains(strings.ToLower(e.Hint), "x-agent-deck-profile") {
			t.Errorf("error = %+v, want it to name profile standard and how to connect with it", e)
		}
		if _, err := d.stack.svc.GetDeck(d.stack.adminCtx(), "pc-sneaky"); backend.ErrorCode(err) != backend.CodeNotFound {
			t.Errorf("the refused call created the deck: %v", err)
		}
	})
	t.Run("07 a tool no profile has is not found, with the session's tools", func(t *testing.T) {
		_, err := rt.callErr("no_such_tool", map[string]any{})
		if err == nil || !strings.Contains(err.Error(), "not found") ||
			!strings.Contains(err.Error(), "get_bound_deck") || strings.Contains(err.Error(), "create_deck") {
			t.Errorf("error = %v, want not found listing the runtime tools", err)
		}
	})
}
