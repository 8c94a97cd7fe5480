package proxy

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"sort"
	"strings"
	"time"

	"github.com/agent-deck/agent-deck/backend"
)

// staleAfter is how old a cached list must be before an unknown tool name triggers a refetch:
// the tool may have appeared on a server that does not announce list changes.
const staleAfter = time.Second

// callParams is the params object of tools/call, with the caller's arguments passed raw.
type callParams struct {
	Name      string          `json:"name"`
	Arguments json.RawMessage `json:"arguments"`
}

// CallTool checks that the tool exists, is enabled and that args satisfy its input schema,
// then forwards the call under the target's timeout. The result passes through raw, minus the
// downstream's _meta and any echo of the service's secrets; a result over the size cap is
// written to a file and replaced by a descriptor.
func (p *Proxy) CallTool(ctx context.Context, t backend.Target, tool string, args json.RawMessage) (backend.CallResult, error) {
	s, err := p.service(t)
	if err != nil {
		return backend.CallResult{}, classify(t.ServiceID, t.ServiceName, err, phaseConnect, 0)
	}
	timeout := p.callTimeout(t)
	ctx, cancel := context.WithTimeoutCause(ctx, timeout, errCallTimeout)
	defer cancel()
	fp, scrub := s.note(t)

	args, aerr := normalizeArgs(args)
	if aerr != nil {
		return backend.CallResult{}, aerr
	}
	td, ts, err := s.resolveTool(ctx, t, tool)
	if err != nil {
		return backend.CallResult{}, err
	}
	if t.Admit != nil {
		if err := t.Admit(td); err != nil {
			return backend.CallResult{}, err // held by the core: nothing about it reaches the server
		}
	}
	if err := ts.validateArgs(td, args); err != nil {
		return backend.CallResult{}, err
	}
	raw, ph, err := s.do(ctx, t, fp, false, "tools/call", callParams{Name: tool, Arguments: args}, phaseCall)
	if err != nil {
		var rpc *rpcError
		if errors.As(err, &rpc) && (rpc.code == -32601 || rpc.code == -32602) {
			s.toolsChanged() // the server may no longer have the tool: refetch before the next call
		}
		if ph == phaseCall && errors.Is(context.Cause(ctx), errCallTimeout) {
			err = errors.Join(errCallTimeout, err)
		}
		return backend.CallResult{}, s.failed(err, ph, timeout)
	}
	out, isError := passResult(scrub.JSON(raw))
	if len(out) > p.opts.MaxResultBytes {
		spilled, err := p.spill(t.ServiceName, tool, out, isError)
		if err != nil {
			return backend.CallResult{}, backend.Internal("store a large tool result", err)
		}
		out = spilled
	}
	return backend.CallResult{Raw: out, IsError: isError}, nil
}

// resolveTool finds an enabled tool by name in the (fresh) tool list.
func (s *service) resolveTool(ctx context.Context, t backend.Target, name string) (backend.DownstreamTool, *toolSet, error) {
	ts, err := s.tools(ctx, t, false, false)
	if err != nil {
		return backend.DownstreamTool{}, nil, err
	}
	td, ok := ts.get(name)
	if !ok && time.Since(ts.fetchedAt) > staleAfter {
		if ts, err = s.tools(ctx, t, true, false); err != nil {
			return backend.DownstreamTool{}, nil, err
		}
		td, ok = ts.get(name)
	}
	s.mu.Lock()
	disabled, svcName := s.disabled, s.name
	s.mu.Unlock()
	if !ok {
		return td, nil, notFound(svcName, s.id, name, ts, disabled)
	}
	if disabled[name] {
		return td, nil, backend.Errorf(backend.CodeToolDisabled, "tool %s of %s is disabled on this deck server", name, svcName).
			WithDetail("service_id", s.id).WithDetail("tool", name).
			WithHint("use another tool, or ask the owner to enable it in the service's tool settings")
	}
	return td, ts, nil
}

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
		WithHint("call list_service_tools to see the service's tools and their parameters")
}

func quote(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}

// normalizeArgs accepts a JSON object, a JSON string holding one, or nothing ({}).
func normalizeArgs(args json.RawMessage) (json.RawMessage, *backend.Error) {
	a := bytes.TrimSpace(args)
	if len(a) == 0 || string(a) == "null" {
		return json.RawMessage("{}"), nil
	}
	if a[0] == '"' {
		var s string
		if err := json.Unmarshal(a, &s); err != nil {
			return nil, badArgs()
		}
		a = bytes.TrimSpace([]byte(s))
		if len(a) == 0 {
			return json.RawMessage("{}"), nil
		}
	}
	if a[0] != '{' || !json.Valid(a) {
		return nil, badArgs()
	}
	return json.RawMessage(a), nil
}

func badArgs() *backend.Error {
	return backend.Errorf(backend.CodeInvalidArgument, "arguments must be a JSON object (or a JSON string holding one)").
		WithHint(`pass e.g. {"message": "hi"}; list_service_tools shows each tool's parameters`)
}

// closestNames returns up to n names nearest to want: those containing it or contained in it
// first, then by edit distance, dropping names too far to be a plausible typo.
func closestNames(want string, names []string, n int) []string {
	type cand struct {
		name string
		dist int
	}
	w := strings.ToLower(want)
	var cands []cand
	for _, name := range names {
		l := strings.ToLower(name)
		d := editDistance(w, l)
		if w != "" && (strings.Contains(l, w) || strings.Contains(w, l)) {
			d = 0
		}
		if d <= max(2, len(w)/2) {
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

// editDistance is the Levenshtein distance between a and b, by runes.
func editDistance(a, b string) int {
	ra, rb := []rune(a), []rune(b)
	prev := make([]int, len(rb)+1)
	cur := make([]int, len(rb)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(ra); i++ {
		cur[0] = i
		for j := 1; j <= len(rb); j++ {
			cost := 1
			if ra[i-1] == rb[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev, cur = cur, prev
	}
	return prev[len(rb)]
}
