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

// ApproveToolsInput names the tools to approve; none approves every held tool.
type ApproveToolsInput struct {
	Tools []string `json:"tools,omitempty"`
}

// ToolApproval is one tool whose current definition an approval pinned.
type ToolApproval struct {
	Name string `json:"name"`
	// Change is what the approval accepted: "new tool" or what changed.
	Change string `json:"change"`
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

// ApproveServiceTools pins the current definitions of the named tools (or of every held tool),
// so calls to them go through again. Admin only: approving is the person's review.
func (s *Hub) ApproveServiceTools(ctx context.Context, ref string, in ApproveToolsInput) (ToolApprovals, error) {
	a, err := backend.RequireAdmin(ctx, "approve downstream tool definitions")
	if err != nil {
		return ToolApprovals{}, err
	}
	names, err := cleanToolNames("tools", in.Tools)
	if err != nil {
		return ToolApprovals{}, err
	}
	rec, t, err := s.serviceTarget(ctx, ref)
	if err == nil && t.PersonalCredential {
		t, err = s.personTarget(ctx, a, rec, t)
	}
	if err != nil {
		return ToolApprovals{}, err
	}
	if !rec.PinTools {
		return ToolApprovals{}, backend.Errorf(backend.CodeConflict, "tool pinning is off for %s: no tool is held, there is nothing to approve", rec.Name).
			WithDetail("service_id", rec.ID).WithHint("turn pinning on with pin_tools: true to hold changed tools")
	}
	tools, err := s.downstream.ListTools(ctx, t)
	s.syncHealth(ctx, rec, false)
	if err != nil {
		return ToolApprovals{}, err
	}
	view, err := s.pinsFor(ctx, rec, t, tools)
	if err != nil {
		return ToolApprovals{}, err
	}
	chosen, err := chooseTools(rec, tools, names)
	if err != nil {
		return ToolApprovals{}, err
	}
	out := ToolApprovals{ServiceID: rec.ID, ServiceName: rec.Name, Approved: []ToolApproval{}, Unchanged: []string{}}
	var pins []backend.ToolPin
	by := "admin"
	if a.TokenID != "" {
		by += " " + a.TokenID
	}
	for _, tool := range chosen {
		reason := view.heldReason(tool)
		if reason == "" {
			out.Unchanged = append(out.Unchanged, tool.Name)
			continue
		}
		pins = append(pins, newPin(rec.ID, tool, by, s.clock()))
		out.Approved = append(out.Approved, ToolApproval{Name: tool.Name, Change: reason})
	}
	if len(pins) > 0 {
		if err := s.store.ApproveToolPins(ctx, rec.ID, pins); err != nil {
			return ToolApprovals{}, backend.StoreErr("approving tool definitions", err)
		}
	}
	return out, nil
}

// chooseTools returns the named tools (all of them when none is named); a name the service does
// not list is refused before anything is written.
func chooseTools(rec backend.ServiceRecord, tools []backend.DownstreamTool, names []string) ([]backend.DownstreamTool, error) {
	if len(names) == 0 {
		return tools, nil
	}
	var out []backend.DownstreamTool
	for _, n := range names {
		i := slices.IndexFunc(tools, func(t backend.DownstreamTool) bool { return t.Name == n })
		if i < 0 {
			known := make([]string, len(tools))
			for j, t := range tools {
				known[j] = t.Name
			}
			return nil, backend.Invalid("tools", "%s has no tool named %q; its tools: %s", rec.Name, backend.Clip(n, 60),
				strings.Join(backend.CapList(known), ", ")).WithDetail("accepted", backend.CapList(known))
		}
		out = append(out, tools[i])
	}
	return out, nil
}

// pinView is what pinning says about one service's tools at one moment.
type pinView struct {
	on     bool
	pins   map[string]backend.ToolPin
	hashes *hashMemo
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
	return pinView{on: true, pins: pins, hashes: s.hashes}, nil
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
