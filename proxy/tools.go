package proxy

import (
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"sync"
	"time"

	"github.com/agent-deck/agent-deck/backend"
)

// maxToolPages bounds tools/list pagination against a server that never stops.
const maxToolPages = 100

// toolSet is one fetched tool list, with the compiled input schemas cached beside it so a new
// list starts with a fresh cache.
type toolSet struct {
	tools     []backend.DownstreamTool
	byName    map[string]int
	fetchedAt time.Time

	mu      sync.Mutex
	schemas map[string]*compiled
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

// ListTools returns the service's tools, from cache when fresh, with Enabled set from
// t.DisabledTools.
func (p *Proxy) ListTools(ctx context.Context, t backend.Target) ([]backend.DownstreamTool, error) {
	s, err := p.service(t)
	if err != nil {
		return nil, classify(t.ServiceID, t.ServiceName, err, phaseConnect, 0)
	}
	ctx, cancel := context.WithTimeout(ctx, p.callTimeout(t))
	defer cancel()
	s.note(t)
	ts, err := s.tools(ctx, t, false, false)
	if err != nil {
		return nil, err
	}
	s.mu.Lock()
	disabled := s.disabled
	s.mu.Unlock()
	return ts.withEnabled(disabled), nil
}

// newerConnLocked reports whether the connection opened after ts was fetched: a new session
// (restart, reconnect) may serve other tools, and list_changed sent meanwhile was missed.
func (s *service) newerConnLocked(ts *toolSet) bool {
	c := s.conn
	return c != nil && c.isReady() && ts.fetchedAt.Before(c.openedAt)
}

// toolsChanged marks the cached list stale (the downstream sent list_changed).
func (s *service) toolsChanged() {
	s.mu.Lock()
	s.stale = true
	s.mu.Unlock()
	s.p.log.Debug("downstream tool list changed", "service_id", s.id)
}

// tools returns the cached list when fresh, else fetches it; refresh forces a fetch, force
// ignores restart backoff. Concurrent fetches of one service share one tools/list.
func (s *service) tools(ctx context.Context, t backend.Target, refresh, force bool) (*toolSet, error) {
	for {
		s.mu.Lock()
		ts := s.list
		if !refresh && ts != nil && !s.stale && time.Since(ts.fetchedAt) < s.p.opts.ToolsTTL && !s.newerConnLocked(ts) {
			s.mu.Unlock()
			return ts, nil
		}
		if wait := s.listing; wait != nil {
			s.mu.Unlock()
			select {
			case <-wait:
			case <-ctx.Done():
				return nil, s.failed(ctx.Err(), phaseList, s.p.callTimeout(t))
			}
			s.mu.Lock()
			ts, err := s.list, s.listErr
			s.mu.Unlock()
			if err == nil && ts != nil {
				return ts, nil
			}
			if ctx.Err() == nil && isContextErr(err) {
				continue // the fetch we waited for was cancelled by its own caller
			}
			return nil, cloneErr(err)
		}
		done := make(chan struct{})
		s.listing, s.stale = done, false
		s.mu.Unlock()

		ts, err := s.fetchTools(ctx, t, force)
		s.mu.Lock()
		if err == nil {
			s.list = ts
			s.toolsGen++
		} else {
			s.stale = true
		}
		s.listErr, s.listing = err, nil
		close(done)
		s.mu.Unlock()
		if err != nil {
			return nil, err
		}
		return ts, nil
	}
}

// cloneErr copies a shared classified error, so each caller may annotate its own.
func cloneErr(err error) error {
	be, ok := err.(*backend.Error)
	if !ok || be == nil {
		return err
	}
	cp := *be
	cp.Details = maps.Clone(be.Details)
	return &cp
}

// isContextErr reports whether a shared fetch failed only because its caller gave up.
func isContextErr(err error) bool {
	e, ok := err.(*backend.Error)
	return ok && e.Code == backend.CodeDownstreamTimeout && callerGaveUp(e.Err)
}

// fetchTools reads every page of tools/list raw, masked of the service's secrets (a hostile
// server could quote them in a description).
func (s *service) fetchTools(ctx context.Context, t backend.Target, force bool) (*toolSet, error) {
	s.mu.Lock()
	fp, scrub := s.fp, s.scrub // noted by the caller
	s.mu.Unlock()
	timeout := s.p.callTimeout(t)
	var raws []json.RawMessage
	cursor := ""
	for page := 0; ; page++ {
		if page == maxToolPages {
			return nil, s.failed(fmt.Errorf("tools/list: more than %d pages", maxToolPages), phaseList, timeout)
		}
		var params any
		if cursor != "" {
			params = map[string]string{"cursor": cursor}
		}
		res, ph, err := s.do(ctx, t, fp, force, "tools/list", params, phaseList)
		if err != nil {
			return nil, s.failed(err, ph, timeout)
		}
		var pageRes struct {
			Tools      []json.RawMessage `json:"tools"`
			NextCursor string            `json:"nextCursor"`
		}
		if err := json.Unmarshal(scrub.JSON(res), &pageRes); err != nil {
			return nil, s.failed(&rpcError{code: -32603, message: "tools/list returned a malformed result"}, phaseList, timeout)
		}
		raws = append(raws, pageRes.Tools...)
		if pageRes.NextCursor == "" || pageRes.NextCursor == cursor {
			break
		}
		cursor = pageRes.NextCursor
	}
	return parseTools(raws), nil
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
