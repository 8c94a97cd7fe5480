package proxy

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"time"

	"github.com/agent-deck/agent-deck/backend"
	"github.com/mark3labs/mcp-go/client/transport"
)

// This file is one request to a downstream, top to bottom: a tool call (CallTool), a tool
// listing (ListTools) or a health check (Check) notes its target, gets the tool list (from
// cache or fetched), and sends on the service's shared connection (service.go picks or opens
// it). Failures are classified in errors.go and accounted for in health.go.

// staleAfter is how old a cached list must be before an unknown tool name triggers a refetch:
// the tool may have appeared on a server that does not announce list changes.
const staleAfter = time.Second

// maxRelists bounds how often one call reads the tool list again because the connection's
// list changed under it, against a server that announces list_changed without end. A cold start
// of many concurrent calls moves the epoch several times in a burst (each connection's
// initialize, its connect and its event stream), so the bound leaves room for that.
const maxRelists = 8

// errRelist stops a call whose tool list is not current on the connection it was about to go
// out on; the call reads the list again and is admitted again.
var errRelist = errors.New("the tool list changed before the call was sent")

// maxToolPages bounds tools/list pagination against a server that never stops.
const maxToolPages = 100

// callParams is the params object of tools/call, with the caller's arguments passed raw.
type callParams struct {
	Name      string          `json:"name"`
	Arguments json.RawMessage `json:"arguments"`
	Meta      map[string]any  `json:"_meta,omitempty"`
}

// op is one request to a service with what its target implies, worked out once at the start:
// the fingerprint of the connection it needs and the scrubber of its secrets.
type op struct {
	s       *service
	t       backend.Target
	fp      string
	scrub   *scrubber
	timeout time.Duration
	// force ignores restart backoff (Check).
	force bool
}

// begin notes t on its service (name, secrets, disabled tools) and starts one request.
func (p *Proxy) begin(t backend.Target, force bool) (op, error) {
	s, err := p.service(t)
	if err != nil {
		return op{}, classify(t.ServiceID, t.ServiceName, err, phaseConnect, 0)
	}
	fp, scrub := s.note(t)
	timeout := t.Timeout
	if timeout <= 0 {
		timeout = p.opts.DefaultTimeout
	}
	return op{s: s, t: t, fp: fp, scrub: scrub, timeout: timeout, force: force}, nil
}

// CallTool checks that the tool exists, is enabled and that args satisfy its input schema,
// then forwards the call under the target's timeout. The result passes through raw, minus the
// downstream's _meta and any echo of the service's secrets; a result over the size cap is
// written to a file and replaced by a descriptor.
func (p *Proxy) CallTool(ctx context.Context, t backend.Target, tool string, args json.RawMessage) (backend.CallResult, error) {
	o, err := p.begin(t, false)
	if err != nil {
		return backend.CallResult{}, err
	}
	ctx, cancel := context.WithTimeoutCause(ctx, o.timeout, errCallTimeout)
	defer cancel()
	// The answer's bytes are charged to the call until its result is returned or spilled.
	tk := p.budget.ticket()
	defer tk.release()
	ctx = withTicket(ctx, tk)

	args, aerr := normalizeArgs(args)
	if aerr != nil {
		return backend.CallResult{}, aerr
	}
	params := callParams{Name: tool, Arguments: args}
	defer p.withProgress(ctx, &params)()
	var (
		raw json.RawMessage
		ph  phase
		// needList, once a dial was refused, is the refusal count a list must have started at.
		needList uint64
	)
	// The definition admitted must be the one the connection serves when the call goes out: a
	// list read before a reconnect or a list_changed is read again, and the call admitted again.
	for attempt := 0; ; attempt++ {
		// A connection that cannot hear list_changed now reads the list for this call.
		refresh := attempt > 0 || o.s.deaf()
		td, ts, err := o.resolveTool(ctx, tool, refresh)
		if err != nil {
			return backend.CallResult{}, err
		}
		if ts.refusals < needList {
			// A shared read that started before this call's refused dial: it may show the
			// server the old connections reached. Concurrent callers share reads, so this may
			// take one more round than maxRelists alone allows.
			if attempt < 2*maxRelists {
				continue
			}
			return backend.CallResult{}, o.fail(errConnChanged, phaseCall)
		}
		if t.Admit != nil {
			if err := t.Admit(td); err != nil {
				if !refresh {
					// Held on a cached list: the server may have changed back (a restart not
					// yet noticed), so a hold is only given on a list read for this call.
					continue
				}
				return backend.CallResult{}, err // held by the core: nothing about it reaches the server
			}
		}
		if err := ts.validateArgs(td, args); err != nil {
			return backend.CallResult{}, err
		}
		gate := func(c *conn, rec *statusRecorder) error {
			if !ts.current(o.s, c) || (!refresh && c.deaf()) {
				return errRelist
			}
			rec.limit.Store(ts.born)
			rec.limited.Store(true)
			return nil
		}
		sctx, endSpan := p.downstreamSpan(ctx, t, "tools/call", tool)
		raw, ph, err = o.send(sctx, "tools/call", params, phaseCall, gate)
		endSpan(err)
		if errors.Is(err, errConnChanged) {
			if attempt < maxRelists {
				// The list is read again, by a request started after the refused dial, and
				// the call may then open a connection of its own.
				var rd dialRefused
				if errors.As(err, &rd) {
					needList = rd.n
				} else {
					needList = o.s.refusals.Load()
				}
				ctx = allowDial(ctx)
				continue
			}
			return backend.CallResult{}, o.fail(err, phaseCall)
		}
		if errors.Is(err, errRelist) {
			if attempt < maxRelists {
				continue
			}
			return backend.CallResult{}, backend.Errorf(backend.CodeDownstreamError,
				"the tool list of %s changed %d times while the call to %s was prepared; it was not sent", t.ServiceName, attempt+1, quote(tool)).
				WithDetail("service_id", t.ServiceID).WithHint("try the call again")
		}
		if err != nil {
			var rpc *rpcError
			if errors.As(err, &rpc) && (rpc.code == -32601 || rpc.code == -32602) {
				o.s.toolsChanged() // the server may no longer have the tool: refetch before the next call
			}
			if ph == phaseCall && errors.Is(context.Cause(ctx), errCallTimeout) {
				err = errors.Join(errCallTimeout, err)
			}
			return backend.CallResult{}, o.fail(err, ph)
		}
		break
	}

	out, isError := passResult(o.scrub.JSON(raw))
	if len(out) > p.opts.MaxResultBytes {
		spilled, err := p.spill(t.ServiceName, tool, out, isError)
		if err != nil {
			return backend.CallResult{}, backend.Internal("store a large tool result", err)
		}
		out = spilled
	}
	return backend.CallResult{Raw: out, IsError: isError}, nil
}

// resolveTool finds an enabled tool by name in the (fresh) tool list; refresh reads the list
// again first.
func (o *op) resolveTool(ctx context.Context, name string, refresh bool) (backend.DownstreamTool, *toolSet, error) {
	ts, err := o.tools(ctx, refresh)
	if err != nil {
		return backend.DownstreamTool{}, nil, err
	}
	td, ok := ts.get(name)
	if !ok && !refresh && time.Since(ts.fetchedAt) > staleAfter {
		if ts, err = o.tools(ctx, true); err != nil {
			return backend.DownstreamTool{}, nil, err
		}
		td, ok = ts.get(name)
	}
	s := o.s
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

// tools returns the cached list when fresh, else fetches it; refresh forces a fetch.
// Concurrent fetches of one service share one tools/list.
func (o *op) tools(ctx context.Context, refresh bool) (*toolSet, error) {
	s := o.s
	for {
		s.mu.Lock()
		ts := s.list
		if !refresh && ts != nil && !s.stale && ts.epoch == s.epoch.Load() && time.Since(ts.fetchedAt) < s.p.opts.ToolsTTL && !s.newerConnLocked(ts) {
			s.mu.Unlock()
			return ts, nil
		}
		if wait := s.listing; wait != nil {
			s.mu.Unlock()
			select {
			case <-wait:
			case <-ctx.Done():
				return nil, o.fail(ctx.Err(), phaseList)
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

		ts, err := o.fetchTools(ctx)
		if fn := s.p.opts.ToolsListed; fn != nil && err == nil {
			fn(o.t.ServiceID, connKey(o.t), ts.tools)
		}
		s.mu.Lock()
		if err == nil {
			if s.list != nil && !sameTools(s.list, ts) {
				// The definitions changed: calls admitted against the old ones are admitted
				// again, even one about to go out on a connection this read opened.
				if !s.epoch.CompareAndSwap(ts.epoch, ts.epoch+1) {
					s.epoch.Add(1)
				} else {
					ts.epoch++
				}
			}
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
func (o *op) fetchTools(ctx context.Context) (*toolSet, error) {
	var (
		raws     []json.RawMessage
		epoch    uint64
		refusals uint64
		born     uint64
		on       *conn
	)
	cursor := ""
	for page := 0; ; page++ {
		first := page == 0
		// The epoch is taken on the connection, before the first page is asked for: a
		// list_changed or a reconnect from then on makes this list not current.
		var pageRec *statusRecorder
		gate := func(c *conn, rec *statusRecorder) error {
			if first {
				epoch = o.s.epoch.Load()
				refusals = o.s.refusals.Load()
				born = o.s.births.Load()
			}
			on, pageRec = c, rec
			return nil
		}
		if page == maxToolPages {
			return nil, o.fail(fmt.Errorf("tools/list: more than %d pages", maxToolPages), phaseList)
		}
		var params any
		if cursor != "" {
			params = map[string]string{"cursor": cursor}
		}
		res, ph, err := o.send(context.WithValue(ctx, listDialKey{}, true), "tools/list", params, phaseList, gate)
		if err != nil {
			return nil, o.fail(err, ph)
		}
		born = max(born, pageRec.got.Load()) // the connection the page was read on
		var pageRes struct {
			Tools      []json.RawMessage `json:"tools"`
			NextCursor string            `json:"nextCursor"`
		}
		if err := json.Unmarshal(o.scrub.JSON(res), &pageRes); err != nil {
			return nil, o.fail(&rpcError{code: -32603, message: "tools/list returned a malformed result"}, phaseList)
		}
		raws = append(raws, pageRes.Tools...)
		if pageRes.NextCursor == "" || pageRes.NextCursor == cursor {
			break
		}
		cursor = pageRes.NextCursor
	}
	ts := parseTools(raws)
	ts.epoch, ts.conn, ts.refusals, ts.born = epoch, on, refusals, born
	return ts, nil
}

// send sends one request on the service's connection and returns its raw result, or the error
// and the phase it belongs to. When the downstream forgot the session (it restarted), the
// request was not processed, so it is sent once more on a new session.
func (o *op) send(ctx context.Context, method string, params any, ph phase, gate func(*conn, *statusRecorder) error) (json.RawMessage, phase, error) {
	for attempt := 0; ; attempt++ {
		c, err := o.s.connFor(ctx, o.t, o.fp, o.force)
		if err != nil {
			return nil, phaseConnect, err
		}
		res, err := c.request(ctx, method, params, gate)
		c.release()
		if err == nil {
			o.s.succeeded(ph)
			return res, ph, nil
		}
		if errors.Is(err, errRelist) || errors.Is(err, errConnChanged) {
			return nil, ph, err // nothing was sent
		}
		if isConnFailure(err) {
			o.s.reportDead(c, err)
		}
		if attempt == 0 && errors.Is(err, transport.ErrSessionTerminated) {
			continue
		}
		return nil, ph, err
	}
}

// isConnFailure reports whether err means the connection itself is gone, as opposed to a
// refused, failed or slow request on a live one.
func isConnFailure(err error) bool {
	if errors.Is(err, transport.ErrSessionTerminated) {
		return true
	}
	if errors.Is(err, errResultTooLarge) || errors.Is(err, errWrongID) {
		return false // only this answer is refused; the session goes on
	}
	var (
		rpc *rpcError
		st  *httpStatusError
	)
	return !errors.As(err, &rpc) && !errors.As(err, &st) && !ctxCause(err)
}

// fail classifies a failed request and records it against the service's health.
func (o *op) fail(err error, ph phase) *backend.Error {
	return o.s.failed(err, ph, o.timeout)
}

// ListTools returns the service's tools, from cache when fresh, with Enabled set from
// t.DisabledTools.
func (p *Proxy) ListTools(ctx context.Context, t backend.Target) ([]backend.DownstreamTool, error) {
	o, err := p.begin(t, false)
	if err != nil {
		return nil, err
	}
	ctx, cancel := context.WithTimeout(ctx, o.timeout)
	defer cancel()
	ts, err := o.tools(ctx, false)
	if err != nil {
		return nil, err
	}
	o.s.mu.Lock()
	disabled := o.s.disabled
	o.s.mu.Unlock()
	return ts.withEnabled(disabled), nil
}

// Check connects (starting a local server if needed, ignoring restart backoff), lists the
// tools and returns the resulting health.
func (p *Proxy) Check(ctx context.Context, t backend.Target) backend.Health {
	o, err := p.begin(t, true)
	if err != nil {
		return backend.Health{Status: backend.HealthUnknown, LastError: "Agent Deck is shutting down"}
	}
	ctx, cancel := context.WithTimeout(ctx, o.timeout)
	defer cancel()
	_, _ = o.tools(ctx, true)
	o.s.markChecked()
	return o.s.status().Health
}
