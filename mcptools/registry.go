// Package mcptools is Agent Deck's MCP surface: one table of tool specs (name, tier, access,
// schema, handler), the profiles computed from it, the mapping between MCP arguments and
// core.Hub inputs, and the Streamable HTTP endpoint whose sessions live in Postgres.
package mcptools

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"sort"
	"strings"

	"github.com/mark3labs/mcp-go/mcp"

	"github.com/agent-deck/agent-deck/backend"
)

// Tier groups tools by how often agents need them; profiles are unions of tiers.
type Tier int

// Tiers, from the hot path outwards.
const (
	// TierRuntime is what nearly every agent turn needs: bind, read the deck, proxy, playbooks.
	TierRuntime Tier = iota
	// TierEditing lets agents set decks up: link cards, register and update them.
	TierEditing
	// TierAlias holds deprecated names kept while hosts refresh cached tool lists.
	TierAlias
	// TierResource holds the resource profile's tools: one per resource, each action a row
	// pointing at a canonical tool (resource.go).
	TierResource
)

// Access says what a tool may change; it drives readOnlyHint and the read-only scope filter.
type Access int

// Access kinds.
const (
	// Read tools change no card or deck (binding changes only the caller's own session).
	Read Access = iota
	// Write tools change the collection or a deck; hidden under the agent:read scope.
	Write
	// Proxy is call_service_tool: it reaches downstream tools, which the Service limits to
	// read-only ones under agent:read, so it stays visible there.
	Proxy
)

// Profile is a named tool set, computed from the tiers. The names are backend's (one home for
// the whole deck); which tiers each one exposes is its row in profileTiers.
type Profile string

// The profiles code refers to by name.
const (
	ProfileRuntime  Profile = backend.ProfileRuntime
	ProfileStandard Profile = backend.ProfileStandard
	ProfileLegacy   Profile = backend.ProfileLegacy
	ProfileResource Profile = backend.ProfileResource
)

// Profiles lists every profile, smallest first, in backend's order.
var Profiles = func() []Profile {
	out := make([]Profile, len(backend.Profiles))
	for i, name := range backend.Profiles {
		out[i] = Profile(name)
	}
	return out
}()

// profileTiers is the registry's row for each profile: the tiers whose tools it exposes. A
// profile named in backend.Profiles without a row here exposes nothing; a test says so.
var profileTiers = map[Profile][]Tier{
	ProfileRuntime:  {TierRuntime},
	ProfileStandard: {TierRuntime, TierEditing},
	ProfileLegacy:   {TierRuntime, TierEditing, TierAlias},
	ProfileResource: {TierResource},
}

// rank orders profiles by size; -1 for unknown names. A profile sized like another
// (sameSizeAs, profilegate.go) takes that one's rank.
func (p Profile) rank() int {
	if q, ok := sameSizeAs[p]; ok {
		p = q
	}
	for i, q := range Profiles {
		if q == p {
			return i
		}
	}
	return -1
}

// ParseProfile accepts a profile name (case-insensitive, surrounding space ignored).
func ParseProfile(s string) (Profile, error) {
	p := Profile(strings.ToLower(strings.TrimSpace(s)))
	if p.rank() < 0 {
		return "", fmt.Errorf("unknown MCP tool profile %q: use %s", s, backend.ProfileChoices())
	}
	return p, nil
}

// narrower returns b unless it is wider than a; an empty or unknown one does not count. Of two
// profiles of the same size, b wins: asking for resource on a standard server is no widening.
func narrower(a, b Profile) Profile {
	switch {
	case b.rank() < 0:
		return a
	case a.rank() < 0 || b.rank() <= a.rank():
		return b
	}
	return a
}

// includes reports whether the profile exposes tools of tier t.
func (p Profile) includes(t Tier) bool {
	return slices.Contains(profileTiers[p], t)
}

// ToolSpec declares one MCP tool. Every tool the deck serves is one row of Tools().
type ToolSpec struct {
	Name        string
	Tier        Tier
	Access      Access
	Destructive bool
	Idempotent  bool
	Description string
	Params      []Param
	// AliasOf names the canonical tool a deprecated alias delegates to.
	AliasOf string
	// actions are a resource tool's rows (TierResource); its schema is rendered from them.
	actions []resourceAction
	run     runFunc
}

// runFunc maps a decoded call onto one core.Hub method. It returns a value rendered as
// JSON text, or a *mcp.CallToolResult passed through as is.
type runFunc func(ctx context.Context, c *call) (any, error)

// Param declares one tool parameter; it drives the JSON schema, argument decoding and the
// parameter list errors show.
type Param struct {
	Name     string
	Type     ParamType
	Required bool
	Desc     string
	Enum     []string
	// Props are the string properties of a TTextObject, in schema order.
	Props []string
}

// ParamType is the JSON type of a parameter.
type ParamType string

// Parameter types.
const (
	TString   ParamType = "string"
	TInt      ParamType = "integer"
	TBool     ParamType = "boolean"
	TStrings  ParamType = "string[]"
	TStrMap   ParamType = "object<string>"
	TObjOrStr ParamType = "object|string"
	// TObjects is a list of objects, or a string holding one (propose_playbook_patch's ops).
	TObjects ParamType = "object[]"
	// TTextObject is an object of the text properties Props; a plain string sent instead is
	// taken as the first of them (propose_playbook_patch's evidence).
	TTextObject ParamType = "object"
)

// schema renders the parameter's JSON schema, compact, keys in a fixed order.
func (p Param) schema() string {
	var b strings.Builder
	switch p.Type {
	case TStrings:
		b.WriteString(`{"type":"array","items":{"type":"string"}`)
	case TStrMap:
		b.WriteString(`{"type":"object","additionalProperties":{"type":"string"}`)
	case TObjOrStr:
		b.WriteString(`{"type":["object","string"]`)
	case TObjects:
		b.WriteString(`{"type":"array","items":{"type":"object"}`)
	case TTextObject:
		b.WriteString(`{"type":"object","properties":{`)
		for i, name := range p.Props {
			if i > 0 {
				b.WriteString(",")
			}
			b.WriteString(`"` + name + `":{"type":"string"}`)
		}
		b.WriteString("}")
	default:
		b.WriteString(`{"type":"` + string(p.Type) + `"`)
	}
	if len(p.Enum) > 0 {
		enum, _ := json.Marshal(p.Enum)
		b.WriteString(`,"enum":` + string(enum))
	}
	if p.Desc != "" {
		desc, _ := json.Marshal(p.Desc)
		b.WriteString(`,"description":` + string(desc))
	}
	b.WriteString("}")
	return b.String()
}

// inputSchema renders the tool's input schema: an object of its parameters, in order.
func (t *ToolSpec) inputSchema() json.RawMessage {
	if t.Tier == TierResource {
		return t.resourceSchema()
	}
	var b strings.Builder
	b.WriteString(`{"type":"object","properties":{`)
	var required []string
	for i, p := range t.Params {
		if i > 0 {
			b.WriteString(",")
		}
		b.WriteString(`"` + p.Name + `":` + p.schema())
		if p.Required {
			required = append(required, p.Name)
		}
	}
	b.WriteString("}")
	if len(required) > 0 {
		req, _ := json.Marshal(required)
		b.WriteString(`,"required":` + string(req))
	}
	b.WriteString("}")
	return json.RawMessage(b.String())
}

// MCPTool renders the spec as the tool object tools/list shows. Annotations are set on purpose:
// read tools say only readOnlyHint (the other hints mean nothing for them); write and proxy
// tools say whether they destroy data and whether repeating them is harmless.
func (t *ToolSpec) MCPTool() mcp.Tool {
	ann := mcp.ToolAnnotation{ReadOnlyHint: mcp.ToBoolPtr(t.Access == Read)}
	if t.Access != Read {
		ann.DestructiveHint = mcp.ToBoolPtr(t.Destructive)
		ann.IdempotentHint = mcp.ToBoolPtr(t.Idempotent)
	}
	if t.Access == Proxy {
		ann.OpenWorldHint = mcp.ToBoolPtr(true)
	}
	return mcp.Tool{Name: t.Name, Description: t.Description, RawInputSchema: t.inputSchema(),
		Annotations: ann}
}

// paramList describes the parameters for an error message: `a (string, required), b (integer)`.
func (t *ToolSpec) paramList() string {
	if len(t.Params) == 0 {
		return t.Name + " takes no parameters"
	}
	parts := make([]string, len(t.Params))
	for i, p := range t.Params {
		kind := string(p.Type)
		if len(p.Enum) > 0 {
			kind = strings.Join(p.Enum, "|")
		}
		if p.Required {
			kind += ", required"
		}
		parts[i] = p.Name + " (" + kind + ")"
	}
	return t.Name + " takes: " + strings.Join(parts, ", ")
}

// Tools returns the registry: every tool of every tier, canonical tools first, in a fixed order.
func Tools() []ToolSpec {
	tools := append(runtimeTools(), editingTools()...)
	return append(append(tools, aliasTools(tools)...), resourceTools(tools)...)
}

// readOnlyView is the tool as the agent:read scope sees it: a write tool is absent (false); a
// resource tool keeps only its read actions, and is absent when none is left.
func (t ToolSpec) readOnlyView() (ToolSpec, bool) {
	if t.Tier == TierResource {
		return t.readActionsOnly()
	}
	return t, t.Access != Write
}

// ToolNames returns the names of the tools a profile exposes, in registry order; readOnly
// leaves out write tools, as the agent:read scope does.
func ToolNames(p Profile, readOnly bool) []string {
	var names []string
	for _, t := range Tools() {
		if !p.includes(t.Tier) {
			continue
		}
		if _, ok := t.readOnlyView(); readOnly && !ok {
			continue
		}
		names = append(names, t.Name)
	}
	return names
}

// CanonicalToolNames returns the names of a profile's tools without the deprecated aliases, in
// registry order: the tools the harness text may recommend.
func CanonicalToolNames(p Profile) []string {
	var names []string
	for _, t := range Tools() {
		if p.includes(t.Tier) && t.AliasOf == "" {
			names = append(names, t.Name)
		}
	}
	return names
}

// ToolsJSON renders a profile's tools array exactly as tools/list sends it: sorted by name,
// compact JSON. Tests pin its size; benchmarks report it.
func ToolsJSON(p Profile, readOnly bool) ([]byte, error) {
	names := map[string]bool{}
	for _, n := range ToolNames(p, readOnly) {
		names[n] = true
	}
	var tools []mcp.Tool
	for _, t := range Tools() {
		if names[t.Name] {
			if readOnly {
				t, _ = t.readOnlyView()
			}
			tools = append(tools, t.MCPTool())
		}
	}
	sort.Slice(tools, func(i, j int) bool { return tools[i].Name < tools[j].Name })
	return json.Marshal(tools)
}
