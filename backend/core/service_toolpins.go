package core

// Tool-definition pinning: rug-pull protection (SPEC §5).
//
// A downstream server can change a tool's description or schema after the person chose it (the
// "tool poisoning" rug pull: new instructions hidden in a description the model reads). So the
// deck pins each tool's definition — the raw tools/list object minus _meta, as canonical JSON,
// by its sha256 — and holds a tool whose definition no longer matches its pin:
//
//   - First contact is trusted (trust on first use): the first time the deck reads a service's
//     tool list, every tool is pinned as it is.
//   - After first contact, a tool whose definition changed is held, and so is a tool that
//     appears later: its text is just as unreviewed. A tool that disappears is simply gone; its
//     pin stays, so if it comes back changed it is held too.
//   - Pins belong to the service, not to its URL or command: a card pointed at another server
//     holds every tool that server defines differently.
//   - A held tool is refused by call_service_tool (MCP) and POST /services/{id}/call (REST) with
//     TOOL_CHANGED, whose message says what changed, and is marked in list_service_tools. Agents
//     see a held tool's name and why it is held, never its unapproved text (which may be the
//     poison); admins see the new definition beside the approved one, to review it.
//   - Only an admin approves (REST, `agent-deck service approve`); MCP has no tool for it.
//   - pin_tools=false turns pinning off for servers the person trusts to change: nothing is held
//     and no pin is kept. Turning it off lowers protection and needs admin (on create too);
//     turning it on is open to agents and pins the tools as they are at the next contact.
//
// The check on a call runs inside the proxy's own resolution of the tool (Target.Admit), on the
// very definition the call will use, so a list refreshed between a check and the call cannot
// slip an unapproved definition through.

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/agent-deck/agent-deck/backend"
)

// ApproveToolsInput names the tools to approve; none approves every held tool. Hashes, when
// given, approve exactly those held definitions (as `service tools` shows them).
type ApproveToolsInput struct {
	Tools  []string `json:"tools,omitempty"`
	Hashes []string `json:"hashes,omitempty"`
}

// ToolApproval is one tool whose held definition an approval pinned.
type ToolApproval struct {
	Name string `json:"name"`
	// Change is what the approval accepted: "new tool" or what changed.
	Change string `json:"change"`
	// Hash is the definition pinned.
	Hash string `json:"hash"`
}

// ToolApprovals reports an approval: what was pinned anew and what already matched its pin.
type ToolApprovals struct {
	ServiceID   string         `json:"service_id"`
	ServiceName string         `json:"service_name"`
	Approved    []ToolApproval `json:"approved"`
	Unchanged   []string       `json:"unchanged"`
}

// heldNew is the held reason of a tool that appeared after the first contact.
const heldNew = "new tool, added after the service was first reached"

// ApproveServiceTools pins held definitions of the named tools (or of every held tool), so
// calls to them go through again. What is held is the one view across every connection
// (ListHeldTools): no prior check is needed, and what is pinned is the definition shown, by
// hash. A tool held with several definitions (connections served different ones) is approved
// only by naming the hash. Admin only: approving is the person's review.
func (s *Hub) ApproveServiceTools(ctx context.Context, ref string, in ApproveToolsInput) (ToolApprovals, error) {
	a, err := backend.RequireAdmin(ctx, "approve downstream tool definitions")
	if err != nil {
		return ToolApprovals{}, err
	}
	names, err := cleanToolNames("tools", in.Tools)
	if err != nil {
		return ToolApprovals{}, err
	}
	hashes, err := cleanHashes(in.Hashes)
	if err != nil {
		return ToolApprovals{}, err
	}
	rec, t, err := s.serviceTarget(ctx, ref)
	if err == nil && t.PerPerson() {
		t, err = s.personTarget(ctx, a, rec, t)
	}
	if err != nil {
		return ToolApprovals{}, err
	}
	if !rec.PinTools {
		return ToolApprovals{}, backend.Errorf(backend.CodeConflict, "tool pinning is off for %s: no tool is held, there is nothing to approve", rec.Name).
			WithDetail("service_id", rec.ID).WithHint("turn pinning on with pin_tools: true to hold changed tools")
	}
	listed, lerr := s.downstream.ListTools(ctx, t)
	s.syncHealth(ctx, rec, false)
	if lerr != nil {
		listed = nil
	}
	view, err := s.pinsFor(ctx, rec, t, listed)
	if err != nil {
		if lerr != nil {
			return ToolApprovals{}, lerr
		}
		return ToolApprovals{}, err
	}
	held, err := s.heldTools(ctx, rec, view, listed)
	if err != nil {
		return ToolApprovals{}, err
	}
	if lerr != nil && len(held) == 0 {
		return ToolApprovals{}, lerr
	}
	if err := knownTools(rec, listed, held, view, names); err != nil {
		return ToolApprovals{}, err
	}
	out := ToolApprovals{ServiceID: rec.ID, ServiceName: rec.Name, Approved: []ToolApproval{}, Unchanged: []string{}}
	byTool := map[string][]HeldTool{}
	var order []string
	for _, h := range held {
		if len(names) > 0 && !slices.Contains(names, h.Name) {
			continue
		}
		if len(hashes) > 0 && !slices.Contains(hashes, h.Hash) {
			continue
		}
		if _, ok := byTool[h.Name]; !ok {
			order = append(order, h.Name)
		}
		byTool[h.Name] = append(byTool[h.Name], h)
	}
	for _, h := range hashes {
		if !slices.ContainsFunc(held, func(x HeldTool) bool { return x.Hash == h }) {
			return ToolApprovals{}, backend.Invalid("hashes", "no held definition of %s has hash %s; agent-deck service tools %s lists the held ones",
				rec.Name, backend.Clip(h, 70), shellQuote(rec.Name))
		}
	}
	var pins []backend.ToolPin
	by := "admin"
	if a.TokenID != "" {
		by += " " + a.TokenID
	}
	for _, name := range order {
		defs := byTool[name]
		if len(defs) > 1 {
			list := make([]string, len(defs))
			for i, d := range defs {
				list[i] = d.Hash + " (" + d.Change + "; seen on " + strings.Join(d.SeenOn, ", ") + ")"
			}
			return ToolApprovals{}, backend.Errorf(backend.CodeConflict, "tool %s of %s is held with %d different definitions: %s",
				quoteName(name), rec.Name, len(defs), strings.Join(list, "; ")).
				WithDetail("service_id", rec.ID).WithDetail("tool", name).
				WithHint("review them with: agent-deck service tools " + shellQuote(rec.Name) +
					", then approve one with: agent-deck service approve " + shellQuote(rec.Name) + " " + shellQuote(name) + " --hash HASH")
		}
		d := defs[0]
		pins = append(pins, backend.ToolPin{ServiceID: rec.ID, ToolName: name, Hash: d.Hash, Definition: d.Definition,
			ApprovedAt: s.clock(), ApprovedBy: by})
		out.Approved = append(out.Approved, ToolApproval{Name: name, Change: d.Change, Hash: d.Hash})
	}
	for _, tool := range listed {
		if (len(names) == 0 || slices.Contains(names, tool.Name)) && byTool[tool.Name] == nil && len(hashes) == 0 {
			out.Unchanged = append(out.Unchanged, tool.Name)
		}
	}
	for _, n := range names {
		if byTool[n] == nil && !slices.Contains(out.Unchanged, n) && len(hashes) == 0 {
			out.Unchanged = append(out.Unchanged, n)
		}
	}
	if len(pins) > 0 {
		if err := s.store.ApproveToolPins(ctx, rec.ID, pins); err != nil {
			return ToolApprovals{}, backend.StoreErr("approving tool definitions", err)
		}
		s.holds.forget(rec.ID)
	}
	return out, nil
}

// knownTools refuses, before anything is written, a name that is neither listed, held nor pinned.
func knownTools(rec backend.ServiceRecord, listed []backend.DownstreamTool, held []HeldTool, view pinView, names []string) error {
	for _, n := range names {
		if slices.ContainsFunc(listed, func(t backend.DownstreamTool) bool { return t.Name == n }) ||
			slices.ContainsFunc(held, func(h HeldTool) bool { return h.Name == n }) {
			continue
		}
		if _, ok := view.pins[n]; ok {
			continue
		}
		known := make([]string, len(listed))
		for j, t := range listed {
			known[j] = t.Name
		}
		return backend.Invalid("tools", "%s has no tool named %q; its tools: %s", rec.Name, backend.Clip(n, 60),
			strings.Join(backend.CapList(known), ", ")).WithDetail("accepted", backend.CapList(known))
	}
	return nil
}

// cleanHashes checks approve's hashes: sha256 hex digests.
func cleanHashes(in []string) ([]string, error) {
	var out []string
	for _, h := range in {
		h = strings.ToLower(strings.TrimSpace(h))
		if len(h) != 64 || strings.Trim(h, "0123456789abcdef") != "" {
			return nil, backend.Invalid("hashes", "%q is not a definition hash: expected the 64 hex digits `service tools` shows", backend.Clip(h, 70))
		}
		out = append(out, h)
	}
	return out, nil
}

// pinView is what pinning says about one service's tools at one moment, as seen on one
// connection (seenOn).
type pinView struct {
	on     bool
	pins   map[string]backend.ToolPin
	hashes *hashMemo
	// hold records a held definition, so every surface shows the same holds (holds.go).
	hold   func(tool backend.DownstreamTool)
	seenOn string
}

// pinsFor returns the service's pins, first pinning every tool when this is the first contact.
// tools is the list just read, or nil to read it here when needed.
func (s *Hub) pinsFor(ctx context.Context, rec backend.ServiceRecord, t backend.Target, tools []backend.DownstreamTool) (pinView, error) {
	if !rec.PinTools {
		return pinView{}, nil
	}
	if rec.ToolsPinnedAt == nil {
		if tools == nil {
			var err error
			if tools, err = s.downstream.ListTools(ctx, t); err != nil {
				return pinView{}, err
			}
		}
		pins := make([]backend.ToolPin, len(tools))
		for i, tool := range tools {
			pins[i] = newPin(rec.ID, tool, "first use", s.clock())
		}
		if _, err := s.store.PinToolsFirstUse(ctx, rec.ID, pins); err != nil {
			return pinView{}, backend.StoreErr("pinning tool definitions", err)
		}
	}
	pins, err := s.toolPins(ctx, rec.ID)
	if err != nil {
		return pinView{}, err
	}
	seenOn := seenOnLabel(rec.ID, t.ConnKey)
	return pinView{on: true, pins: pins, hashes: s.hashes, seenOn: seenOn,
		hold: func(tool backend.DownstreamTool) { s.recordHold(rec.ID, seenOn, tool) }}, nil
}

// toolPins reads the service's pins, from this replica's cache while the change feed listens.
func (s *Hub) toolPins(ctx context.Context, serviceID string) (map[string]backend.ToolPin, error) {
	if m, ok := cacheGet(s.cache, pinMap, serviceID); ok {
		return m, nil
	}
	gen, _ := s.cache.generation()
	list, err := s.store.ToolPins(ctx, serviceID)
	if err != nil {
		return nil, backend.StoreErr("reading tool pins", err)
	}
	m := make(map[string]backend.ToolPin, len(list))
	for _, p := range list {
		m[p.ToolName] = p
	}
	cachePut(s.cache, pinMap, gen, serviceID, m)
	return m, nil
}

// heldReason says why a tool is held, "" when it is not.
func (v pinView) heldReason(tool backend.DownstreamTool) string {
	if !v.on {
		return ""
	}
	pin, ok := v.pins[tool.Name]
	if !ok {
		return heldNew
	}
	if v.hashes.hash(tool.Raw) == pin.Hash {
		return ""
	}
	canon, _ := canonicalTool(tool.Raw)
	return strings.Join(toolChanges(pin.Definition, canon), "; ")
}

// admit is the check a call runs on the definition it is about to use (Target.Admit).
func (v pinView) admit(rec backend.ServiceRecord) func(backend.DownstreamTool) error {
	if !v.on {
		return nil
	}
	return func(tool backend.DownstreamTool) error {
		if reason := v.heldReason(tool); reason != "" {
			v.hold(tool)
			return toolChangedError(rec, tool.Name, reason)
		}
		return nil
	}
}

// markHeld marks a listed tool held. Agents get the tool's name only: its unapproved text may be
// the very instructions the pin keeps from the model. Admins get both definitions to review.
func (v pinView) markHeld(info *ToolInfo, tool backend.DownstreamTool, admin bool) {
	reason := v.heldReason(tool)
	if reason == "" {
		return
	}
	info.Held, info.HeldReason = true, reason
	if v.hold != nil {
		v.hold(tool)
	}
	if !admin {
		info.Tool, _ = json.Marshal(map[string]string{"name": tool.Name})
		return
	}
	if pin, ok := v.pins[tool.Name]; ok {
		info.ApprovedTool = pin.Definition
	}
}

// toolChangedError refuses a held tool, saying what changed and what the person must run. The
// tool's name is the downstream's text: it is quoted, and the command shell-quotes it.
func toolChangedError(rec backend.ServiceRecord, tool, reason string) *backend.Error {
	msg := fmt.Sprintf("tool %s of %s is held: its definition changed since it was approved (%s)",
		quoteName(tool), rec.Name, reason)
	if reason == heldNew {
		msg = fmt.Sprintf("tool %s of %s is held: it is a new tool, added after the service was first reached, and not yet approved",
			quoteName(tool), rec.Name)
	}
	return backend.Errorf(backend.CodeToolChanged, "%s", msg).
		WithDetail("service_id", rec.ID).WithDetail("tool", tool).WithDetail("changed", reason).
		WithHint("do not work around it: tell the person the tool changed and ask them to review and approve it with: " +
			"agent-deck service approve " + shellQuote(rec.Name) + " " + shellQuote(tool))
}

// newPin pins a tool's current definition.
func newPin(serviceID string, tool backend.DownstreamTool, by string, at time.Time) backend.ToolPin {
	canon, hash := canonicalTool(tool.Raw)
	return backend.ToolPin{ServiceID: serviceID, ToolName: tool.Name, Hash: hash, Definition: canon, ApprovedAt: at, ApprovedBy: by}
}

// checkPinToolsScope lets only an admin turn pinning off (or create a service without it): that
// lowers the protection. Turning it on is open to anyone who may change the service.
func checkPinToolsScope(ctx context.Context, before bool, after *bool) error {
	if before && after != nil && !*after {
		_, err := backend.RequireAdmin(ctx, "turn off tool pinning (pin_tools: false)")
		return err
	}
	return nil
}

// saveService writes a changed service; turning pinning off drops its pins in the same
// transaction, so turning it on again pins the tools as they are at the next contact.
func (s *Hub) saveService(ctx context.Context, rec *backend.ServiceRecord, wasPinned bool) error {
	if !wasPinned || rec.PinTools {
		return s.store.UpdateService(ctx, rec)
	}
	return s.store.Transact(ctx, func(tx backend.Store) error {
		if err := tx.UpdateService(ctx, rec); err != nil {
			return err
		}
		rec.ToolsPinnedAt = nil
		return tx.ClearToolPins(ctx, rec.ID)
	})
}
