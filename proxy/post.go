package proxy

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/textproto"
	"sync/atomic"

	"github.com/mark3labs/mcp-go/client/transport"
	"github.com/mark3labs/mcp-go/mcp"

	"github.com/agent-deck/agent-deck/backend"
)

// A tools/call on a Streamable HTTP connection is posted here rather than through mcp-go's
// transport, whose send costs, for every call, a goroutine watching for the transport's close,
// an encoding of the request and a decoding of the answer through reflection, and a copy of
// every header. The request is the transport's, header for header, sent through the same HTTP
// client (statusTransport and everything it does), and an answer that is one JSON message with
// status 200 is read here. Anything else — an event stream (progress, a log message, elicitation
// or sampling before the result), a refusal, a session the server no longer knows — is handed
// unread to the transport: it sends the request again through the same client, which gives it
// this response instead of sending anything (answeredKey), so from there on the transport does
// what it always does, as if it had sent the request itself.

// postable holds what a direct post needs of a Streamable HTTP connection, set once its
// handshake succeeded.
type postable struct {
	sh *transport.StreamableHTTP
	// url is the server's endpoint; header the request headers every post carries, the
	// transport's in its order (content type, accept, protocol version, then the service's
	// own); session whether the handshake gave a session id and ownSession whether the service's
	// headers set that header themselves.
	url        string
	header     http.Header
	session    bool
	ownSession bool
}

// preparePost readies the direct post of a Streamable HTTP connection after its handshake.
// Only the session-based protocol versions are posted directly: they are the ones downstream
// connections negotiate.
func (c *conn) preparePost(sh *transport.StreamableHTTP, url string, headers map[string]string, version string) {
	if mcp.IsModernProtocol(version) || c.svc.p.opts.noDirectPost {
		return
	}
	h := http.Header{
		"Content-Type": {"application/json"},
		"Accept":       {"application/json, text/event-stream"},
	}
	if version != "" {
		h[transport.HeaderKeyProtocolVersion] = []string{version}
	}
	own := false
	for k, v := range headers {
		ck := textproto.CanonicalMIMEHeaderKey(k)
		h[ck] = []string{v}
		own = own || ck == transport.HeaderKeySessionID
	}
	c.post = &postable{sh: sh, url: url, header: h, session: sh.GetSessionId() != "", ownSession: own}
}

// answeredKey marks a request context whose next HTTP request is already answered: the
// response a direct post received and left to the transport.
type answeredKey struct{}

// answered is that response, given out once.
type answered struct{ resp atomic.Pointer[http.Response] }

func (a *answered) take() *http.Response { return a.resp.Swap(nil) }

// answeredFor is the response waiting for the next request made with ctx, if any.
func answeredFor(ctx context.Context) *http.Response {
	if a, _ := ctx.Value(answeredKey{}).(*answered); a != nil {
		return a.take()
	}
	return nil
}

// sendCall sends a tools/call request on the connection and returns its answer.
func (c *conn) sendCall(ctx context.Context, req transport.JSONRPCRequest, idText string, params callParams) (*transport.JSONRPCResponse, error) {
	p := c.post
	if p == nil {
		return c.tr.SendRequest(ctx, req)
	}
	sid := p.sh.GetSessionId()
	if p.session && sid == "" {
		// The server forgot the session: the transport refuses to send, as it should.
		return c.tr.SendRequest(ctx, req)
	}
	body, err := appendCallRequest(make([]byte, 0, 96+len(params.Arguments)+len(params.Name)), idText, params)
	if err != nil {
		return nil, fmt.Errorf("failed to marshal request: %w", err)
	}
	// The transport's closing ends the request, as it ends the transport's own.
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	stop := context.AfterFunc(c.ctx, cancel)
	defer stop()

	hreq, err := http.NewRequestWithContext(ctx, http.MethodPost, p.url, bytes.NewReader(body))
	if err != nil {
		return nil, fmt.Errorf("failed to create request: %w", err)
	}
	h := make(http.Header, len(p.header)+1)
	for k, v := range p.header {
		h[k] = v
	}
	if sid != "" && !p.ownSession {
		h[transport.HeaderKeySessionID] = []string{sid}
	}
	hreq.Header = h
	resp, err := c.httpc.Do(hreq)
	if err != nil {
		return nil, fmt.Errorf("failed to send request: %w", err)
	}
	if resp.StatusCode != http.StatusOK || mediaTypeOf(resp.Header.Get("Content-Type")) != "application/json" {
		// Not one JSON message: the transport reads it, as if it had sent the request.
		a := &answered{}
		a.resp.Store(resp)
		out, err := c.tr.SendRequest(context.WithValue(ctx, answeredKey{}, a), req)
		if left := a.take(); left != nil {
			left.Body.Close() // the transport refused before sending (the session ended)
		}
		return out, err
	}
	defer resp.Body.Close()
	raw, err := backend.ReadAnnounced(resp.Body, resp.ContentLength)
	if err != nil {
		return nil, fmt.Errorf("failed to decode response: %w", err)
	}
	return parseResponse(raw, req.ID)
}

// parseResponse reads a JSON-RPC answer to the request id as the transport's decoder would: its
// first JSON value, which must carry an id. A valid message with the request's own id is split in
// place; anything else goes through the decoder, for the same result and the same errors.
func parseResponse(raw []byte, id mcp.RequestId) (*transport.JSONRPCResponse, error) {
	out := &transport.JSONRPCResponse{}
	if !json.Valid(raw) || !splitResponse(raw, id, out) {
		*out = transport.JSONRPCResponse{}
		if err := json.NewDecoder(bytes.NewReader(raw)).Decode(out); err != nil {
			return nil, fmt.Errorf("failed to decode response: %w", err)
		}
	}
	if out.ID.IsNil() {
		return nil, fmt.Errorf("response should contain RPC id: %v", *out)
	}
	return out, nil
}

// splitResponse fills out from a valid JSON-RPC message in raw that answers the request id
// (a string); false when raw is not an object or a member needs the decoder (another id, a
// version other than 2.0, an error).
func splitResponse(raw []byte, id mcp.RequestId, out *transport.JSONRPCResponse) bool {
	want, _ := id.Value().(string)
	ok := want != ""
	isObject := eachMember(raw, func(key []byte, f field) {
		v := raw[f.valStart:f.valEnd]
		switch string(key) {
		case "jsonrpc":
			out.JSONRPC, ok = mcp.JSONRPC_VERSION, ok && string(v) == `"`+mcp.JSONRPC_VERSION+`"`
		case "id":
			s, plain := backend.PlainJSONString(v)
			out.ID, ok = id, ok && plain && string(s) == want
		case "result":
			out.Result = v
		case "error":
			ok = false
		}
	})
	return isObject && ok
}

// appendCallRequest appends the JSON-RPC request of a tools/call to b.
func appendCallRequest(b []byte, idText string, params callParams) ([]byte, error) {
	b = append(b, `{"jsonrpc":"2.0","id":`...)
	b = appendJSONString(b, idText)
	b = append(b, `,"method":"tools/call","params":{"name":`...)
	b = appendJSONString(b, params.Name)
	b = append(b, `,"arguments":`...)
	if len(params.Arguments) == 0 {
		b = append(b, "null"...)
	} else {
		b = append(b, params.Arguments...)
	}
	if params.Meta != nil {
		meta, err := json.Marshal(params.Meta)
		if err != nil {
			return nil, err
		}
		b = append(b, `,"_meta":`...)
		b = append(b, meta...)
	}
	return append(b, "}}"...), nil
}

// appendJSONString appends s as a JSON string: as it is when it needs no escape, else encoded.
func appendJSONString(b []byte, s string) []byte {
	for i := 0; i < len(s); i++ {
		if c := s[i]; c < 0x20 || c >= 0x7f || c == '\\' || c == '"' || c == '<' || c == '>' || c == '&' {
			return append(b, quote(s)...)
		}
	}
	b = append(b, '"')
	b = append(b, s...)
	return append(b, '"')
}
