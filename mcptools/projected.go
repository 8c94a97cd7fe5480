package mcptools

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"

	"github.com/mark3labs/mcp-go/mcp"

	"github.com/agent-deck/agent-deck/backend"
	"github.com/agent-deck/agent-deck/backend/core"
)

// Projected tools (core/deck_projection.go): a bound session of a deck that projects its tools
// lists them after its profile's own (filterTools), and a call to one is rewritten, before the
// transport sees it, into the call_service_tool it stands for. Everything after that is
// call_service_tool's: the plan, the checks, the audit, the errors, the relay of what the
// downstream sends back, and the fast path.

// projectedVia is the tool a projected call runs.
const projectedVia = "call_service_tool"

// projectedTools are the session's projected tools as tools/list shows them; none when the
// session is unbound, its deck projects nothing, or they cannot be read now (logged).
func (h *Handler) projectedTools(ctx context.Context, st *reqState) []mcp.Tool {
	if st.session == nil || st.session.DeckID == "" {
		return nil
	}
	proj, err := h.svc.ProjectedTools(ctx, st.session.ID)
	if err != nil {
		h.log.WarnContext(ctx, "projected tools could not be listed", "code", backend.ErrorCode(err))
		return nil
	}
	if proj.Status.Capped != "" {
		h.log.InfoContext(ctx, "projected tools capped", "deck_id", st.session.DeckID, "tools", proj.Status.Tools,
			"eligible", proj.Status.Eligible)
	}
	out := make([]mcp.Tool, 0, len(proj.Tools))
	for _, t := range proj.Tools {
		tool := mcp.Tool{Name: t.Name, Title: t.Title, Description: t.Description, RawInputSchema: t.InputSchema}
		if len(t.OutputSchema) > 0 {
			tool.RawOutputSchema = t.OutputSchema
		}
		if len(t.Annotations) > 0 {
			_ = json.Unmarshal(t.Annotations, &tool.Annotations)
		}
		out = append(out, tool)
	}
	return out
}

// projectCall rewrites a tools/call of a projected tool into the call_service_tool it stands
// for, in the body the transport reads and in the request's state; false leaves the request as
// it was (the name is no projected tool of the session).
func (h *Handler) projectCall(r *http.Request, st *reqState) bool {
	if st.session == nil || len(st.body) == 0 {
		return false
	}
	ctx := core.WithSession(backend.WithActor(r.Context(), st.actor), *st.session)
	serviceID, tool, err := h.svc.ResolveProjectedTool(ctx, st.session.ID, st.toolName)
	if err != nil {
		return false
	}
	var msg map[string]json.RawMessage
	var params map[string]json.RawMessage
	if json.Unmarshal(st.body, &msg) != nil || json.Unmarshal(msg["params"], &params) != nil {
		return false
	}
	args := map[string]json.RawMessage{"serviceId": mustJSON(serviceID), "toolName": mustJSON(tool)}
	if a := bytes.TrimSpace(params["arguments"]); len(a) > 0 && !bytes.Equal(a, []byte("null")) {
		args["arguments"] = a
	}
	params["name"], params["arguments"] = mustJSON(projectedVia), mustJSON(args)
	msg["params"] = mustJSON(params)
	body := mustJSON(msg)
	r.Body, r.ContentLength = io.NopCloser(bytes.NewReader(body)), int64(len(body))
	st.body, st.toolName, st.projected = body, projectedVia, true
	if st.call != nil {
		st.call.args = params["arguments"]
	}
	return true
}
