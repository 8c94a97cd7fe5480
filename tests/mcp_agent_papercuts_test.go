package tests

import (
	"encoding/json"
	"slices"
	"strings"
	"testing"

	"github.com/mark3labs/mcp-go/mcp"

	"github.com/agent-deck/agent-deck/backend"
	"github.com/agent-deck/agent-deck/backend/core"
)

// TestMCPParameterCasing holds issue 27 item 2: the canonical tools keep the original Agent
// Deck's parameter names (SPEC §4.1), the other casing of a name works as a deprecated alias
// whose result warns, giving both spellings is refused, and the first tool says which is which.
func TestMCPParameterCasing(t *testing.T) {
	s := startMCPStack(t, mcpStackOptions{Profile: "standard"})
	s.seedDeck(t, "dev", startHTTPPeer(t))
	std := s.connect(t, s.token(backend.ScopeAgent), nil, "")
	std.ok("bind_workspace", map[string]any{"workspace_root": "/w", "deck_id": "dev"}, nil)
	res := s.connect(t, s.token(backend.ScopeAgent), nil, "?profile=resource")
	bindFor(t, "resource", res, "dev")
	tests := []struct {
		name   string
		conn   *mcpConn
		tool   string
		args   map[string]any
		warns  []string // "" entries: no warning
		failed bool
	}{
		{"canonical names, no warning", std, "call_service_tool",
			map[string]any{"serviceId": "dev-peer", "toolName": "echo", "arguments": map[string]any{"message": "hi"}}, nil, false},
		{"snake_case for camelCase parameters", std, "call_service_tool",
			map[string]any{"service_id": "dev-peer", "tool_name": "echo", "arguments": map[string]any{"message": "hi"}},
			[]string{"service_id → serviceId", "tool_name → toolName"}, false},
		{"camelCase for a snake_case parameter", std, "get_playbook",
			map[string]any{"playbookId": "pb_dev_release"}, []string{"playbookId → playbook_id"}, false},
		{"both spellings at once", std, "get_playbook",
			map[string]any{"playbookId": "pb_dev_release", "playbook_id": "pb_dev_release"}, nil, true},
		{"a resource field in the other casing", res, "service",
			map[string]any{"action": "call", "id": "dev-peer", "fields": map[string]any{"tool_name": "echo",
				"arguments": map[string]any{"message": "hi"}}}, []string{"fields.tool_name → toolName"}, false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			r := tc.conn.call(tc.tool, tc.args)
			if r.IsError != tc.failed {
				t.Fatalf("isError %v, want %v: %s", r.IsError, tc.failed, mcpText(r))
			}
			warning := ""
			if n := len(r.Content); n > 1 {
				if tc, ok := r.Content[n-1].(mcp.TextContent); ok {
					warning = tc.Text
				}
			}
			if len(tc.warns) == 0 && warning != "" {
				t.Errorf("a call without deprecated names warns: %s", warning)
			}
			for _, w := range tc.warns {
				if !strings.Contains(warning, w) || !strings.Contains(warning, "deprecated") {
					t.Errorf("warning %q does not name %q as deprecated", warning, w)
				}
			}
		})
	}
	t.Run("the tools say which spelling is canonical", func(t *testing.T) {
		for _, c := range []struct {
			conn *mcpConn
			tool string
		}{{std, "bind_workspace"}, {res, "session"}} {
			if d := toolDescription(t, c.conn, c.tool); !strings.Contains(d, "other casing is a deprecated alias") {
				t.Errorf("%s does not say which spelling is canonical: %q", c.tool, d)
			}
		}
	})
}

// TestMCPProposalEvidence holds issue 27 item 3: the evidence object's fields are in the
// schema, a plain string is taken as the failure summary, and an unknown field is refused with
// the fields there are.
func TestMCPProposalEvidence(t *testing.T) {
	w := newMCPToolsWorld(t)
	schema := toolSchema(t, w.agent, "propose_playbook_patch")
	var parsed struct {
		Properties map[string]struct {
			Type       any                        `json:"type"`
			Properties map[string]json.RawMessage `json:"properties"`
		} `json:"properties"`
	}
	if err := json.Unmarshal(schema, &parsed); err != nil {
		t.Fatal(err)
	}
	ev := parsed.Properties["evidence"]
	for _, f := range []string{"failure_summary", "user_feedback_excerpt", "corrected_output_hint"} {
		if _, ok := ev.Properties[f]; !ok {
			t.Errorf("the evidence schema does not list %s: %s", f, schema)
		}
	}
	propose := func(evidence any) *mcp.CallToolResult {
		return w.agent.call("propose_playbook_patch", map[string]any{"kind": "signal_only", "rationale": "r",
			"playbook_id": w.dev.Playbook.ID, "evidence": evidence})
	}
	tests := []struct {
		name     string
		evidence any
		want     backend.Evidence
		refused  []string
	}{
		{"a plain string is the failure summary", "the deploy skipped the migration",
			backend.Evidence{FailureSummary: "the deploy skipped the migration"}, nil},
		{"an object", map[string]any{"user_feedback_excerpt": "run migrate first"},
			backend.Evidence{UserFeedbackExcerpt: "run migrate first"}, nil},
		{"an object as a JSON string", `{"corrected_output_hint":"migrate, then deploy"}`,
			backend.Evidence{CorrectedOutputHint: "migrate, then deploy"}, nil},
		{"an unknown field", map[string]any{"why": "x"}, backend.Evidence{},
			[]string{"failure_summary", "user_feedback_excerpt", "corrected_output_hint"}},
		{"a field that is not text", map[string]any{"failure_summary": 5}, backend.Evidence{}, []string{"evidence.failure_summary"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			r := propose(tc.evidence)
			if tc.refused != nil {
				if !r.IsError {
					t.Fatalf("accepted: %s", mcpText(r))
				}
				for _, m := range tc.refused {
					if !strings.Contains(mcpText(r), m) {
						t.Errorf("refusal does not name %s: %s", m, mcpText(r))
					}
				}
				return
			}
			if r.IsError {
				t.Fatalf("refused: %s", mcpText(r))
			}
			var out core.ProposeResult
			if err := json.Unmarshal([]byte(mcpText(r)), &out); err != nil || out.Signal == nil {
				t.Fatalf("result %s: %v", mcpText(r), err)
			}
			if out.Signal.Evidence != tc.want {
				t.Errorf("evidence %+v, want %+v", out.Signal.Evidence, tc.want)
			}
		})
	}
}

// TestMCPGetDecksHelpsChoose holds issue 27 item 4: get_decks says what each deck holds, so
// an agent can choose one without binding it.
func TestMCPGetDecksHelpsChoose(t *testing.T) {
	s := startMCPStack(t, mcpStackOptions{})
	peer := startHTTPPeer(t)
	s.seedDeck(t, "dev", peer)
	if _, err := s.svc.CreateDeck(s.adminCtx(), core.DeckInput{Name: "empty"}); err != nil {
		t.Fatal(err)
	}
	c := s.connect(t, s.token(backend.ScopeAgentRead), nil, "")
	var decks []core.DeckChoice
	c.ok("get_decks", nil, &decks)
	got := map[string]core.DeckChoice{}
	for _, d := range decks {
		got[d.Name] = d
	}
	dev, empty := got["dev"], got["empty"]
	if dev.Counts != (core.DeckCounts{Services: 1, Credentials: 1, Playbooks: 1}) ||
		!slices.Equal(dev.Services, []string{"dev-peer"}) || !slices.Equal(dev.Playbooks, []string{"dev release"}) ||
		dev.Summary != "◆ dev · 1 MCP · 1 key · 1 playbook" {
		t.Errorf("dev = %+v", dev)
	}
	if empty.Counts != (core.DeckCounts{}) || empty.Services == nil || len(empty.Services) != 0 || empty.Summary == "" {
		t.Errorf("empty = %+v", empty)
	}
}

// toolSchema returns a tool's input schema as the session lists it.
func toolSchema(t *testing.T, c *mcpConn, name string) json.RawMessage {
	t.Helper()
	return listedTool(t, c, name).RawInputSchema
}

// toolDescription returns a tool's description as the session lists it.
func toolDescription(t *testing.T, c *mcpConn, name string) string {
	t.Helper()
	return listedTool(t, c, name).Description
}

func listedTool(t *testing.T, c *mcpConn, name string) mcp.Tool {
	t.Helper()
	res, err := c.c.ListTools(t.Context(), mcp.ListToolsRequest{})
	if err != nil {
		t.Fatal(err)
	}
	for _, tl := range res.Tools {
		if tl.Name == name {
			if len(tl.RawInputSchema) == 0 {
				tl.RawInputSchema, _ = json.Marshal(tl.InputSchema)
			}
			return tl
		}
	}
	t.Fatalf("the session does not list %s", name)
	return mcp.Tool{}
}
