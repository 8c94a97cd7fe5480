package mcptools

import (
	"context"
	"encoding/json"
	"net/http"
	"strings"

	"github.com/mark3labs/mcp-go/mcp"

	"github.com/agent-deck/agent-deck/backend"
)

// A tool outside the session's profile is neither listed nor run, but a call to it teaches:
// the transport lets every registered tool through at tools/call (filterTools), and the tool
// handler refuses one outside the profile with the profile that has it (outsideProfile). A name
// no profile has never reaches the transport: ServeHTTP answers it with a JSON-RPC "not found"
// that lists the session's tools (writeUnknownTool).

// outsideProfile is the refusal of a call to a registered tool the session's profile leaves out;
// nil when the profile has it.
func (h *Handler) outsideProfile(ctx context.Context, spec *ToolSpec) error {
	p := h.profile
	if st := stateFrom(ctx); st != nil {
		p = st.effectiveProfile()
	}
	if h.visible[visibility{p, false}][spec.Name] {
		return nil
	}
	var in Profile
	for _, q := range Profiles {
		if q.includes(spec.Tier) {
			in = q
			break
		}
	}
	hint := "connect with ?profile=" + string(in) + " on the MCP URL or the header " + backend.HeaderProfile + ": " +
		string(in) + ", or ask the person who set up Agent Deck"
	if in.rank() > h.profile.rank() {
		hint = "this server offers at most profile " + string(h.profile) + "; ask the person who runs it to set " +
			"AGENT_DECK_MCP_TOOL_PROFILE=" + string(in) + " (or use the tools this session lists)"
	}
	return backend.Errorf(backend.CodeNotFound, "tool %q is not in this session's profile %s; it is in profile %s",
		spec.Name, p, in).WithHint(hint).WithDetail("profile", string(p)).WithDetail("tool_profile", string(in))
}

// sameSizeAs ranks a profile as the same size as another for the never-widen rule: resource
// carries exactly the standard profile's operations, in other shapes.
var sameSizeAs = map[Profile]Profile{ProfileResource: ProfileStandard}

// registered reports whether any profile has a tool of this name.
func (h *Handler) registered(name string) bool {
	for _, p := range Profiles {
		if h.visible[visibility{p, false}][name] {
			return true
		}
	}
	return false
}

// writeUnknownTool answers a tools/call naming a tool no profile has: JSON-RPC invalid params,
// as the transport would, with the session's tools in the message.
func (h *Handler) writeUnknownTool(w http.ResponseWriter, st *reqState) {
	readOnly := !st.actor.Scope.CanWrite()
	names := ToolNames(st.effectiveProfile(), readOnly)
	lister := h.words[visibility{st.effectiveProfile(), readOnly}].Tool("list_service_tools", "")
	msg := "tool " + quoteList([]string{st.toolName}) + " not found; this session's tools: " + strings.Join(names, ", ")
	id := st.requestID
	if len(id) == 0 {
		id = json.RawMessage("null")
	}
	body, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": id, "error": map[string]any{
		"code": mcp.INVALID_PARAMS, "message": msg,
		"data": map[string]any{"code": backend.CodeNotFound, "message": msg, "tools": names,
			"hint": "call one of this session's tools; " + lister + " shows a service's own tools"},
	}})
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(http.StatusOK)
	_, _ = w.Write(body)
}
