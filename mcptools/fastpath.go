package mcptools

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"mime"
	"net"
	"net/http"
	"net/netip"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/mark3labs/mcp-go/mcp"

	"github.com/agent-deck/agent-deck/backend"
)

// fastTools are the tools whose plain calls skip mcp-go's transport: get_bound_deck, on the
// path of every agent turn, answered from a pre-rendered, pre-escaped page. For it the
// transport's own work — parsing the body three more times, a notification forwarder goroutine
// per request, encoding the answer and scanning its 20 KB text again — cost more CPU than the
// call. A tool joins only if it never talks back to the client during the call (no relayed
// sampling, elicitation, logging or progress, which need the transport's session and stream);
// a call in flight is cancelled by notifications/cancelled as on the transport (cancelInflight).
//
// call_service_tool joins on the same terms, checked per call (quiet): what a downstream sends
// back during a call can reach only a session that passed a progress token, set a log level, or
// declared elicitation, sampling or roots. For any other session the relay would carry nothing.
var fastTools = map[string]bool{"get_bound_deck": true, "call_service_tool": true}

// relayedTools are the fast tools a downstream can talk back through (relay.go).
var relayedTools = map[string]bool{"call_service_tool": true}

// quiet reports whether nothing a downstream sends during a call could reach the session: its
// row says it set no log level and its client declared neither elicitation, sampling nor roots.
func quiet(sess *backend.MCPSession) bool {
	return wantsOf(sess).Quiet()
}

// fastCall is what peekBody keeps of a tools/call body for the fast path, from its one decode.
type fastCall struct {
	jsonrpc string
	id      any             // decoded as mcp-go decodes it, so the answer's id is the same
	args    json.RawMessage // params.arguments as sent, nil when absent
	other   bool            // the message also carries result or error: not a plain request
	extra   bool            // params carry _meta (a progress token), a task or multi-round-trip fields
}

// serveFast answers a plain JSON-RPC tools/call of a fast tool on a live session: it runs the
// same tool handler the transport would, with the same context (actor, request state, session),
// and writes the bytes the transport would write (TestFastPathParity). It returns false, having
// written nothing, for anything else: the transport then handles the request as usual.
func (h *Handler) serveFast(ctx context.Context, w http.ResponseWriter, r *http.Request, st *reqState) bool {
	handler, ok := h.fast[st.toolName]
	if !ok || st.call == nil || st.session == nil || st.openErr != nil || r.Method != http.MethodPost {
		return false
	}
	fc := st.call
	if fc.jsonrpc != mcp.JSONRPC_VERSION || fc.id == nil || fc.other || fc.extra {
		return false
	}
	if relayedTools[st.toolName] && !quiet(st.session) {
		return false // the relay needs the transport's session and stream
	}
	if !passesRebindingGuard(r) {
		return false // the transport refuses it
	}
	if mt, _, err := mime.ParseMediaType(r.Header.Get("Content-Type")); err != nil || mt != "application/json" {
		return false // the transport answers with its error
	}
	// The tool handler reads the arguments as sent (RawArguments), as it does on the transport.
	params := mcp.CallToolParams{Name: st.toolName, RawArguments: fc.args}
	if !h.idleClock.fresh(st.session.ID) {
		return false // let the transport see the session now and then, or it sweeps it as idle
	}
	ctx, cancel := context.WithCancel(h.httpContext(ctx, r))
	defer cancel()
	key, call := inflightKey(st.session.ID, fc.id), &inflightCall{cancel}
	h.inflight.Store(key, call)
	st.fast = true
	defer h.inflight.CompareAndDelete(key, call)
	res, _ := handler(ctx, mcp.CallToolRequest{
		Request: mcp.Request{Method: string(mcp.MethodToolsCall)}, Params: params})
	// From here the call has run: the request is answered here whatever happens, as the
	// transport answers it — nothing when the client is gone, an empty body when the answer
	// cannot be encoded.
	if r.Context().Err() != nil {
		return true
	}
	buf := answerBuffers.Get().(*[]byte)
	body, err := appendResponse((*buf)[:0], fc.id, res)
	if err != nil {
		h.log.ErrorContext(ctx, "MCP answer could not be encoded", "tool", st.toolName, "error", err)
		body = nil
	}
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Content-Length", strconv.Itoa(len(body)))
	w.WriteHeader(http.StatusOK)
	_, _ = w.Write(body)
	if cap(body) <= 256<<10 {
		*buf = body[:0]
		answerBuffers.Put(buf)
	}
	return true
}

// answerBuffers reuse the buffers fast-path answers are encoded into (a bound deck is ~20 KB):
// an allocation of that size per call was a large part of the garbage collector's work.
var answerBuffers = sync.Pool{New: func() any { b := make([]byte, 0, 32<<10); return &b }}

// appendResponse appends the JSON-RPC answer to request id with result res, as mcp-go's
// transport encodes it (json.Encoder: a trailing newline). A result of one pre-escaped text block
// is copied in, not encoded and scanned again.
func appendResponse(dst []byte, id any, res *mcp.CallToolResult) ([]byte, error) {
	if res == nil {
		return nil, errors.New("no result")
	}
	env, err := json.Marshal(mcp.NewJSONRPCResultResponse(mcp.NewRequestId(id), json.RawMessage("0")))
	if err != nil {
		return nil, err
	}
	dst = append(dst, env[:len(env)-2]...) // `{"jsonrpc":"2.0","id":...,"result":`
	if q, ok := plainQuoted(res); ok {
		dst = append(dst, `{"content":[`...)
		if dst, err = q.appendJSON(dst); err != nil {
			return nil, err
		}
		dst = append(dst, "]}"...)
	} else {
		b, err := json.Marshal(res)
		if err != nil {
			return nil, err
		}
		dst = append(dst, b...)
	}
	return append(dst, "}\n"...), nil
}

// plainQuoted is res's one pre-escaped text block when res has nothing else to encode.
func plainQuoted(res *mcp.CallToolResult) (quotedText, bool) {
	if len(res.Content) != 1 || res.IsError || res.Meta != nil || res.ResultType != "" ||
		res.StructuredContent != nil || len(res.RawStructuredContent) > 0 ||
		len(res.InputRequests) > 0 || res.RequestState != "" {
		return quotedText{}, false
	}
	q, ok := res.Content[0].(quotedText)
	if !ok || q.Annotations != nil || q.Meta != nil {
		return quotedText{}, false
	}
	return q, true
}

// idleClock notes when the transport last saw each session. mcp-go sweeps a session's
// in-memory state once it has not seen it for its idle time; the fast path hands a session to
// the transport at least every half of that, so a busy session is never swept.
type idleClock struct {
	every time.Duration
	seen  sync.Map // session id -> *atomic.Int64 (unix nanoseconds)
	puts  atomic.Int64
}

// saw records that the transport handles a request of session id now.
func (c *idleClock) saw(id string) {
	if id == "" {
		return
	}
	now := time.Now().UnixNano()
	if v, ok := c.seen.Load(id); ok {
		v.(*atomic.Int64).Store(now)
		return
	}
	t := new(atomic.Int64)
	t.Store(now)
	c.seen.Store(id, t)
	if c.puts.Add(1)%1024 == 0 {
		c.forgetOld(now)
	}
}

// fresh reports whether the transport saw session id within the last half idle time.
func (c *idleClock) fresh(id string) bool {
	v, ok := c.seen.Load(id)
	return ok && time.Now().UnixNano()-v.(*atomic.Int64).Load() < int64(c.every/2)
}

// forgetOld drops sessions not seen for a whole idle time: the transport has swept them too.
func (c *idleClock) forgetOld(now int64) {
	c.seen.Range(func(k, v any) bool {
		if now-v.(*atomic.Int64).Load() > int64(c.every) {
			c.seen.Delete(k)
		}
		return true
	})
}

// inflightKey names a request of a session the way notifications/cancelled names it: by its
// JSON-RPC id, decoded as mcp-go decodes it (a number and a string of the same digits differ).
func inflightKey(session string, id any) string {
	return fmt.Sprintf("%s %T %v", session, id, id)
}

// cancelInflight cancels the tool call of session named by a notifications/cancelled, if this
// replica runs it; the notification then goes on to the transport, which cancels its own
// requests of that id too.
func (h *Handler) cancelInflight(session string, id any) bool {
	if id == nil {
		return false
	}
	call, ok := h.inflight.Load(inflightKey(session, id))
	if ok {
		call.(*inflightCall).cancel()
	}
	return ok
}

// inflightCall is one tool call that notifications/cancelled can stop.
type inflightCall struct{ cancel context.CancelFunc }

// trackCall makes a tool call of the transport cancellable by notifications/cancelled received
// on any replica (the fast path tracks its own); the returned func ends the tracking.
func (h *Handler) trackCall(ctx context.Context) (context.Context, func()) {
	st := stateFrom(ctx)
	if st == nil || st.fast || st.session == nil || len(st.requestID) == 0 {
		return ctx, func() {}
	}
	var id any
	if json.Unmarshal(st.requestID, &id) != nil || id == nil {
		return ctx, func() {}
	}
	ctx, cancel := context.WithCancel(ctx)
	key, call := inflightKey(st.session.ID, id), &inflightCall{cancel}
	h.inflight.Store(key, call)
	return ctx, func() { h.inflight.CompareAndDelete(key, call); cancel() }
}

// passesRebindingGuard is the transport's DNS-rebinding guard: on a loopback listener, only a
// request whose Host names a loopback address gets through.
func passesRebindingGuard(r *http.Request) bool {
	local, ok := r.Context().Value(http.LocalAddrContextKey).(net.Addr)
	return !ok || local == nil || !loopbackHost(local.String()) || loopbackHost(r.Host)
}

// loopbackHost reports whether addr (host, host:port or [ip]:port) is localhost or a loopback IP.
func loopbackHost(addr string) bool {
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		host = strings.Trim(addr, "[]")
	}
	if strings.EqualFold(host, "localhost") {
		return true
	}
	ip, err := netip.ParseAddr(host)
	return err == nil && ip.IsLoopback()
}
