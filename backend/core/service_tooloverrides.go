package core

// Per-tool overrides: a person fixes a bad title or description, or sets annotations
// (readOnlyHint, destructiveHint, openWorldHint), for one tool of a service. Agents see the
// override in place of the downstream's own text (list_service_tools, GET …/tools), and the
// agent:read check reads the overridden readOnlyHint; pins keep comparing the downstream's own
// definition, so a changed downstream tool is still held whatever its override says.

import (
	"context"
	"encoding/json"
	"maps"
	"strings"

	"github.com/agent-deck/agent-deck/backend"
)

// maxOverrideChars bounds an overridden title or description.
const maxOverrideChars = 4000

// SetToolOverride sets (or, with an empty override, clears) one tool's override. Admin only:
// marking a tool read-only opens it to agent:read tokens.
func (s *Hub) SetToolOverride(ctx context.Context, ref, tool string, in backend.ToolOverride) (backend.ServiceCard, error) {
	if _, err := backend.RequireAdmin(ctx, "override a downstream tool's title, description or annotations"); err != nil {
		return backend.ServiceCard{}, err
	}
	names, err := cleanToolNames("tool", []string{tool})
	if err != nil {
		return backend.ServiceCard{}, err
	}
	if len(names) != 1 {
		return backend.ServiceCard{}, backend.Invalid("tool", "the name of the tool to override is required")
	}
	tool = names[0]
	for field, v := range map[string]*string{"title": in.Title, "description": in.Description} {
		if v != nil && (len(*v) > maxOverrideChars || !validText(*v)) {
			return backend.ServiceCard{}, backend.Invalid(field, "expected text of at most %d characters, without control characters", maxOverrideChars)
		}
	}
	rec, err := backend.ServiceByRef(ctx, s.store, ref)
	if err != nil {
		return backend.ServiceCard{}, err
	}
	if !in.Empty() {
		if _, err := s.checkToolNames(ctx, rec, []string{tool}); err != nil {
			return backend.ServiceCard{}, err
		}
	}
	next := maps.Clone(rec.ToolOverrides)
	if next == nil {
		next = map[string]backend.ToolOverride{}
	}
	if in.Empty() {
		delete(next, tool)
	} else {
		next[tool] = in
	}
	rec.ToolOverrides = next
	if err := s.store.UpdateService(ctx, &rec); err != nil {
		return backend.ServiceCard{}, backend.StoreErr("saving a tool override", err)
	}
	return s.serviceView(rec), nil
}

// validText refuses control characters other than newline and tab.
func validText(v string) bool {
	return !strings.ContainsFunc(v, func(r rune) bool { return r < 0x20 && r != '\n' && r != '\t' || r == 0x7f })
}

// overridden returns the tool object with the override applied; raw when there is none or it
// cannot be read as an object.
func overridden(raw json.RawMessage, o backend.ToolOverride, ok bool) json.RawMessage {
	if !ok || o.Empty() {
		return raw
	}
	var m map[string]json.RawMessage
	if json.Unmarshal(raw, &m) != nil || m == nil {
		return raw
	}
	set := func(k string, v any) { m[k], _ = json.Marshal(v) }
	if o.Title != nil {
		set("title", *o.Title)
	}
	if o.Description != nil {
		set("description", *o.Description)
	}
	if o.ReadOnlyHint != nil || o.DestructiveHint != nil || o.OpenWorldHint != nil {
		var ann map[string]json.RawMessage
		_ = json.Unmarshal(m["annotations"], &ann)
		if ann == nil {
			ann = map[string]json.RawMessage{}
		}
		for k, v := range map[string]*bool{"readOnlyHint": o.ReadOnlyHint, "destructiveHint": o.DestructiveHint, "openWorldHint": o.OpenWorldHint} {
			if v != nil {
				ann[k], _ = json.Marshal(*v)
			}
		}
		set("annotations", ann)
	}
	out, err := json.Marshal(m)
	if err != nil {
		return raw
	}
	return out
}

// readOnly is whether agent:read may call the tool: the override's readOnlyHint when set, else
// the downstream's.
func readOnly(rec backend.ServiceRecord, tool backend.DownstreamTool) bool {
	if o, ok := rec.ToolOverrides[tool.Name]; ok && o.ReadOnlyHint != nil {
		return *o.ReadOnlyHint
	}
	return tool.ReadOnly
}
