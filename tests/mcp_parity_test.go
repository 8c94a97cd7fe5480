package tests

import (
	"encoding/json"
	"net/http"
	"regexp"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/agent-deck/agent-deck/backend"
)

// mcpParityStep is one operation done through an MCP tool on one deck server and through its
// REST twin on another, identically seeded: the answers and the database states must match.
type mcpParityStep struct {
	name string
	tool string
	args map[string]any
	// rest performs the twin and returns its answer; it may make several calls.
	rest func(t *testing.T, s *mcpStack, tok string) any
	// mcpView picks the part of the MCP answer that the REST twin answers; mcpList does the
	// same for an answer that is a list.
	mcpView func(v map[string]any) any
	mcpList func(v []any) any
	// restView adjusts the REST answer where people are meant to see more than agents.
	restView func(v any) any
}

func mcpRESTCall(method, path string, body any) func(t *testing.T, s *mcpStack, tok string) any {
	return func(t *testing.T, s *mcpStack, tok string) any {
		t.Helper()
		var out any
		mcpREST(t, s, tok, method, path, body, &out)
		return out
	}
}

func mcpDropKeys(keys ...string) func(map[string]any) any {
	return func(v map[string]any) any {
		for _, k := range keys {
			delete(v, k)
		}
		return v
	}
}

func TestMCPRESTParity(t *testing.T) {
	peer := startHTTPPeer(t)
	mcpSide := startMCPStack(t, mcpStackOptions{})
	restSide := startMCPStack(t, mcpStackOptions{})
	for _, s := range []*mcpStack{mcpSide, restSide} {
		s.seedDeck(t, "dev", peer)
		s.seedDeck(t, "other", peer)
	}
	agent := mcpSide.connect(t, mcpSide.token(backend.ScopeAgent), nil, "")
	agent.ok("bind_workspace", map[string]any{"workspaceRoot": "/w", "deckId": "dev"}, nil)
	restTok := restSide.token(backend.ScopeAgent)

	steps := []mcpParityStep{
		{name: "create deck", tool: "create_deck", args: map[string]any{"name": "beta"},
			rest: mcpRESTCall(http.MethodPost, "/api/v1/decks", map[string]any{"name": "beta"})},
		{name: "list decks", tool: "get_decks", rest: mcpRESTCall(http.MethodGet, "/api/v1/decks", nil),
			// What an agent needs to choose a deck without binding it; REST reads the snapshot.
			mcpList: mcpDecksOnly},
		{name: "update service", tool: "update_service",
			args: map[string]any{"service_id": "dev-peer", "description": "changed", "headers": map[string]string{"X-A": "1"}},
			rest: mcpRESTCall(http.MethodPatch, "/api/v1/services/dev-peer", map[string]any{"description": "changed", "headers": map[string]string{"X-A": "1"}})},
		{name: "update playbook", tool: "update_playbook",
			args: map[string]any{"playbook_id": "pb_dev_release", "body": "v2 uses cred_dev_key", "triggers": []string{"ship dev"}},
			rest: mcpRESTCall(http.MethodPatch, "/api/v1/playbooks/pb_dev_release", map[string]any{"body": "v2 uses cred_dev_key", "triggers": []string{"ship dev"}})},
		{name: "get playbook", tool: "get_playbook", args: map[string]any{"playbook_id": "pb_dev_release"},
			mcpView: mcpDropKeys("open_proposals"),
			rest:    mcpRESTCall(http.MethodGet, "/api/v1/playbooks/pb_dev_release", nil)},
		{name: "tool settings", tool: "update_service_tool_settings",
			args: map[string]any{"service_id": "dev-peer", "disabled_tools": []string{"big", "crash"}},
			rest: mcpRESTCall(http.MethodPut, "/api/v1/services/dev-peer/tool-settings", map[string]any{"disabled_tools": []string{"big", "crash"}})},
		{name: "list tools", tool: "list_service_tools", args: map[string]any{"serviceId": "dev-peer"},
			restView: mcpEnabledOnly, rest: mcpRESTCall(http.MethodGet, "/api/v1/services/dev-peer/tools?deck=dev", nil)},
		{name: "call tool", tool: "call_service_tool",
			args: map[string]any{"serviceId": "dev-peer", "toolName": "echo", "arguments": map[string]any{"message": "same"}},
			rest: mcpRESTCall(http.MethodPost, "/api/v1/services/dev-peer/call", map[string]any{"tool_name": "echo", "arguments": map[string]any{"message": "same"}, "deck": "dev"})},
		{name: "link card", tool: "manage_deck_card",
			args: map[string]any{"action": "link", "card_type": "service", "card_id": "other-peer", "position": 0},
			rest: mcpRESTCall(http.MethodPost, "/api/v1/decks/dev/cards", map[string]any{"card_type": "service", "card_id": "other-peer", "position": 0})},
		{name: "reorder cards", tool: "manage_deck_card",
			args: map[string]any{"action": "reorder", "card_type": "service", "ordered_card_ids": []string{"dev-peer", "other-peer"}},
			rest: mcpRESTCall(http.MethodPut, "/api/v1/decks/dev/cards/service/order", map[string]any{"ordered_card_ids": []string{"dev-peer", "other-peer"}})},
		{name: "unlink card with a warning", tool: "manage_deck_card",
			args: map[string]any{"action": "unlink", "card_type": "credential", "card_id": "cred_dev_key"},
			rest: mcpRESTCall(http.MethodDelete, "/api/v1/decks/dev/cards/credential/cred_dev_key", nil)},
		{name: "bound deck", tool: "get_bound_deck", mcpView: mcpDropKeys("badge", "display_summary"),
			// The summary line an agent sees starts with its session's badge; REST has no session.
			restView: func(v any) any { return mcpDropKeys("display_summary")(v.(map[string]any)) },
			rest:     mcpRESTCall(http.MethodGet, "/api/v1/decks/dev/snapshot", nil)},
		{name: "register service on the deck", tool: "register_service",
			args:    map[string]any{"name": "third", "type": "mcp", "url": peer, "description": "d"},
			mcpView: mcpDropKeys("linked_deck_id"),
			rest: func(t *testing.T, s *mcpStack, tok string) any {
				out := mcpRESTCall(http.MethodPost, "/api/v1/services", map[string]any{"name": "third", "type": "mcp", "url": peer, "description": "d"})(t, s, tok)
				mcpRESTCall(http.MethodPost, "/api/v1/decks/dev/cards", map[string]any{"card_type": "service", "card_id": "third"})(t, s, tok)
				return out
			}},
		{name: "register playbook on the deck", tool: "register_playbook",
			args:    map[string]any{"title": "Ship third", "body": "uses third and cred_other_key", "triggers": []string{"ship third"}},
			mcpView: mcpDropKeys("linked_deck_id"),
			rest: func(t *testing.T, s *mcpStack, tok string) any {
				out := mcpRESTCall(http.MethodPost, "/api/v1/playbooks", map[string]any{"title": "Ship third", "body": "uses third and cred_other_key", "triggers": []string{"ship third"}})(t, s, tok)
				mcpRESTCall(http.MethodPost, "/api/v1/decks/dev/cards", map[string]any{"card_type": "playbook", "card_id": "pb_ship_third"})(t, s, tok)
				return out
			}},
	}
	for _, st := range steps {
		t.Run(st.name, func(t *testing.T) {
			res := agent.call(st.tool, st.args)
			if res.IsError {
				t.Fatalf("MCP %s: %s", st.tool, mcpText(res))
			}
			var mcpOut any
			if st.tool == "call_service_tool" {
				b, _ := json.Marshal(res)
				_ = json.Unmarshal(b, &mcpOut)
			} else if err := json.Unmarshal([]byte(mcpText(res)), &mcpOut); err != nil {
				t.Fatal(err)
			}
			if m, ok := mcpOut.(map[string]any); ok && st.mcpView != nil {
				mcpOut = st.mcpView(m)
			}
			if l, ok := mcpOut.([]any); ok && st.mcpList != nil {
				mcpOut = st.mcpList(l)
			}
			restOut := st.rest(t, restSide, restTok)
			if st.restView != nil {
				restOut = st.restView(restOut)
			}
			if diff := cmp.Diff(mcpNormalize(t, restSide, restOut), mcpNormalize(t, mcpSide, mcpOut)); diff != "" {
				t.Errorf("answers differ (-REST +MCP):\n%s", diff)
			}
			if diff := cmp.Diff(mcpNormalize(t, restSide, mcpSnapshotAll(t, restSide)), mcpNormalize(t, mcpSide, mcpSnapshotAll(t, mcpSide))); diff != "" {
				t.Errorf("database states differ (-REST +MCP):\n%s", diff)
			}
		})
	}
}

// mcpDecksOnly keeps the deck rows of get_decks, without what it adds for choosing a deck.
func mcpDecksOnly(list []any) any {
	for _, x := range list {
		if m, ok := x.(map[string]any); ok {
			mcpDropKeys("counts", "summary", "services", "playbooks")(m)
		}
	}
	return list
}

// mcpEnabledOnly keeps the enabled tools of a REST tool list: people see disabled tools too
// (to turn them back on), agents only the ones they may call.
func mcpEnabledOnly(v any) any {
	list, _ := v.([]any)
	out := []any{}
	for _, x := range list {
		if m, ok := x.(map[string]any); ok && m["enabled"] == true {
			out = append(out, x)
		}
	}
	return out
}

var mcpUUIDRE = regexp.MustCompile(`^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$`)

// mcpNormalize makes answers of two deck servers comparable: generated ids become the names of
// what they identify, and timestamps, health and peer addresses go.
func mcpNormalize(t testing.TB, s *mcpStack, v any) any {
	t.Helper()
	names := map[string]string{}
	ctx := s.adminCtx()
	decks, _ := s.svc.ListDecks(ctx)
	for _, d := range decks {
		names[d.ID] = "deck:" + d.Name
	}
	services, _ := s.svc.ListServices(ctx)
	for _, sv := range services {
		names[sv.ID] = "service:" + sv.Name
	}
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	var generic any
	if err := json.Unmarshal(b, &generic); err != nil {
		t.Fatal(err)
	}
	return mcpWalkNormalize(generic, names)
}

func mcpWalkNormalize(v any, names map[string]string) any {
	switch x := v.(type) {
	case map[string]any:
		out := map[string]any{}
		for k, val := range x {
			if strings.HasSuffix(k, "_at") || k == "health" || k == "url" || k == "_meta" ||
				k == "enabled_tool_count" || k == "disabled_tool_count" {
				continue
			}
			out[k] = mcpWalkNormalize(val, names)
		}
		return out
	case []any:
		for i := range x {
			x[i] = mcpWalkNormalize(x[i], names)
		}
		return x
	case string:
		if mcpUUIDRE.MatchString(x) {
			if n, ok := names[x]; ok {
				return n
			}
			return "uuid"
		}
	}
	return v
}
