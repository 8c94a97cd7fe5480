package mcptools

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"log/slog"

	"github.com/mark3labs/mcp-go/mcp"

	"github.com/agent-deck/agent-deck/backend"
	"github.com/agent-deck/agent-deck/backend/core"
)

// jsonResult renders a Service answer as one compact JSON text block. A bound deck with its
// page pre-rendered becomes a block that writes the page's pre-escaped bytes when encoded:
// encoding/json would encode, escape and scan 20 KB once more on every call.
func jsonResult(v any) (*mcp.CallToolResult, error) {
	if d, ok := v.(core.BoundDeck); ok && d.Prerendered() {
		return &mcp.CallToolResult{Content: []mcp.Content{quotedText{TextContent: mcp.TextContent{Type: "text"}, deck: d}}}, nil
	}
	var b []byte
	var err error
	if d, ok := v.(core.BoundDeck); ok {
		b, err = d.MarshalJSON()
	} else {
		b, err = json.Marshal(v)
	}
	if err != nil {
		return nil, err
	}
	return &mcp.CallToolResult{Content: []mcp.Content{mcp.NewTextContent(string(b))}}, nil
}

// quotedText is the text block of a bound deck, written from its pre-escaped page when encoded:
// exactly what encoding/json writes for a TextContent of the deck's JSON. Text stays empty — the
// block is only ever encoded, and filling it would copy the 20 KB page twice per call.
type quotedText struct {
	mcp.TextContent
	deck core.BoundDeck
}

// MarshalJSON writes {"type":"text","text":...} with the pre-escaped text.
func (q quotedText) MarshalJSON() ([]byte, error) { return q.appendJSON(nil) }

func (q quotedText) appendJSON(dst []byte) ([]byte, error) {
	dst = append(dst, `{"type":"text","text":`...)
	dst, ok := q.deck.AppendQuotedJSON(dst)
	if !ok {
		b, err := q.deck.MarshalJSON()
		if err != nil {
			return nil, err
		}
		quoted, err := json.Marshal(string(b))
		if err != nil {
			return nil, err
		}
		dst = append(dst, quoted...)
	}
	return append(dst, '}'), nil
}

// errorBody is the JSON of every failed tool call (SPEC §4.3).
type errorBody struct {
	Error errorFields `json:"error"`
}

// errorFields are exactly the fields of SPEC §4.3. Structured details stay out: the message and
// hint already name what is accepted, and repeating it costs the model tokens.
type errorFields struct {
	Code    backend.Code `json:"code"`
	Message string       `json:"message"`
	Hint    string       `json:"hint,omitempty"`
}

// errorResult turns any failure into an isError result with the coded JSON body of its public
// form (backend.Public). Hidden failures carry a request id; their cause goes to the log only,
// and so does the cause of an outage (UNAVAILABLE), whose message and hint the client sees.
func errorResult(ctx context.Context, log *slog.Logger, tool string, err error) *mcp.CallToolResult {
	id := requestID()
	p := backend.PublicFor(ctx, err, id)
	if p.Code == backend.CodeInternal || p.Code == backend.CodeUnavailable {
		log.ErrorContext(ctx, "tool call failed", "tool", tool, "code", p.Code, "request_id", id, "error", err)
	}
	b, _ := json.Marshal(errorBody{Error: errorFields{Code: p.Code, Message: p.Message, Hint: p.Hint}})
	return mcp.NewToolResultError(string(b))
}

// requestID is a short random id that ties a client-visible internal error to its log line.
func requestID() string {
	var b [6]byte
	_, _ = rand.Read(b[:])
	return hex.EncodeToString(b[:])
}

// rawContent is one downstream content block, kept byte for byte. Embedding TextContent makes
// it an mcp.Content; MarshalJSON writes the original bytes instead.
type rawContent struct {
	mcp.TextContent
	raw json.RawMessage
}

// MarshalJSON writes the block exactly as the downstream sent it.
func (r rawContent) MarshalJSON() ([]byte, error) { return r.raw, nil }

// passThrough turns a downstream CallToolResult into this call's result unchanged: content
// blocks, structuredContent and isError as the downstream sent them.
func passThrough(res backend.CallResult) (*mcp.CallToolResult, error) {
	var wire struct {
		Content           []json.RawMessage `json:"content"`
		StructuredContent json.RawMessage   `json:"structuredContent"`
		IsError           bool              `json:"isError"`
	}
	if err := json.Unmarshal(res.Raw, &wire); err != nil {
		return nil, backend.Errorf(backend.CodeDownstreamError, "the service returned a malformed tool result").
			WithHint("the downstream server broke the MCP result format; try another of its tools")
	}
	out := &mcp.CallToolResult{Content: make([]mcp.Content, len(wire.Content)),
		IsError: wire.IsError || res.IsError}
	for i, c := range wire.Content {
		out.Content[i] = rawContent{raw: c}
	}
	if len(wire.StructuredContent) > 0 && string(wire.StructuredContent) != "null" {
		out.RawStructuredContent = wire.StructuredContent
	}
	return out, nil
}
