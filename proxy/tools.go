package proxy

import (
	"bytes"
	"encoding/json"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/agent-deck/agent-deck/backend"
)

// toolSet is one fetched tool list, with the compiled input schemas cached beside it so a new
// list starts with a fresh cache.
type toolSet struct {
	tools     []backend.DownstreamTool
	byName    map[string]int
	fetchedAt time.Time
	// epoch and conn are the service's epoch when the list was read and the connection it was
	// read on (service.epoch): the list is current only while neither changed.
	epoch uint64
	conn  *conn
	// refusals is service.refusals when the list was asked for (conn.dialer).
	refusals uint64
	// born is the birth of the youngest TCP connection the list vouches for: the last dialed
	// when it was asked for, or the one it was read on if younger (births.go).
	born uint64

	mu      sync.Mutex
	schemas map[string]*compiled
}

// current reports whether a call on c may use this list: it was read on c, and c has neither
// reconnected nor announced list_changed since. An atomic load and a comparison: the hot path
// pays nothing more while nothing changed.
func (ts *toolSet) current(s *service, c *conn) bool {
	return ts.conn == c && ts.epoch == s.epoch.Load()
}

// sameTools reports whether two lists hold the same definitions, byte for byte.
func sameTools(a, b *toolSet) bool {
	if len(a.tools) != len(b.tools) {
		return false
	}
	for i := range a.tools {
		if !bytes.Equal(a.tools[i].Raw, b.tools[i].Raw) {
			return false
		}
	}
	return true
}

func (ts *toolSet) get(name string) (backend.DownstreamTool, bool) {
	i, ok := ts.byName[name]
	if !ok {
		return backend.DownstreamTool{}, false
	}
	return ts.tools[i], true
}

// withEnabled returns a copy of the list with Enabled set from the disabled set.
func (ts *toolSet) withEnabled(disabled map[string]bool) []backend.DownstreamTool {
	out := make([]backend.DownstreamTool, len(ts.tools))
	for i, t := range ts.tools {
		t.Enabled = !disabled[t.Name]
		out[i] = t
	}
	return out
}

// parseTools indexes raw tool objects, keeping each exactly as the downstream sent it.
func parseTools(raws []json.RawMessage) *toolSet {
	ts := &toolSet{byName: map[string]int{}, fetchedAt: time.Now(), schemas: map[string]*compiled{}}
	for _, raw := range raws {
		var meta struct {
			Name        string          `json:"name"`
			InputSchema json.RawMessage `json:"inputSchema"`
			Annotations *struct {
				ReadOnlyHint *bool `json:"readOnlyHint"`
			} `json:"annotations"`
		}
		if err := json.Unmarshal(raw, &meta); err != nil || meta.Name == "" {
			continue
		}
		if _, dup := ts.byName[meta.Name]; dup {
			continue
		}
		ro := meta.Annotations != nil && meta.Annotations.ReadOnlyHint != nil && *meta.Annotations.ReadOnlyHint
		ts.byName[meta.Name] = len(ts.tools)
		ts.tools = append(ts.tools, backend.DownstreamTool{
			Name: meta.Name, ReadOnly: ro, Enabled: true, InputSchema: meta.InputSchema, Raw: raw,
		})
	}
	return ts
}

// notFound says no tool is named name and suggests the closest enabled ones.
func notFound(svcName, svcID, name string, ts *toolSet, disabled map[string]bool) *backend.Error {
	var enabled []string
	for _, t := range ts.tools {
		if !disabled[t.Name] {
			enabled = append(enabled, t.Name)
		}
	}
	closest := closestNames(name, enabled, 3)
	msg := "no tool named " + quote(name) + " on " + svcName
	if len(closest) > 0 {
		msg += "; closest: " + strings.Join(closest, ", ")
	}
	return backend.Errorf(backend.CodeNotFound, "%s", msg).
		WithDetail("service_id", svcID).WithDetail("closest", closest).WithDetail("tool_count", len(enabled)).
		WithHint("list the service's tools to see their names and parameters")
}

func quote(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}

// closestNames returns up to n names nearest to want: those containing it or contained in it
// first, then by edit distance, dropping names too far to be a plausible typo.
func closestNames(want string, names []string, n int) []string {
	type cand struct {
		name string
		dist int
	}
	var cands []cand
	for _, name := range names {
		d := backend.NameDistance(want, name)
		if d <= max(2, len(strings.ToLower(want))/2) {
			cands = append(cands, cand{name, d})
		}
	}
	sort.SliceStable(cands, func(i, j int) bool {
		if cands[i].dist != cands[j].dist {
			return cands[i].dist < cands[j].dist
		}
		return cands[i].name < cands[j].name
	})
	out := []string{}
	for i := 0; i < len(cands) && i < n; i++ {
		out = append(out, cands[i].name)
	}
	return out
}
