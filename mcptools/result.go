package mcptools

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"log/slog"
	"strings"

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
	wire, ok := splitResult(res.Raw)
	if !ok {
		return nil, backend.Errorf(backend.CodeDownstreamError, "the service returned a malformed tool result").
			WithHint("the downstream server broke the MCP result format; try another of its tools")
	}
	out := &mcp.CallToolResult{Content: make([]mcp.Content, len(wire.content)),
		IsError: wire.isError || res.IsError}
	for i, c := range wire.content {
		out.Content[i] = rawContent{raw: c}
	}
	if len(wire.structured) > 0 && string(wire.structured) != "null" {
		out.RawStructuredContent = wire.structured
	}
	return out, nil
}

// resultWire is what passThrough reads of a CallToolResult.
type resultWire struct {
	content    []json.RawMessage
	structured json.RawMessage
	isError    bool
}

// splitResult reads a downstream's CallToolResult as json.Unmarshal into
// {Content []json.RawMessage; StructuredContent json.RawMessage; IsError bool} does (names
// matched regardless of case, the last of a repeated name kept, null leaving a field as it is,
// any other mismatch an error), and ok is false where that fails. It runs on every proxied
// call: after one validation the result is split in one copy, without the decoder; a member
// name that is not plain ASCII goes to the decoder, whose matching of other scripts' letters
// this does not repeat.
func splitResult(raw []byte) (w resultWire, ok bool) {
	bad := false
	if !json.Valid(raw) {
		return resultWire{}, false
	}
	b := bytes.TrimSpace(raw)
	if string(b) == "null" {
		return resultWire{}, true
	}
	if b[0] != '{' {
		return resultWire{}, false
	}
	b = bytes.Clone(b)
	for i := backend.SkipJSONSpace(b, 1); i < len(b) && b[i] == '"'; {
		end := backend.SkipJSONString(b, i)
		name, plain := plainString(b[i:end])
		if !plain {
			return decodeResult(raw)
		}
		vs := backend.SkipJSONSpace(b, backend.SkipJSONSpace(b, end)+1) // past the colon
		ve := backend.SkipJSONValue(b, vs)
		v := b[vs:ve:ve]
		switch {
		case strings.EqualFold(name, "content"):
			switch v[0] {
			case 'n':
				w.content = nil
			case '[':
				w.content = []json.RawMessage{} // empty, not nil, as decoded; the last array kept
				for j := backend.SkipJSONSpace(v, 1); j < len(v) && v[j] != ']'; {
					e := backend.SkipJSONValue(v, j)
					w.content = append(w.content, v[j:e:e])
					if j = backend.SkipJSONSpace(v, e); j < len(v) && v[j] == ',' {
						j = backend.SkipJSONSpace(v, j+1)
					}
				}
			default:
				bad = true
			}
		case strings.EqualFold(name, "structuredContent"):
			w.structured = v
		case strings.EqualFold(name, "isError"):
			switch string(v) {
			case "true":
				w.isError = true
			case "false":
				w.isError = false
			case "null":
			default:
				bad = true
			}
		}
		if i = backend.SkipJSONSpace(b, ve); i < len(b) && b[i] == ',' {
			i = backend.SkipJSONSpace(b, i+1)
		}
	}
	return w, !bad
}

// decodeResult is splitResult by the decoder itself.
func decodeResult(raw []byte) (resultWire, bool) {
	var wire struct {
		Content           []json.RawMessage `json:"content"`
		StructuredContent json.RawMessage   `json:"structuredContent"`
		IsError           bool              `json:"isError"`
	}
	if json.Unmarshal(raw, &wire) != nil {
		return resultWire{}, false
	}
	return resultWire{content: wire.Content, structured: wire.StructuredContent, isError: wire.IsError}, true
}
