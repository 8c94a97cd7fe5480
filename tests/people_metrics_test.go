package tests

import (
	"net/http"
	"strings"
	"testing"

	"github.com/agent-deck/agent-deck/backend"
	"github.com/agent-deck/agent-deck/backend/core"
)

// TestMetricsPerPerson (issue 26): the tool-call counters of /metrics say whose calls they
// were: alice's and bob's calls through the same deck and service are counted apart, each
// under the person the token acts for, errors included.
func TestMetricsPerPerson(t *testing.T) {
	h := startTeamHub(t, mcpStackOptions{})
	peer := startHTTPPeer(t)
	admin := h.s.api()
	admin.Must(t, http.StatusCreated, "POST", "/api/v1/services", core.ServiceInput{Name: "peer", Type: backend.ServiceRemote, URL: peer}, nil)
	admin.Must(t, http.StatusCreated, "POST", "/api/v1/decks", core.DeckInput{Name: "team"}, nil)
	admin.Must(t, http.StatusOK, "POST", "/api/v1/decks/team/cards", core.CardRef{CardType: backend.CardService, CardID: "peer"}, nil)
	admin.Must(t, http.StatusOK, "PUT", "/api/v1/decks/team/sharing", core.DeckSharingInput{Sharing: backend.ShareEveryone}, nil)
	calls := map[string][]string{"alice": {"echo", "echo", "echo"}, "bob": {"echo", "ecko"}}
	for who, tools := range calls {
		c := h.s.connect(t, h.agent[who], nil, "")
		c.ok("bind_workspace", map[string]any{"workspaceRoot": "/w/" + who, "deckId": "team"}, nil)
		for _, tool := range tools {
			c.call("call_service_tool", map[string]any{"serviceId": "peer", "toolName": tool, "arguments": map[string]any{"message": "hi"}})
		}
	}
	h.as(h.agent["bob"]).Must(t, http.StatusOK, "POST", "/api/v1/services/peer/call",
		core.CallInput{ToolName: "echo", Deck: "team", Arguments: []byte(`{"message":"rest"}`)}, nil)

	text := waitMetric(t, h.s, `agent_deck_tool_calls_total{outcome="ok",person="bob",service="peer",tool="echo"}`, 2)
	for series, want := range map[string]float64{
		`agent_deck_tool_calls_total{outcome="ok",person="alice",service="peer",tool="echo"}`:            3,
		`agent_deck_tool_calls_total{outcome="ok",person="bob",service="peer",tool="echo"}`:              2,
		`agent_deck_tool_calls_total{outcome="error",person="bob",service="peer",tool="other"}`:          1,
		`agent_deck_tool_call_errors_total{code="NOT_FOUND",person="bob",service="peer",tool="other"}`:   1,
		`agent_deck_tool_calls_total{outcome="error",person="alice",service="peer",tool="other"}`:        -1,
		`agent_deck_tool_call_errors_total{code="NOT_FOUND",person="alice",service="peer",tool="other"}`: -1,
		`agent_deck_tool_call_duration_seconds_count{service="peer",tool="echo"}`:                        5,
	} {
		if got := metricValue(text, series); got != want {
			t.Errorf("%s = %v, want %v (-1: no such series)", series, got, want)
		}
	}
	if strings.Contains(text, `person="admin"`) {
		t.Errorf("calls of alice and bob are counted as the admin's:\n%s", grepLines(text, "agent_deck_tool"))
	}
}
