package core

// One view of what is held. Each connection to a service (its own credential, a deck's own
// credential, on any replica) compares the definitions it is served with the service's pins;
// what one finds held is recorded in service_tool_holds with the connection that saw it. So
// `service tools`, `service approve`, REST and the dashboard show the same holds, with what
// changed, and approve pins exactly the definition shown (by hash), not whatever the server
// serves a moment later through the admin's own connection.

import (
	"context"
	"encoding/json"
	"strings"
	"sync"
	"time"

	"github.com/agent-deck/agent-deck/backend"
)

// seenOnLabel names a connection by the credential it presents.
func seenOnLabel(serviceID, connKey string) string {
	if _, cred, ok := strings.Cut(connKey, "|credential:"); ok && connKey != serviceID {
		return "deck credential " + cred
	}
	return "service credential"
}

// holdMemo remembers which holds this replica recorded recently, so a client calling a held
// tool in a loop does not write a row per call.
type holdMemo struct {
	mu   sync.Mutex
	seen map[string]time.Time
}

// holdRefresh is how often a hold seen again moves its last_seen.
const holdRefresh = time.Minute

func (m *holdMemo) fresh(key string, now time.Time) bool {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.seen == nil || len(m.seen) > 10000 {
		m.seen = map[string]time.Time{}
	}
	if at, ok := m.seen[key]; ok && now.Sub(at) < holdRefresh {
		return true
	}
	m.seen[key] = now
	return false
}

// forgetUnserved forgets the holds of one connection whose definitions are not in served (tool
// name to hash): dropped from the store, they are recorded again when seen again.
func (m *holdMemo) forgetUnserved(serviceID, seenOn string, served map[string]string) {
	m.mu.Lock()
	defer m.mu.Unlock()
	for k := range m.seen {
		parts := strings.Split(k, "\x00")
		if len(parts) == 4 && parts[0] == serviceID && parts[3] == seenOn && served[parts[1]] != parts[2] {
			delete(m.seen, k)
		}
	}
}

func (m *holdMemo) forget(serviceID string) {
	m.mu.Lock()
	defer m.mu.Unlock()
	for k := range m.seen {
		if strings.HasPrefix(k, serviceID+"\x00") {
			delete(m.seen, k)
		}
	}
}

// recordHold writes a held definition before the refusal is answered, so an admin who reads
// the holds next finds it. A failed write is logged: the call stays refused either way.
func (s *Hub) recordHold(serviceID, seenOn string, tool backend.DownstreamTool) {
	canon, hash := canonicalTool(tool.Raw)
	key := serviceID + "\x00" + tool.Name + "\x00" + hash + "\x00" + seenOn
	if s.holds.fresh(key, s.clock()) {
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	h := backend.ToolHold{ServiceID: serviceID, ToolName: tool.Name, Hash: hash, Definition: canon, SeenOn: seenOn}
	if err := s.store.RecordToolHold(ctx, h); err != nil {
		s.log.Warn("recording a held tool", "service_id", serviceID, "err", err)
	}
}

// DownstreamToolsListed is told by the proxy of each full tool list it read afresh on a
// connection (connKey): the holds that connection recorded of definitions it no longer serves
// (a tool gone, or changed again) are dropped, so no surface shows as waiting what no
// connection serves any more. It runs before the list is used, so a hold recorded from this
// list or a later one is never dropped by it; a failure is logged, the holds stay.
func (s *Hub) DownstreamToolsListed(serviceID, connKey string, tools []backend.DownstreamTool) {
	served := make(map[string]string, len(tools))
	for _, tool := range tools {
		served[tool.Name] = s.hashes.hash(tool.Raw)
	}
	seenOn := seenOnLabel(serviceID, connKey)
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if err := s.store.DropUnservedToolHolds(ctx, serviceID, seenOn, served); err != nil {
		if !backend.IsNotFound(err) {
			s.log.Warn("dropping held tools no longer served", "service_id", serviceID, "err", err)
		}
		return
	}
	s.holds.forgetUnserved(serviceID, seenOn, served)
}

// HeldTool is one held definition of a tool, as shown to the admin who approves it.
type HeldTool struct {
	Name string `json:"name"`
	// Hash identifies exactly this definition: approve it with `--hash`.
	Hash string `json:"hash"`
	// Change says what differs from the approved definition, or "new tool".
	Change string `json:"change"`
	// Definition is the held definition (the downstream's own, canonical JSON); Approved the
	// pinned one, absent for a new tool.
	Definition json.RawMessage `json:"definition"`
	Approved   json.RawMessage `json:"approved,omitempty"`
	// SeenOn lists the connections that were served this definition.
	SeenOn    []string  `json:"seen_on"`
	FirstSeen time.Time `json:"first_seen"`
	LastSeen  time.Time `json:"last_seen"`
}

// heldTools merges the recorded holds with what the tools just listed hold (nil: none listed),
// keeping only definitions that still differ from their pin, one entry per (tool, hash).
func (s *Hub) heldTools(ctx context.Context, rec backend.ServiceRecord, view pinView, listed []backend.DownstreamTool) ([]HeldTool, error) {
	holds, err := s.store.ToolHolds(ctx, rec.ID)
	if err != nil {
		return nil, backend.StoreErr("reading held tools", err)
	}
	now := s.clock()
	for _, tool := range listed {
		if view.heldReason(tool) == "" {
			continue
		}
		canon, hash := canonicalTool(tool.Raw)
		holds = append(holds, backend.ToolHold{ServiceID: rec.ID, ToolName: tool.Name, Hash: hash, Definition: canon,
			SeenOn: view.seenOn, FirstSeen: now, LastSeen: now})
	}
	var out []HeldTool
	idx := map[string]int{}
	for _, h := range holds {
		pin, pinned := view.pins[h.ToolName]
		if pinned && pin.Hash == h.Hash {
			continue // approved since
		}
		k := h.ToolName + "\x00" + h.Hash
		if i, ok := idx[k]; ok {
			e := &out[i]
			if !contains(e.SeenOn, h.SeenOn) {
				e.SeenOn = append(e.SeenOn, h.SeenOn)
			}
			e.FirstSeen, e.LastSeen = minTime(e.FirstSeen, h.FirstSeen), maxTime(e.LastSeen, h.LastSeen)
			continue
		}
		e := HeldTool{Name: h.ToolName, Hash: h.Hash, Change: "new tool", Definition: h.Definition,
			SeenOn: []string{h.SeenOn}, FirstSeen: h.FirstSeen, LastSeen: h.LastSeen}
		if pinned {
			e.Change, e.Approved = strings.Join(toolChanges(pin.Definition, h.Definition), "; "), pin.Definition
		}
		idx[k] = len(out)
		out = append(out, e)
	}
	return out, nil
}

// ListHeldTools is the one view of a service's holds, across every connection. Admin only: it
// shows the unapproved text.
func (s *Hub) ListHeldTools(ctx context.Context, ref string) ([]HeldTool, error) {
	if _, err := backend.RequireAdmin(ctx, "review held downstream tool definitions"); err != nil {
		return nil, err
	}
	rec, t, err := s.serviceTarget(ctx, ref)
	if err != nil {
		return nil, err
	}
	if !rec.PinTools {
		return []HeldTool{}, nil
	}
	// What the service's own connection serves now counts too; an unreachable service still
	// shows what other connections recorded.
	listed, lerr := s.downstream.ListTools(ctx, t)
	s.syncHealth(ctx, rec, false)
	if lerr != nil {
		listed = nil
	}
	view, err := s.pinsFor(ctx, rec, t, listed)
	if err != nil {
		if lerr != nil {
			return nil, lerr
		}
		return nil, err
	}
	out, err := s.heldTools(ctx, rec, view, listed)
	if out == nil && err == nil {
		out = []HeldTool{}
	}
	return out, err
}

func contains(list []string, s string) bool {
	for _, v := range list {
		if v == s {
			return true
		}
	}
	return false
}

func minTime(a, b time.Time) time.Time {
	if b.Before(a) {
		return b
	}
	return a
}

func maxTime(a, b time.Time) time.Time {
	if b.After(a) {
		return b
	}
	return a
}
