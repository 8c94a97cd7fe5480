package core

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/agent-deck/agent-deck/backend"
)

// ToolInfo is a downstream tool as listed to people and agents: the downstream's own tool
// object, byte for byte, plus whether it is enabled on this deck server.
type ToolInfo struct {
	Name    string          `json:"name"`
	Enabled bool            `json:"enabled"`
	Tool    json.RawMessage `json:"tool"`
	// Held marks a tool whose definition differs from its approved pin, or that is new since
	// the first contact: calls are refused (TOOL_CHANGED) until an admin approves it. Agents
	// then get only the tool's name in Tool; admins also get the approved definition.
	Held         bool            `json:"held,omitempty"`
	HeldReason   string          `json:"held_reason,omitempty"`
	ApprovedTool json.RawMessage `json:"approved_tool,omitempty"`
	// Override is what a person set in place of the downstream's text; Tool shows it applied.
	// Admins also get the downstream's own definition in OwnTool.
	Override *backend.ToolOverride `json:"override,omitempty"`
	OwnTool  json.RawMessage       `json:"own_tool,omitempty"`
}

// ToolSettingsInput disables some of a service's tools.
type ToolSettingsInput struct {
	DisabledTools []string `json:"disabled_tools"`
}

// CallInput calls one downstream tool. Arguments is a JSON object (or a JSON string holding one).
type CallInput struct {
	ToolName  string          `json:"tool_name"`
	Arguments json.RawMessage `json:"arguments,omitempty"`
	// Deck is the deck (id or name) through which an agent token reaches the service; it must
	// link the service. Admin tokens may leave it empty.
	Deck string `json:"deck,omitempty"`
}

// maxToolNameChars bounds a disabled tool name; MCP tool names are short identifiers.
const maxToolNameChars = 200

// ListServiceTools lists a service's tools: all of them with Enabled for admins, only enabled
// ones for agents. An agent token names the deck that links the service.
func (s *Hub) ListServiceTools(ctx context.Context, ref, deck string) ([]ToolInfo, error) {
	a, err := backend.RequireRead(ctx, "list service tools")
	if err != nil {
		return nil, err
	}
	p, err := s.deckPlan(ctx, a, deck, ref)
	if err != nil {
		return nil, err
	}
	return s.listServiceTools(ctx, a, p)
}

// listServiceTools lists the tools of a plan's service, through its deck, whose rules hide tools.
func (s *Hub) listServiceTools(ctx context.Context, a backend.Actor, p *callPlan) ([]ToolInfo, error) {
	tools, err := s.downstream.ListTools(ctx, p.target)
	s.syncHealth(ctx, p.service, false)
	if err != nil {
		return nil, err
	}
	out := make([]ToolInfo, 0, len(tools))
	for _, tool := range tools {
		enabled := tool.Enabled && p.rules.settings.Allows(tool.Name)
		if a.Kind == backend.ActorAgent && !enabled {
			continue
		}
		ov, has := p.service.ToolOverrides[tool.Name]
		info := ToolInfo{Name: tool.Name, Enabled: enabled, Tool: overridden(tool.Raw, ov, has)}
		if has && a.IsAdmin() {
			info.Override, info.OwnTool = &ov, tool.Raw
		}
		p.pins.markHeld(&info, tool, a.IsAdmin())
		out = append(out, info)
	}
	return out, nil
}

// ToolSettingsResult is the service after a tool-settings change, with a warning when some
// names could not be checked against the service's tools.
type ToolSettingsResult struct {
	backend.ServiceCard
	Warnings []Warning `json:"warnings,omitempty"`
}

// UpdateServiceToolSettings sets the disabled tools. A name the service does not list is
// refused, listing its tools closest first; when the service cannot be reached, the names are
// kept and a warning says which ones could not be checked, and why.
func (s *Hub) UpdateServiceToolSettings(ctx context.Context, ref string, in ToolSettingsInput) (ToolSettingsResult, error) {
	if _, err := backend.RequireWrite(ctx, "change a service's tool settings"); err != nil {
		return ToolSettingsResult{}, err
	}
	names, err := cleanToolNames("disabled_tools", in.DisabledTools)
	if err != nil {
		return ToolSettingsResult{}, err
	}
	rec, err := backend.ServiceByRef(ctx, s.store, ref)
	if err != nil {
		return ToolSettingsResult{}, err
	}
	if err := changesService(ctx, rec); err != nil {
		return ToolSettingsResult{}, err
	}
	warning, err := s.checkToolNames(ctx, rec, names)
	if err != nil {
		return ToolSettingsResult{}, err
	}
	rec.DisabledTools = backend.OrEmpty(names)
	if err := s.store.UpdateService(ctx, &rec); err != nil {
		return ToolSettingsResult{}, backend.StoreErr("saving tool settings", err)
	}
	res := ToolSettingsResult{ServiceCard: s.serviceView(rec)}
	if warning != nil {
		res.Warnings = []Warning{*warning}
	}
	return res, nil
}

// checkToolNames refuses names the service does not list. When the list cannot be fetched now,
// it returns a warning naming what could not be checked (against the last list seen, if any).
func (s *Hub) checkToolNames(ctx context.Context, rec backend.ServiceRecord, names []string) (*Warning, error) {
	if len(names) == 0 || s.downstream == nil {
		return nil, nil
	}
	tools, reason := s.existingTools(ctx, rec)
	if reason == "" {
		if unknown := backend.NotIn(names, tools); len(unknown) > 0 {
			ranked := backend.ByCloseness(unknown[0], tools)
			return nil, backend.Invalid("disabled_tools", "%s has no tool named %s; its tools, closest first: %s",
				rec.Name, backend.QuoteNames(unknown), strings.Join(backend.CapList(ranked), ", ")).
				WithDetail("unknown", unknown).WithDetail("accepted", backend.CapList(ranked)).
				WithHint("disabled_tools accepts the service's tool names; " + toolLister(ctx) + " shows them")
		}
		return nil, nil
	}
	unchecked := names
	if st, ok := s.downstream.Status(rec.ID); ok && st.Tools != nil {
		last := make([]string, len(st.Tools))
		for i, t := range st.Tools {
			last[i] = t.Name
		}
		unchecked = backend.NotIn(names, last)
	}
	if len(unchecked) == 0 {
		return nil, nil
	}
	return &Warning{Code: "TOOLS_UNCHECKED", Message: fmt.Sprintf(
		"kept %s without checking that %s has such tools: %s; %s shows its tools once it answers",
		backend.QuoteNames(unchecked), rec.Name, reason, toolLister(ctx))}, nil
}

// toolLister is where the caller reads a service's tools: list_service_tools in an agent's
// words, the REST route for a person.
func toolLister(ctx context.Context) string {
	return backend.InWordsOf(ctx, "GET /api/v1/services/{service}/tools", backend.ToolFor(ctx, "list_service_tools"))
}

// CheckService refreshes a service's health by reaching it now. An agent token names the deck
// that links the service (reachableService).
func (s *Hub) CheckService(ctx context.Context, ref, deck string) (backend.Health, error) {
	a, err := backend.RequireRead(ctx, "check a service")
	if err != nil {
		return backend.Health{}, err
	}
	if ref, err = s.reachableService(ctx, a, ref, deck); err != nil {
		return backend.Health{}, err
	}
	rec, t, err := s.serviceTarget(ctx, ref)
	if backend.ErrorCode(err) == backend.CodeDownstreamAuth {
		// The credential is missing or unreadable: that is the service's health.
		now := s.clock()
		h := backend.Health{Status: backend.HealthAuthRequired, LastError: backend.AsError(err).Message, LastCheckedAt: &now,
			LastSuccessAt: rec.Health.LastSuccessAt}
		s.saveHealth(ctx, rec.ID, h)
		return h, nil
	}
	if err == nil && t.PerPerson() {
		// A personal service is checked with the caller's own secret, as their calls go.
		t, err = s.personTarget(ctx, a, rec, t)
	}
	if err != nil {
		return backend.Health{}, err
	}
	h := s.downstream.Check(ctx, t)
	s.syncHealth(ctx, rec, true)
	return h, nil
}

// serviceTarget resolves a service and builds its target. rec is set whenever the service was
// found, even if the target could not be built.
func (s *Hub) serviceTarget(ctx context.Context, ref string) (backend.ServiceRecord, backend.Target, error) {
	if rec, t, ok := s.cachedServiceTarget(ref); ok && !(backend.OAuthToken{ExpiresAt: t.OauthExpires}).NeedsRefresh(s.clock()) &&
		s.seesCached(ctx, backend.CardService, rec.ID, rec.OwnerID) {
		// Learned again: the service may have been forgotten (changed) since it was cached.
		s.cfg.Redactor.Learn(t.ServiceID, t.Secrets)
		return rec, t, nil
	}
	gen, _ := s.cache.generation()
	rec, err := backend.ServiceByRef(ctx, s.store, ref)
	if err != nil {
		return backend.ServiceRecord{}, backend.Target{}, err
	}
	if s.downstream == nil {
		return rec, backend.Target{}, backend.Errorf(backend.CodeDownstreamUnreachable, "downstream services cannot be reached from this process").
			WithDetail("service_id", rec.ID).WithDetail("service_name", rec.Name)
	}
	t, err := s.target(ctx, rec)
	if err != nil {
		return rec, backend.Target{}, err
	}
	cachePut(s.cache, serviceMap, gen, rec.ID, serviceEntry{rec: rec, target: t})
	return rec, t, nil
}

// requireReadOnlyTool refuses, under agent:read, a tool not annotated readOnlyHint: true. An
// unknown tool is left to the proxy, whose NOT_FOUND names the closest ones.
func (s *Hub) requireReadOnlyTool(ctx context.Context, rec backend.ServiceRecord, t backend.Target, name string) error {
	tools, err := s.downstream.ListTools(ctx, t)
	if err != nil {
		s.syncHealth(ctx, rec, false)
		return err
	}
	var readOnlyNames []string
	found, allowed := false, false
	for _, tool := range tools {
		ro := readOnly(rec, tool)
		if ro && tool.Enabled {
			readOnlyNames = append(readOnlyNames, tool.Name)
		}
		if tool.Name == name {
			found, allowed = true, ro
		}
	}
	if !found || allowed {
		return nil
	}
	hint := "use a token with scope agent to call it"
	if len(readOnlyNames) > 0 {
		hint += "; read-only tools of " + rec.Name + ": " + strings.Join(backend.CapList(readOnlyNames), ", ")
	}
	return backend.Refuse(backend.ScopeAgentRead, fmt.Sprintf("call %s of %s, which is not annotated readOnlyHint: true (only read-only tools)",
		name, rec.Name)).WithDetail("service_id", rec.ID).WithDetail("tool", name).WithHint(hint)
}

// existingTools returns the names of the service's tools, or why its list cannot be fetched now.
func (s *Hub) existingTools(ctx context.Context, rec backend.ServiceRecord) (names []string, unreachable string) {
	t, err := s.target(ctx, rec)
	if err != nil {
		return nil, "its configuration cannot be used (" + string(backend.ErrorCode(err)) + ")"
	}
	ctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	tools, err := s.downstream.ListTools(ctx, t)
	if err != nil {
		return nil, "the service cannot be reached right now (" + string(backend.ErrorCode(err)) + ")"
	}
	names = make([]string, len(tools))
	for i, tool := range tools {
		names[i] = tool.Name
	}
	return names, ""
}

// cleanToolNames trims, drops empty and repeated names, and bounds the list of field.
func cleanToolNames(field string, in []string) ([]string, error) {
	if len(in) > 1000 {
		return nil, backend.Invalid(field, "at most 1000 tools, got %d", len(in))
	}
	seen := map[string]bool{}
	out := []string{}
	for _, n := range in {
		n = strings.TrimSpace(n)
		if n == "" || seen[n] {
			continue
		}
		if utf8.RuneCountInString(n) > maxToolNameChars {
			return nil, backend.Invalid(field, "tool name %q is longer than %d characters", backend.Clip(n, 40), maxToolNameChars)
		}
		seen[n] = true
		out = append(out, n)
	}
	return out, nil
}

// syncHealth persists the proxy's live health when its status differs from the stored one, or
// always after an explicit check. Calls on a steady service write nothing.
func (s *Hub) syncHealth(ctx context.Context, rec backend.ServiceRecord, explicit bool) {
	st, ok := s.downstream.Status(rec.ID)
	if ok && st.TalksBack && !rec.TalksBack {
		s.markTalksBack(ctx, rec.ID)
	}
	if !ok || st.Health.Status == "" {
		return
	}
	if !explicit && (st.Health.Status == backend.HealthUnknown || st.Health.Status == rec.Health.Status) {
		return
	}
	s.saveHealth(ctx, rec.ID, st.Health)
}

// markTalksBack records that the service's downstream talks back, so every replica and every
// restart makes its calls take turns from the first one (proxy/floor.go).
func (s *Hub) markTalksBack(ctx context.Context, id string) {
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 5*time.Second)
	defer cancel()
	if err := s.store.MarkServiceTalksBack(ctx, id); err != nil {
		s.log.Warn("recording that a service talks back failed", "service_id", id, "error", backend.ErrorCode(err))
	}
}

// saveHealth stores h (without the stderr tail, which stays live-only), even if the request
// that observed it was cancelled.
func (s *Hub) saveHealth(ctx context.Context, id string, h backend.Health) {
	h.Stderr = ""
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 5*time.Second)
	defer cancel()
	if err := s.store.UpdateServiceHealth(ctx, id, h); err != nil {
		s.log.Warn("saving service health failed", "service_id", id, "error", backend.ErrorCode(err))
	}
}

// reachableService applies deck scoping to a service reached directly (REST): an admin may
// reach any service; an agent token only one linked to the deck it names, as an MCP session
// only reaches its bound deck's services. It returns the service's id for agents.
func (s *Hub) reachableService(ctx context.Context, a backend.Actor, ref, deckRef string) (string, error) {
	if a.IsAdmin() {
		return ref, nil
	}
	if strings.TrimSpace(deckRef) == "" {
		return "", s.deckNotNamed(ctx, a)
	}
	d, err := s.deckByRef(ctx, s.store, deckRef)
	if err != nil {
		return "", err
	}
	links, err := s.store.ListLinks(ctx, d.ID)
	if err != nil {
		return "", backend.StoreErr("listing deck cards", err)
	}
	ref = strings.TrimSpace(ref)
	id, ok, err := findLinked(ctx, s.store, backend.CardService, idsOfType(links, backend.CardService), ref)
	if err != nil {
		return "", err
	}
	if ok && ref != "" {
		return id, nil
	}
	return "", s.notOnNamedDeck(ctx, d, links, ref)
}

// deckNotNamed refuses an agent token that reaches a service without naming a deck.
func (s *Hub) deckNotNamed(ctx context.Context, a backend.Actor) error {
	names, err := s.deckNames(ctx)
	if err != nil {
		return err
	}
	return backend.Refuse(a.Scope, "reach a service without naming a deck that links it").
		WithHint("name the deck with \"deck\" in the body, the "+backend.HeaderDeck+" header or ?deck=; decks: "+backend.KnownList(names)).
		WithDetail("field", "deck").WithDetail("decks", backend.CapList(names))
}

// notOnNamedDeck refuses an agent token a service the deck it named does not link.
func (s *Hub) notOnNamedDeck(ctx context.Context, d backend.Deck, links []backend.CardLink, ref string) error {
	ref = strings.TrimSpace(ref)
	names, err := describeCards(ctx, s.store, backend.CardService, idsOfType(links, backend.CardService))
	if err != nil {
		return err
	}
	return backend.Errorf(backend.CodeForbidden, "service %s is not on deck %s; services on the deck: %s",
		backend.QuoteClip(ref), backend.QuoteClip(d.Name), backend.KnownList(names)).
		WithHint("use a service on that deck, name another deck with \"deck\", or link the service to the deck first").
		WithDetail("field", "deck").WithDetail("deck", d.Name).WithDetail("on_deck", backend.CapList(names))
}
