package mcptools

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"mime"
	"net/http"
	"strconv"
	"strings"
	"sync"

	"github.com/mark3labs/mcp-go/mcp"
)

// fastTools are the tools whose plain calls skip mcp-go's transport: get_bound_deck, on the
// path of every agent turn, answered from a pre-rendered, pre-escaped page, and
// call_service_tool, the proxied call. For them the transport's own work — parsing the body
// three more times, a notification forwarder goroutine per request, encoding the answer and
// scanning it again — cost more CPU than the call. A call in flight is cancelled by
// notifications/cancelled as on the transport (cancelInflight).
//
// Whatever the session declared, a call is answered as plain JSON unless something must reach
// the client before its result: what a downstream sends back during the call (progress, a log
// message, elicitation, sampling, roots; relay.go) goes out on the call's own stream, the
// jsonResponse the transport would write through too, which becomes an SSE stream at the first
// such message, with the answer as its last event. The response's headers are written only once
// the first thing to send is known, so the bytes are the transport's in both cases.
var fastTools = map[string]bool{"get_bound_deck": true, "call_service_tool": true}

// fastCall is what peekBody keeps of a tools/call body for the fast path, from its one decode.
type fastCall struct {
	jsonrpc string
	id      any             // decoded as mcp-go decodes it, so the answer's id is the same
	args    json.RawMessage // params.arguments as sent, nil when absent
	meta    json.RawMessage // params._meta as sent (a progress token), nil when absent
	other   bool            // the message also carries result or error: not a plain request
	extra   bool            // params carry a task or multi-round-trip fields
}

// requestMeta decodes a call's _meta as mcp-go does; ok is false for one that is not an object
// (or null), which the transport answers with its error.
func requestMeta(raw json.RawMessage) (meta *mcp.Meta, ok bool) {
	t := bytes.TrimSpace(raw)
	if len(t) == 0 || string(t) == "null" {
		return nil, true
	}
	if t[0] != '{' {
		return nil, false
	}
	meta = &mcp.Meta{}
	return meta, json.Unmarshal(t, meta) == nil
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
	if !isJSONContentType(r.Header.Get("Content-Type")) {
		return false // the transport answers with its error
	}
	meta, ok := requestMeta(fc.meta)
	if !ok {
		return false
	}
	// The tool handler reads the arguments as sent (RawArguments), as it does on the transport.
	params := mcp.CallToolParams{Name: st.toolName, RawArguments: fc.args, Meta: meta}
	ctx, cancel := context.WithCancel(h.httpContext(ctx, r))
	defer cancel()
	key, call := inflightKey(st.session.ID, fc.id), &inflightCall{cancel}
	h.inflight.Store(key, call)
	st.fast = true
	defer h.inflight.CompareAndDelete(key, call)
	// The call's own stream: what the relay sends during the call goes out on it (relay.go).
	jw := newJSONResponse(w, &h.buffers)
	st.stream = jw
	res, _ := handler(ctx, mcp.CallToolRequest{
		Request: mcp.Request{Method: string(mcp.MethodToolsCall)}, Params: params})
	// From here the call has run: the request is answered here whatever happens, as the
	// transport answers it — nothing when the client is gone, an empty body when the answer
	// cannot be encoded.
	if r.Context().Err() != nil {
		jw.close()
		return true
	}
	buf := answerBuffers.Get().(*[]byte)
	body, err := appendResponse((*buf)[:0], fc.id, res)
	if err != nil {
		h.log.ErrorContext(ctx, "MCP answer could not be encoded", "tool", st.toolName, "error", err)
		body = nil
	}
	jw.answer(body)
	if cap(body) <= 256<<10 {
		*buf = body[:0]
		answerBuffers.Put(buf)
	}
	return true
}

// isJSONContentType reports whether a request's Content-Type parses (mime.ParseMediaType) as
// application/json, without building its parameter map when it has no parameter.
func isJSONContentType(contentType string) bool {
	if !strings.Contains(contentType, ";") {
		return strings.TrimSpace(strings.ToLower(contentType)) == "application/json"
	}
	mt, _, err := mime.ParseMediaType(contentType)
	return err == nil && mt == "application/json"
}

// answerBuffers reuse the buffers fast-path answers are encoded into (a bound deck is ~20 KB):
// an allocation of that size per call was a large part of the garbage collector's work.
var answerBuffers = sync.Pool{New: func() any { b := make([]byte, 0, 32<<10); return &b }}

// appendResponse appends the JSON-RPC answer to request id with result res, as mcp-go's
// transport encodes it (json.Encoder: a trailing newline). A result of one pre-escaped text block
// is copied in, not encoded and scanned again; a downstream's result passed through is written
// from its raw blocks, compacted and escaped as encoding/json would, without the map and the
// reflection of mcp-go's encoder.
func appendResponse(dst []byte, id any, res *mcp.CallToolResult) ([]byte, error) {
	if res == nil {
		return nil, errors.New("no result")
	}
	dst = append(dst, `{"jsonrpc":"2.0","id":`...)
	dst, err := appendID(dst, id)
	if err != nil {
		return nil, err
	}
	dst = append(dst, `,"result":`...)
	if q, ok := plainQuoted(res); ok {
		dst = append(dst, `{"content":[`...)
		if dst, err = q.appendJSON(dst); err != nil {
			return nil, err
		}
		dst = append(dst, "]}"...)
	} else if passedThrough(res) {
		dst = appendPassedThrough(dst, res)
	} else {
		b, err := json.Marshal(res)
		if err != nil {
			return nil, err
		}
		dst = append(dst, b...)
	}
	return append(dst, "}\n"...), nil
}

// appendID appends a request id as mcp-go encodes it: a string or a number as decoded into any
// (float64), so an integer id within float64's exact range is written as its digits.
func appendID(dst []byte, id any) ([]byte, error) {
	if f, ok := id.(float64); ok && f == math.Trunc(f) && math.Abs(f) < 1<<53 {
		return strconv.AppendInt(dst, int64(f), 10), nil
	}
	b, err := json.Marshal(id)
	if err != nil {
		return nil, err
	}
	return append(dst, b...), nil
}

// passedThrough reports whether res is a downstream's result as passThrough made it (raw
// blocks, raw structured content, isError) with nothing else to encode.
func passedThrough(res *mcp.CallToolResult) bool {
	if res.Meta != nil || res.ResultType != "" || res.StructuredContent != nil ||
		len(res.InputRequests) > 0 || res.RequestState != "" {
		return false
	}
	for _, c := range res.Content {
		if _, ok := c.(rawContent); !ok {
			return false
		}
	}
	return true
}

// appendPassedThrough writes what encoding/json writes for mcp-go's encoding of res (a map, so
// its keys sorted: content, isError, structuredContent), raw values compacted and HTML-escaped.
func appendPassedThrough(dst []byte, res *mcp.CallToolResult) []byte {
	dst = append(dst, `{"content":[`...)
	for i, c := range res.Content {
		if i > 0 {
			dst = append(dst, ',')
		}
		dst = appendCompactHTML(dst, c.(rawContent).raw)
	}
	dst = append(dst, ']')
	if res.IsError {
		dst = append(dst, `,"isError":true`...)
	}
	if len(res.RawStructuredContent) > 0 {
		dst = append(dst, `,"structuredContent":`...)
		dst = appendCompactHTML(dst, res.RawStructuredContent)
	}
	return append(dst, '}')
}

// appendCompactHTML appends valid JSON src as encoding/json writes a json.RawMessage: without
// insignificant space, and with <, >, & and U+2028/U+2029 in strings escaped.
func appendCompactHTML(dst, src []byte) []byte {
	const hex = "0123456789abcdef"
	inString, escaped := false, false
	for i := 0; i < len(src); i++ {
		c := src[i]
		if !inString {
			switch c {
			case ' ', '\t', '\n', '\r':
				continue
			case '"':
				inString = true
			}
			dst = append(dst, c)
			continue
		}
		switch {
		case escaped:
			escaped = false
		case c == '\\':
			escaped = true
		case c == '"':
			inString = false
		case c == '<' || c == '>' || c == '&':
			dst = append(dst, '\\', 'u', '0', '0', hex[c>>4], hex[c&0xf])
			continue
		case c == 0xe2 && i+2 < len(src) && src[i+1] == 0x80 && src[i+2]&^1 == 0xa8:
			dst = append(dst, '\\', 'u', '2', '0', '2', hex[src[i+2]&0xf])
			i += 2
			continue
		}
		dst = append(dst, c)
	}
	return dst
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

// inflightKey names a request of a session the way notifications/cancelled names it: by its
// JSON-RPC id, decoded as mcp-go decodes it (a number and a string of the same digits differ).
func inflightKey(session string, id any) string {
	switch v := id.(type) {
	case string:
		return session + " string " + v
	case float64:
		return session + " float64 " + strconv.FormatFloat(v, 'g', -1, 64)
	}
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
