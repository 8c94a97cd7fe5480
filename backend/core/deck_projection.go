package core

import (
	"context"
	"encoding/json"
	"fmt"
	"regexp"
	"strings"

	"github.com/agent-deck/agent-deck/backend"
)

// Projected tools (opt-in per deck): a bound session's tools/list carries, after the profile's
// own tools, the deck's downstream tools as tools of their own, named <service>__<tool>, with the
// downstream's own input schema and annotations. They are exactly the tools call_service_tool
// reaches (deck rules, disabled tools, agent:read, a held tool shown as held), and calling one is
// a call_service_tool of that tool. A deck caps them in number and in model tokens; the first
// tool that would pass a cap ends the list, and the binding says so.

// Projection caps: the defaults of a deck that turns projection on without naming them, and
// the bounds of what it may name.
const (
	DefaultProjectionTools  = 40
	DefaultProjectionTokens = 8000
	MaxProjectionTools      = 1000
	MinProjectionTokens     = 100
	MaxProjectionTokens     = 1000000
)

// projectedSep separates the service from the tool in a projected name.
const projectedSep = "__"

// mcpToolName is what MCP allows as a tool name.
var mcpToolName = regexp.MustCompile(`^[A-Za-z0-9_.-]{1,128}$`)

// DeckProjectionInput turns a deck's projection on (with caps; zero takes the default, or what
// the deck has) or off.
type DeckProjectionInput struct {
	Enabled   bool `json:"enabled"`
	MaxTools  int  `json:"max_tools,omitempty"`
	MaxTokens int  `json:"max_tokens,omitempty"`
}

// DeckProjectionView is a deck's projection setting and what it projects now.
type DeckProjectionView struct {
	DeckID    string `json:"deck_id"`
	DeckName  string `json:"deck_name"`
	Enabled   bool   `json:"enabled"`
	MaxTools  int    `json:"max_tools,omitempty"`
	MaxTokens int    `json:"max_tokens,omitempty"`
	// Now is what the deck projects at this moment (to an admin's view of its tools).
	Now *ProjectionStatus `json:"now,omitempty"`
}

// ProjectionStatus says how much of a deck's tools a projection carries.
type ProjectionStatus struct {
	Tools    int `json:"tools"`
	Tokens   int `json:"tokens"`
	Eligible int `json:"eligible"`
	// Capped is the clear word when a cap stopped the list; "" when every tool fits.
	Capped  string       `json:"capped,omitempty"`
	Skipped []SkippedSvc `json:"not_projected,omitempty"`
}

// ProjectedTool is one downstream tool as a tool of its own: its projected name, the tool it
// stands for, and the parts of the downstream's definition a tools/list shows.
type ProjectedTool struct {
	Name         string
	ServiceID    string
	ServiceName  string
	ToolName     string
	Title        string
	Description  string
	InputSchema  json.RawMessage
	OutputSchema json.RawMessage
	Annotations  json.RawMessage
}

// Projection is what a session's tools/list carries beyond its profile's tools.
type Projection struct {
	Tools  []ProjectedTool
	Status ProjectionStatus
}

// SetDeckProjection turns a deck's projected tools on or off. Admin only, like the deck's other
// settings for what its sessions see.
func (s *Hub) SetDeckProjection(ctx context.Context, deckRef string, in DeckProjectionInput) (DeckProjectionView, error) {
	a, err := backend.RequireAdmin(ctx, "turn a deck's projected tools on or off")
	if err != nil {
		return DeckProjectionView{}, err
	}
	d, err := s.deckByRef(ctx, s.store, deckRef)
	if err != nil {
		return DeckProjectionView{}, err
	}
	var p *backend.DeckProjection
	if in.Enabled {
		cur, _, err := s.deckProjection(ctx, d.ID)
		if err != nil {
			return DeckProjectionView{}, err
		}
		if p, err = projectionCaps(in, cur); err != nil {
			return DeckProjectionView{}, err
		}
	}
	if err := s.store.SetDeckProjection(ctx, d.ID, p); err != nil {
		return DeckProjectionView{}, backend.StoreErr("setting a deck's tool projection", err)
	}
	return s.projectionView(ctx, a, d)
}

// projectionCaps checks the caps asked for; zero keeps the deck's current cap, or the default.
func projectionCaps(in DeckProjectionInput, cur backend.DeckProjection) (*backend.DeckProjection, error) {
	p := &backend.DeckProjection{MaxTools: in.MaxTools, MaxTokens: in.MaxTokens}
	if p.MaxTools == 0 {
		p.MaxTools = cmpOr(cur.MaxTools, DefaultProjectionTools)
	}
	if p.MaxTokens == 0 {
		p.MaxTokens = cmpOr(cur.MaxTokens, DefaultProjectionTokens)
	}
	switch {
	case p.MaxTools < 1 || p.MaxTools > MaxProjectionTools:
		return nil, backend.Invalid("max_tools", "must be between 1 and %d, got %d", MaxProjectionTools, p.MaxTools)
	case p.MaxTokens < MinProjectionTokens || p.MaxTokens > MaxProjectionTokens:
		return nil, backend.Invalid("max_tokens", "must be between %d and %d, got %d", MinProjectionTokens,
			MaxProjectionTokens, p.MaxTokens)
	}
	return p, nil
}

func cmpOr(v, def int) int {
	if v > 0 {
		return v
	}
	return def
}

// DeckProjection reads a deck's projection setting and what it projects now.
func (s *Hub) DeckProjection(ctx context.Context, deckRef string) (DeckProjectionView, error) {
	a, err := backend.RequireAdmin(ctx, "read a deck's projected tools")
	if err != nil {
		return DeckProjectionView{}, err
	}
	d, err := s.deckByRef(ctx, s.store, deckRef)
	if err != nil {
		return DeckProjectionView{}, err
	}
	return s.projectionView(ctx, a, d)
}

// projectionView renders the setting, with what it projects now when it is on.
func (s *Hub) projectionView(ctx context.Context, a backend.Actor, d backend.Deck) (DeckProjectionView, error) {
	p, on, err := s.deckProjection(ctx, d.ID)
	if err != nil {
		return DeckProjectionView{}, err
	}
	v := DeckProjectionView{DeckID: d.ID, DeckName: d.Name, Enabled: on}
	if !on {
		return v, nil
	}
	v.MaxTools, v.MaxTokens = p.MaxTools, p.MaxTokens
	ids, err := s.deckServiceIDs(ctx, d.ID)
	if err != nil {
		return DeckProjectionView{}, err
	}
	plan := func(ctx context.Context, id string) (*callPlan, error) { return s.deckPlan(ctx, a, d.ID, id) }
	prefixes, err := s.deckPrefixes(ctx, d)
	if err != nil {
		return DeckProjectionView{}, err
	}
	tools, skipped := s.deckTools(ctx, a, ids, plan)
	proj := project(tools, p, prefixes)
	proj.Status.Skipped = skipped
	v.Now = &proj.Status
	return v, nil
}

// deckProjection reads a deck's projection setting, from this replica's cache while the change
// feed listens.
func (s *Hub) deckProjection(ctx context.Context, deckID string) (backend.DeckProjection, bool, error) {
	if e, ok := cacheGet(s.cache, projectionMap, deckID); ok {
		return e.p, e.on, nil
	}
	gen, _ := s.cache.generation()
	p, on, err := s.store.DeckProjection(ctx, deckID)
	if err != nil {
		return backend.DeckProjection{}, false, backend.StoreErr("reading a deck's tool projection", err)
	}
	cachePut(s.cache, projectionMap, gen, deckID, projectionEntry{p: p, on: on})
	return p, on, nil
}

// deckServiceIDs are the ids of the deck's services, in deck order.
func (s *Hub) deckServiceIDs(ctx context.Context, deckID string) ([]string, error) {
	links, err := s.deckLinks(ctx, deckID)
	if err != nil {
		return nil, backend.StoreErr("listing deck cards", err)
	}
	return idsOfType(links, backend.CardService), nil
}

// ProjectedTools is what a session's tools/list carries beyond its profile's tools: nothing
// unless the session is bound to a deck that projects its tools.
func (s *Hub) ProjectedTools(ctx context.Context, sessionID string) (Projection, error) {
	a, err := backend.RequireRead(ctx, "list projected tools")
	if err != nil {
		return Projection{}, err
	}
	sess, err := s.sessionFor(ctx, sessionID)
	if err != nil || sess.DeckID == "" {
		return Projection{}, err
	}
	p, on, err := s.deckProjection(ctx, sess.DeckID)
	if err != nil || !on {
		return Projection{}, err
	}
	ids, err := s.deckServiceIDs(ctx, sess.DeckID)
	if err != nil {
		return Projection{}, err
	}
	d, err := s.deckByRefCached(ctx, sess.DeckID)
	if err != nil {
		return Projection{}, err
	}
	prefixes, err := s.deckPrefixes(ctx, d)
	if err != nil {
		return Projection{}, err
	}
	tools, skipped := s.deckTools(ctx, a, ids, s.boundPlans(sessionID))
	proj := project(tools, p, prefixes)
	proj.Status.Skipped = skipped
	return proj, nil
}

// project turns the deck's tools into projected tools, in deck order, until a cap is reached.
func project(tools []deckTool, caps backend.DeckProjection, prefixes map[string]string) Projection {
	var out Projection
	for _, t := range tools {
		name := prefixes[t.service.ID] + projectedSep + t.tool.Name
		if !mcpToolName.MatchString(name) {
			continue // a name MCP does not allow: still reached through call_service_tool
		}
		out.Status.Eligible++
		if out.Status.Capped != "" {
			continue
		}
		pt := projectTool(name, t)
		cost := estimateTokens(string(pt.InputSchema)+string(pt.OutputSchema)+string(pt.Annotations)+
			pt.Title+pt.Description+pt.Name) + 8
		switch {
		case len(out.Tools) >= caps.MaxTools:
			out.Status.Capped = fmt.Sprintf("the deck's cap of %d projected tools was reached", caps.MaxTools)
		case out.Status.Tokens+cost > caps.MaxTokens:
			out.Status.Capped = fmt.Sprintf("the deck's cap of %d tokens of projected tools was reached", caps.MaxTokens)
		default:
			out.Tools = append(out.Tools, pt)
			out.Status.Tokens += cost
		}
	}
	out.Status.Tools = len(out.Tools)
	if out.Status.Capped != "" {
		out.Status.Capped += fmt.Sprintf(": %d of the deck's %d tools are tools of their own; reach the others with "+
			"list_service_tools (query finds one by purpose) and call_service_tool", out.Status.Tools, out.Status.Eligible)
	}
	return out
}

// projectTool renders one tool: the downstream's own definition under the projected name; a held
// tool by its name only, saying why calls to it are refused.
func projectTool(name string, t deckTool) ProjectedTool {
	pt := ProjectedTool{Name: name, ServiceID: t.service.ID, ServiceName: t.service.Name, ToolName: t.tool.Name,
		InputSchema: json.RawMessage(`{"type":"object"}`)}
	if t.held != "" {
		pt.Description = fmt.Sprintf("Held by Agent Deck: %s. Calls are refused until a person approves it (agent-deck service approve).", t.held)
		return pt
	}
	var def struct {
		Title        string          `json:"title"`
		Description  string          `json:"description"`
		InputSchema  json.RawMessage `json:"inputSchema"`
		OutputSchema json.RawMessage `json:"outputSchema"`
		Annotations  json.RawMessage `json:"annotations"`
	}
	if json.Unmarshal(t.tool.Raw, &def) != nil {
		return pt
	}
	pt.Title, pt.Description, pt.OutputSchema, pt.Annotations = def.Title, def.Description, def.OutputSchema, def.Annotations
	if len(def.InputSchema) > 0 {
		pt.InputSchema = def.InputSchema
	}
	return pt
}

// deckPrefixes names each service of the deck for projected names (servicePrefixes).
func (s *Hub) deckPrefixes(ctx context.Context, d backend.Deck) (map[string]string, error) {
	v, err := s.deckViews(ctx, d)
	if err != nil {
		return nil, err
	}
	return servicePrefixes(v.records), nil
}

// servicePrefixes names each service for projected names, in deck order: its name in lower case
// with anything but letters and digits made one underscore, unique on the deck (a later service
// of the same prefix gets _2, _3 …). Every service of the deck takes part, reachable or not, so
// a name stays what it is while the deck's services do.
func servicePrefixes(services []backend.ServiceRecord) map[string]string {
	out := map[string]string{}
	taken := map[string]bool{}
	for _, svc := range services {
		base := servicePrefix(svc.Name)
		p := base
		for i := 2; taken[p]; i++ {
			p = fmt.Sprintf("%s_%d", base, i)
		}
		taken[p], out[svc.ID] = true, p
	}
	return out
}

func servicePrefix(name string) string {
	var b strings.Builder
	under := false
	for _, r := range strings.ToLower(name) {
		if r >= 'a' && r <= 'z' || r >= '0' && r <= '9' {
			b.WriteRune(r)
			under = false
		} else if !under && b.Len() > 0 {
			b.WriteByte('_')
			under = true
		}
	}
	p := strings.TrimSuffix(b.String(), "_")
	if len(p) > 40 {
		p = strings.TrimSuffix(p[:40], "_")
	}
	if p == "" {
		p = "service"
	}
	return p
}

// ResolveProjectedTool finds the service and tool a projected name stands for on the session's
// deck; NOT_FOUND when the deck projects no tools or no service of it has the name's prefix.
// Calling it is then exactly a call_service_tool, whose checks decide the rest.
func (s *Hub) ResolveProjectedTool(ctx context.Context, sessionID, name string) (serviceID, tool string, err error) {
	if _, err := backend.RequireRead(ctx, "call projected tools"); err != nil {
		return "", "", err
	}
	notFound := backend.Errorf(backend.CodeNotFound, "no projected tool is named %s", backend.QuoteClip(name)).
		WithHint("call one of the tools this session lists, or call_service_tool")
	prefix, tool, ok := strings.Cut(name, projectedSep)
	if !ok || tool == "" {
		return "", "", notFound
	}
	sess, err := s.boundSession(ctx, sessionID)
	if err != nil {
		return "", "", err
	}
	if _, on, err := s.deckProjection(ctx, sess.DeckID); err != nil || !on {
		return "", "", cmpErr(err, notFound)
	}
	d, err := s.deckByRefCached(ctx, sess.DeckID)
	if err != nil {
		return "", "", err
	}
	prefixes, err := s.deckPrefixes(ctx, d)
	if err != nil {
		return "", "", err
	}
	for id, p := range prefixes {
		if p == prefix {
			return id, tool, nil
		}
	}
	return "", "", notFound
}

// cmpErr is err when there is one, else fallback.
func cmpErr(err, fallback error) error {
	if err != nil {
		return err
	}
	return fallback
}

// projectionNote is what a binding says of the deck's projected tools; nil when the deck
// projects none.
func (s *Hub) projectionNote(ctx context.Context, sess backend.MCPSession) *ProjectionStatus {
	if sess.DeckID == "" {
		return nil
	}
	if _, on, err := s.deckProjection(ctx, sess.DeckID); err != nil || !on {
		return nil
	}
	proj, err := s.ProjectedTools(WithSession(ctx, sess), sess.ID)
	if err != nil {
		return nil
	}
	return &proj.Status
}
