package mcptools

import (
	"bytes"
	"context"
	"encoding/json"
	"slices"
	"strings"

	"github.com/agent-deck/agent-deck/backend"
)

// The resource profile: one tool per resource (session, deck, service, playbook), the verb an
// `action` parameter, the address in `id`, the payload under `fields`. Each action is a row
// that points at a canonical tool of the standard profile; the executor translates the call
// into that tool's arguments and runs its handler, so no operation exists twice. Requiredness
// that varies by action is enforced here and taught in the error; the agent:read scope narrows
// each tool's action enum to its read actions.

// resourceAction is one row: resource tool, action name, the canonical tool it runs, the
// canonical parameter the top-level id fills, the canonical parameters that go under fields
// (nil: all but id and fixed), fields required beyond the canonical tool's own, and fixed
// arguments the action adds.
type resourceAction struct {
	resource  string
	name      string
	canonical string
	id        string
	fields    []string
	needs     []string
	fixed     map[string]any

	// Filled from the canonical tool when the table is built.
	access     Access
	idRequired bool
	params     []Param // the fields, typed as the canonical tool types them
}

// resourceHeads is each resource tool's first description line, in tool order; writes is added
// when the tool offers a write action (not under agent:read).
var resourceHeads = []struct{ name, head, writes string }{
	{"session", "Start every chat with bind (id: deck id or name); tell the user its display_summary once. " + casingNote, ""},
	{"deck", "The bound deck and the collection; check get before saying something is missing.",
		"link/unlink/reorder edit the bound deck."},
	{"service", "MCP servers (id: id or name). call runs a tool with the deck's credentials.", ""},
	{"playbook", "Markdown runbooks (id: id or title). Get and follow one when a task matches its triggers.",
		"Fix one with propose."},
}

// resourceTable is every action, grouped by resource. Adding an action is one row.
func resourceTable() []resourceAction {
	link := func(action string, fields ...string) resourceAction {
		return resourceAction{resource: "deck", name: action, canonical: "manage_deck_card", fields: fields,
			needs: fields[1:2], fixed: map[string]any{"action": action}}
	}
	return []resourceAction{
		{resource: "session", name: "bind", canonical: "bind_workspace", id: "deckId"},
		{resource: "session", name: "switch", canonical: "switch_bound_deck", id: "deckId"},
		{resource: "session", name: "get", canonical: "get_session_binding"},
		{resource: "deck", name: "list", canonical: "get_decks"},
		{resource: "deck", name: "get", canonical: "get_bound_deck"},
		{resource: "deck", name: "collection", canonical: "list_collection"},
		{resource: "deck", name: "create", canonical: "create_deck"},
		link("link", "card_type", "card_id", "position"),
		link("unlink", "card_type", "card_id"),
		link("reorder", "card_type", "ordered_card_ids"),
		{resource: "service", name: "tools", canonical: "list_service_tools", id: "serviceId"},
		{resource: "service", name: "call", canonical: "call_service_tool", id: "serviceId"},
		{resource: "service", name: "register", canonical: "register_service"},
		{resource: "service", name: "update", canonical: "update_service", id: "service_id"},
		{resource: "service", name: "disable_tools", canonical: "update_service_tool_settings", id: "service_id"},
		{resource: "playbook", name: "get", canonical: "get_playbook", id: "playbook_id"},
		{resource: "playbook", name: "register", canonical: "register_playbook", id: "playbook_id"},
		{resource: "playbook", name: "update", canonical: "update_playbook", id: "playbook_id"},
		{resource: "playbook", name: "propose", canonical: "propose_playbook_patch", id: "playbook_id"},
	}
}

// resourceTools derives the resource tools from the canonical ones: each action takes its
// access and field types from the tool it runs, and the tool's hints from its actions.
func resourceTools(canonical []ToolSpec) []ToolSpec {
	byName := make(map[string]ToolSpec, len(canonical))
	for _, t := range canonical {
		byName[t.Name] = t
	}
	var out []ToolSpec
	for _, head := range resourceHeads {
		spec := ToolSpec{Name: head.name, Tier: TierResource, Access: Read, Idempotent: true,
			Params: []Param{{Name: "action", Type: TString, Required: true}, {Name: "id", Type: TString},
				{Name: "fields", Type: TObjOrStr}}}
		for _, a := range resourceTable() {
			if a.resource != head.name {
				continue
			}
			target, ok := byName[a.canonical]
			if !ok {
				continue // a row naming no tool is caught by TestResourceInvariants
			}
			a.access = target.Access
			for _, p := range target.Params {
				switch {
				case p.Name == a.id:
					a.idRequired = p.Required
				case a.fixed[p.Name] != nil:
				case a.fields == nil || slices.Contains(a.fields, p.Name):
					p.Required = p.Required || slices.Contains(a.needs, p.Name)
					p.Desc = ""
					a.params = append(a.params, p)
				}
			}
			spec.actions = append(spec.actions, a)
			switch {
			case a.access == Proxy || spec.Access == Proxy:
				spec.Access = Proxy
			case a.access == Write:
				spec.Access = Write
			}
			spec.Destructive = spec.Destructive || target.Destructive
			spec.Idempotent = spec.Idempotent && (target.Access == Read || target.Idempotent)
		}
		spec.Description = resourceDescription(head.name, spec.actions)
		byAction := map[string]resourceAction{}
		for _, a := range spec.actions {
			byAction[a.name] = a
		}
		spec.run = func(ctx context.Context, c *call) (any, error) {
			return runResource(ctx, c, byName, byAction, spec.actions)
		}
		out = append(out, spec)
	}
	return out
}

// signature is how a description shows an action: `link(card_type, card_id, position?)`;
// a long tail of optional fields is cut to the first three.
func (a resourceAction) signature() string {
	var args, optional []string
	if a.id != "" {
		if a.idRequired {
			args = append(args, "id")
		} else {
			optional = append(optional, "id?")
		}
	}
	for _, p := range a.params {
		if p.Required {
			args = append(args, p.Name)
		} else {
			optional = append(optional, p.Name+"?")
		}
	}
	if len(optional) > 3 {
		optional = append(optional[:3], "…")
	}
	return a.name + "(" + strings.Join(append(args, optional...), ", ") + ")"
}

// resourceDescription is the tool's head line and one line per action.
func resourceDescription(tool string, actions []resourceAction) string {
	var lines []string
	for _, h := range resourceHeads {
		if h.name != tool {
			continue
		}
		head := h.head
		if h.writes != "" && slices.ContainsFunc(actions, func(a resourceAction) bool { return a.access == Write }) {
			head += " " + h.writes
		}
		lines = append(lines, head, "Actions:")
	}
	for _, a := range actions {
		lines = append(lines, a.signature())
	}
	return strings.Join(lines, "\n")
}

func actionNames(actions []resourceAction) []string {
	names := make([]string, len(actions))
	for i, a := range actions {
		names[i] = a.name
	}
	return names
}

// readActionsOnly is the tool under the agent:read scope: only actions that change no card or
// deck (a proxy call is limited to read-only downstream tools by the Service); false when none
// is left.
func (t ToolSpec) readActionsOnly() (ToolSpec, bool) {
	var kept []resourceAction
	for _, a := range t.actions {
		if a.access != Write {
			kept = append(kept, a)
		}
	}
	t.actions = kept
	t.Description = resourceDescription(t.Name, kept)
	t.Access = Read
	for _, a := range kept {
		if a.access == Proxy {
			t.Access = Proxy
		}
	}
	return t, len(kept) > 0
}

// resourceSchema renders the tool's input schema: the action enum, the id, and the union of its
// actions' fields, each typed as its canonical tool types it.
func (t *ToolSpec) resourceSchema() json.RawMessage {
	var b strings.Builder
	enum, _ := json.Marshal(actionNames(t.actions))
	b.WriteString(`{"type":"object","properties":{"action":{"type":"string","enum":` + string(enum) + `},`)
	b.WriteString(`"id":{"type":"string"},"fields":{"type":"object","properties":{`)
	seen := map[string]bool{}
	for _, a := range t.actions {
		for _, p := range a.params {
			if seen[p.Name] {
				continue
			}
			if len(seen) > 0 {
				b.WriteString(",")
			}
			seen[p.Name] = true
			p.Required = false
			b.WriteString(`"` + p.Name + `":` + p.schema())
		}
	}
	b.WriteString(`}}},"required":["action"]}`)
	return json.RawMessage(b.String())
}

// runResource checks a call against its action's requirements, translates it into the
// canonical tool's arguments and runs that tool's handler.
func runResource(ctx context.Context, c *call, canonical map[string]ToolSpec,
	byAction map[string]resourceAction, actions []resourceAction) (any, error) {
	tool := c.spec.Name
	name := c.str("action")
	a, ok := byAction[name]
	if !ok {
		return nil, backend.Errorf(backend.CodeInvalidArgument, "%s: unknown action %q — it has: %s", tool,
			clipText(name, 40), strings.Join(actionNames(actions), ", ")).
			WithHint("call " + tool + " with one of its actions; deletes are CLI-only")
	}
	hint := tool + " " + a.signature()
	fields := map[string]json.RawMessage{}
	if raw := c.raw("fields"); len(raw) > 0 {
		if err := json.Unmarshal(raw, &fields); err != nil {
			return nil, backend.Errorf(backend.CodeInvalidArgument, "%s: fields must be a JSON object", tool).
				WithHint(hint)
		}
	}
	accepted := make([]string, len(a.params))
	byName := map[string]bool{}
	for i, p := range a.params {
		accepted[i] = p.Name
		byName[p.Name] = true
	}
	respelled, both := respell(fields, func(f string) bool { return byName[f] })
	if both != "" {
		return nil, backend.Errorf(backend.CodeInvalidArgument, "%s: field %q is given twice, in both casings; send %s only",
			tool, both, both).WithHint(hint)
	}
	for _, r := range respelled {
		c.respelled = append(c.respelled, "fields."+r)
	}
	var unknown []string
	for f := range fields {
		if !byName[f] {
			unknown = append(unknown, f)
		}
	}
	if len(unknown) > 0 {
		slices.Sort(unknown)
		takes := "it takes no fields"
		if len(accepted) > 0 {
			takes = "it accepts: " + strings.Join(accepted, ", ")
		}
		return nil, backend.Errorf(backend.CodeInvalidArgument, "%s: unknown field %s for action %q — %s", tool,
			quoteList(unknown), a.name, takes).WithHint(hint)
	}
	id, hasID := c.vals["id"]
	if hasID && a.id == "" {
		return nil, backend.Errorf(backend.CodeInvalidArgument, "%s: action %q takes no id", tool, a.name).
			WithHint(hint)
	}
	var missing []string
	if a.idRequired && (!hasID || id == "") {
		missing = append(missing, "id")
	}
	for _, p := range a.params {
		if v, ok := fields[p.Name]; p.Required && (!ok || bytes.Equal(bytes.TrimSpace(v), []byte("null"))) {
			missing = append(missing, p.Name)
		}
	}
	if len(missing) > 0 {
		return nil, backend.Errorf(backend.CodeInvalidArgument, "%s: action %q needs %s", tool, a.name,
			andList(missing)).WithHint(hint)
	}
	// Type-check the fields under the resource's own name, so an error names this tool.
	if _, _, err := decodeArgs(&ToolSpec{Name: tool + " " + a.name, Params: a.params}, mustJSON(fields)); err != nil {
		return nil, err
	}
	args := fields
	if hasID {
		args[a.id] = mustJSON(id)
	}
	for k, v := range a.fixed {
		args[k] = mustJSON(v)
	}
	target := canonical[a.canonical]
	vals, _, err := decodeArgs(&target, mustJSON(args))
	if err != nil {
		return nil, err
	}
	return target.run(ctx, &call{svc: c.svc, sessionID: c.sessionID, spec: &target, vals: vals})
}

// andList joins names as "a", "a and b", "a, b and c".
func andList(items []string) string {
	if len(items) < 2 {
		return strings.Join(items, "")
	}
	return strings.Join(items[:len(items)-1], ", ") + " and " + items[len(items)-1]
}

func mustJSON(v any) json.RawMessage {
	b, _ := json.Marshal(v)
	return b
}

// ResourceActions lists a resource tool's actions in table order: its write actions when
// writes is true, else its read ones. Tests use it to cover every action.
func ResourceActions(tool string, writes bool) []string {
	var out []string
	for _, t := range Tools() {
		if t.Name != tool || t.Tier != TierResource {
			continue
		}
		for _, a := range t.actions {
			if (a.access == Write) == writes {
				out = append(out, a.name)
			}
		}
	}
	return out
}
