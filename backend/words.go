package backend

import "context"

// ToolWords is how an MCP session calls Agent Deck's canonical tools (bind_workspace,
// get_bound_deck, …), so that every message and hint it reads names a tool it can call: the
// tool itself on the runtime, standard and legacy profiles, its resource action on the resource
// profile, nothing when the session's profile or scope has no way to call it. The MCP surface
// puts the session's words in the context of every tool call; REST and the CLI carry none.
type ToolWords interface {
	// Tool is how the session calls canonical, with action the value of its action parameter
	// when the hint is about one action (manage_deck_card's "link"): "manage_deck_card (action
	// link)", "deck action link"; "" when the session cannot call it.
	Tool(canonical, action string) string
}

type toolWordsKey struct{}

// WithToolWords returns ctx carrying the calling session's words.
func WithToolWords(ctx context.Context, w ToolWords) context.Context {
	return context.WithValue(ctx, toolWordsKey{}, w)
}

// ToolFor names the canonical tool as the caller calls it: in the session's words over MCP;
// the canonical name itself where no words were set (REST, the CLI, the core's own tests).
// "" means the caller cannot call it, and the hint should say what to do instead.
func ToolFor(ctx context.Context, canonical string) string {
	return ToolActionFor(ctx, canonical, "")
}

// ToolActionFor is ToolFor for one action of a tool that takes an action parameter.
func ToolActionFor(ctx context.Context, canonical, action string) string {
	if w, ok := ctx.Value(toolWordsKey{}).(ToolWords); ok && w != nil {
		return w.Tool(canonical, action)
	}
	if action != "" {
		return canonical + " (action " + action + ")"
	}
	return canonical
}
