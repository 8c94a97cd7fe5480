package mcptools

import (
	"context"
	"encoding/json"
	"net/http"
	"strconv"

	"github.com/mark3labs/mcp-go/mcp"

	"github.com/agent-deck/agent-deck/backend"
	"github.com/agent-deck/agent-deck/backend/core"
)

// Resources, prompts and completions of a bound session (core/session_resources.go) are
// answered here, before the transport: mcp-go serves only resources and prompts registered in
// its own memory, while a session's come from its deck, in PostgreSQL, and from the deck's
// services. The capabilities are declared at initialize (newMCPServer); an unbound session has
// none of either.

// catalogMethod answers one request's params for a session.
type catalogMethod func(h *Handler, ctx context.Context, sessionID string, params json.RawMessage) (any, error)

// catalogMethods are the requests answered here; notFound is the JSON-RPC code of a refusal
// that means "no such resource".
var catalogMethods = map[string]struct {
	run      catalogMethod
	notFound int
}{
	string(mcp.MethodResourcesList):          {run: listResources},
	string(mcp.MethodResourcesTemplatesList): {run: listResourceTemplates},
	string(mcp.MethodResourcesRead):          {run: readResource, notFound: codeResourceNotFound},
	string(mcp.MethodResourcesSubscribe):     {run: subscribeResource, notFound: codeResourceNotFound},
	string(mcp.MethodResourcesUnsubscribe):   {run: unsubscribeResource},
	string(mcp.MethodPromptsList):            {run: listPrompts},
	string(mcp.MethodPromptsGet):             {run: getPrompt},
	string(mcp.MethodCompletionComplete):     {run: complete},
}

// codeResourceNotFound is MCP's JSON-RPC code for a resource the server does not have.
const codeResourceNotFound = -32002

type cursorParams struct {
	Cursor string `json:"cursor"`
}

type uriParams struct {
	URI string `json:"uri"`
}

func page(key string, p core.CatalogPage) map[string]any {
	out := map[string]any{key: p.Items}
	if p.NextCursor != "" {
		out["nextCursor"] = p.NextCursor
	}
	return out
}

func listResources(h *Handler, ctx context.Context, id string, params json.RawMessage) (any, error) {
	var in cursorParams
	_ = json.Unmarshal(params, &in)
	h.notes.listed(id, true, false)
	p, err := h.svc.BoundResources(ctx, id, in.Cursor)
	return page("resources", p), err
}

func listResourceTemplates(h *Handler, ctx context.Context, id string, params json.RawMessage) (any, error) {
	var in cursorParams
	_ = json.Unmarshal(params, &in)
	h.notes.listed(id, true, false)
	p, err := h.svc.BoundResourceTemplates(ctx, id, in.Cursor)
	return page("resourceTemplates", p), err
}

func readResource(h *Handler, ctx context.Context, id string, params json.RawMessage) (any, error) {
	var in uriParams
	_ = json.Unmarshal(params, &in)
	return h.svc.ReadBoundResource(ctx, id, in.URI)
}

func subscribeResource(h *Handler, ctx context.Context, id string, params json.RawMessage) (any, error) {
	var in uriParams
	_ = json.Unmarshal(params, &in)
	return struct{}{}, h.svc.SubscribeBoundResource(ctx, id, in.URI)
}

func unsubscribeResource(h *Handler, ctx context.Context, id string, params json.RawMessage) (any, error) {
	var in uriParams
	_ = json.Unmarshal(params, &in)
	return struct{}{}, h.svc.UnsubscribeBoundResource(ctx, id, in.URI)
}

func listPrompts(h *Handler, ctx context.Context, id string, params json.RawMessage) (any, error) {
	var in cursorParams
	_ = json.Unmarshal(params, &in)
	h.notes.listed(id, false, true)
	p, err := h.svc.BoundPrompts(ctx, id, in.Cursor)
	return page("prompts", p), err
}

func getPrompt(h *Handler, ctx context.Context, id string, params json.RawMessage) (any, error) {
	var in struct {
		Name      string          `json:"name"`
		Arguments json.RawMessage `json:"arguments"`
	}
	_ = json.Unmarshal(params, &in)
	return h.svc.GetBoundPrompt(ctx, id, in.Name, in.Arguments)
}

func complete(h *Handler, ctx context.Context, id string, params json.RawMessage) (any, error) {
	var in struct {
		Ref struct {
			Type string `json:"type"`
			Name string `json:"name"`
			URI  string `json:"uri"`
		} `json:"ref"`
		Argument json.RawMessage `json:"argument"`
		Context  json.RawMessage `json:"context"`
	}
	_ = json.Unmarshal(params, &in)
	ref := in.Ref.Name
	if in.Ref.Type == "ref/resource" {
		ref = in.Ref.URI
	}
	values, total, more, err := h.svc.CompleteBound(ctx, id, core.CompletionInput{RefType: in.Ref.Type, Ref: ref,
		Argument: in.Argument, Context: in.Context})
	if values == nil {
		values = []string{}
	}
	c := map[string]any{"values": values, "hasMore": more}
	if total > 0 {
		c["total"] = total
	}
	return map[string]any{"completion": c}, err
}

// serveCatalog answers a resources, prompts or completion request of a live session; false,
// having written nothing, leaves it to the transport (which refuses what this would too: a body
// that is not JSON, a notification). A foreign Host was refused before (prepare).
func (h *Handler) serveCatalog(ctx context.Context, w http.ResponseWriter, r *http.Request, st *reqState) bool {
	m, ok := catalogMethods[st.method]
	if !ok || r.Method != http.MethodPost || st.session == nil || st.openErr != nil {
		return false
	}
	if !isJSONContentType(r.Header.Get("Content-Type")) {
		return false
	}
	var msg struct {
		ID     json.RawMessage `json:"id"`
		Params json.RawMessage `json:"params"`
	}
	if json.Unmarshal(st.body, &msg) != nil || len(msg.ID) == 0 || string(msg.ID) == "null" {
		return false
	}
	res, err := m.run(h, h.httpContext(ctx, r), st.session.ID, msg.Params)
	var body []byte
	if err != nil {
		p := h.public(ctx, err)
		code := catalogErrorCode(p, m.notFound)
		data := map[string]any{"code": p.Code, "message": p.Message}
		if p.Hint != "" {
			data["hint"] = p.Hint
		}
		body, _ = json.Marshal(map[string]any{"jsonrpc": mcp.JSONRPC_VERSION, "id": msg.ID,
			"error": map[string]any{"code": code, "message": rpcMessage(p), "data": data}})
	} else if body, err = json.Marshal(map[string]any{"jsonrpc": mcp.JSONRPC_VERSION, "id": msg.ID, "result": res}); err != nil {
		h.log.ErrorContext(ctx, "MCP answer could not be encoded", "method", st.method, "error", err)
		body = nil
	}
	body = append(body, '\n')
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Content-Length", strconv.Itoa(len(body)))
	w.WriteHeader(http.StatusOK)
	_, _ = w.Write(body)
	return true
}

// catalogErrorCode is the JSON-RPC code of a refused catalog request: "no such resource" for one
// the deck does not have, the downstream's own code when it refused the request as not found or
// as bad params, an internal error for a failure of the hub or of the service, and invalid
// params for the rest (the caller's request).
func catalogErrorCode(p backend.PublicError, notFound int) int {
	switch p.Code {
	case backend.CodeNotFound, backend.CodeNotOnBoundDeck:
		if notFound != 0 {
			return notFound
		}
	case backend.CodeDownstreamError:
		if c, ok := p.Details["downstream_code"].(int); ok && (c == codeResourceNotFound || c == mcp.INVALID_PARAMS) {
			return c
		}
		return mcp.INTERNAL_ERROR
	case backend.CodeInternal, backend.CodeUnavailable, backend.CodeDownstreamUnreachable, backend.CodeDownstreamTimeout,
		backend.CodeDownstreamAuth, backend.CodeDownstreamResultTooLarge:
		return mcp.INTERNAL_ERROR
	}
	return mcp.INVALID_PARAMS
}
