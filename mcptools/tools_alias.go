package mcptools

import (
	"context"
	"strings"

	"github.com/agent-deck/agent-deck/backend"
	"github.com/agent-deck/agent-deck/backend/core"
)

// alias is one deprecated tool: the canonical tool it calls, the fixed arguments it adds, how
// its own parameters rename, and which part of the canonical answer it returns.
type alias struct {
	name      string
	canonical string
	params    []Param
	fixed     map[string]any
	rename    map[string]string
	project   func(any) any
	use       string
}

// aliases lists the deprecated names of the original Agent Deck, kept for the legacy profile.
func aliases() []alias {
	deckPart := func(part string) func(any) any {
		return func(v any) any {
			d, ok := v.(core.BoundDeck)
			if !ok {
				return v
			}
			switch part {
			case "services":
				return d.Services
			case "credentials":
				return d.Credentials
			}
			return d.Playbooks
		}
	}
	out := []alias{
		{name: "get_active_deck", canonical: "get_bound_deck", use: "get_bound_deck"},
		{name: "list_playbooks", canonical: "get_bound_deck", project: deckPart("playbooks"),
			fixed: map[string]any{"card_type": string(backend.CardPlaybook)}, use: "get_bound_deck (playbooks)"},
	}
	for _, scope := range []string{"bound", "active"} {
		for _, part := range []string{"services", "credentials"} {
			out = append(out, alias{name: "list_" + scope + "_deck_" + part, canonical: "get_bound_deck",
				project: deckPart(part), fixed: map[string]any{"card_type": strings.TrimSuffix(part, "s")},
				use: "get_bound_deck (" + part + ")"})
		}
	}
	for _, t := range backend.CardTypes {
		out = append(out, alias{name: "list_collection_" + string(t) + "s", canonical: "list_collection",
			fixed: map[string]any{"card_type": string(t)}, use: "list_collection card_type=" + string(t)})
	}
	for _, t := range backend.CardTypes {
		idParam := string(t) + "_id"
		out = append(out,
			alias{name: "add_" + string(t) + "_to_bound_deck", canonical: "manage_deck_card",
				params: []Param{{Name: idParam, Type: TString, Required: true}, {Name: "position", Type: TInt}},
				fixed:  map[string]any{"action": "link", "card_type": string(t)},
				rename: map[string]string{idParam: "card_id"}, use: "manage_deck_card action=link"},
			alias{name: "remove_" + string(t) + "_from_bound_deck", canonical: "manage_deck_card",
				params: []Param{{Name: idParam, Type: TString, Required: true}},
				fixed:  map[string]any{"action": "unlink", "card_type": string(t)},
				rename: map[string]string{idParam: "card_id"}, use: "manage_deck_card action=unlink"})
	}
	return out
}

// aliasTools turns the alias table into tool specs whose handlers delegate to the canonical
// tools' handlers, so an alias can never behave differently from the tool it stands for.
func aliasTools(canonical []ToolSpec) []ToolSpec {
	byName := make(map[string]ToolSpec, len(canonical))
	for _, t := range canonical {
		byName[t.Name] = t
	}
	var out []ToolSpec
	for _, a := range aliases() {
		target := byName[a.canonical]
		out = append(out, ToolSpec{Name: a.name, Tier: TierAlias, Access: target.Access,
			Destructive: target.Destructive, Idempotent: target.Idempotent,
			Description: "Deprecated — use " + a.use + ".", Params: a.params, AliasOf: a.canonical,
			run: delegate(a, target.run)})
	}
	return out
}

func delegate(a alias, run runFunc) runFunc {
	return func(ctx context.Context, c *call) (any, error) {
		vals := make(map[string]any, len(c.vals)+len(a.fixed))
		for k, v := range c.vals {
			if to, ok := a.rename[k]; ok {
				k = to
			}
			vals[k] = v
		}
		for k, v := range a.fixed {
			vals[k] = v
		}
		out, err := run(ctx, &call{svc: c.svc, sessionID: c.sessionID, spec: c.spec, vals: vals})
		if err != nil || a.project == nil {
			return out, err
		}
		return a.project(out), nil
	}
}
