package tests

import (
	"net/http"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/agent-deck/agent-deck/backend"
	"github.com/agent-deck/agent-deck/mcptools"
)

// profileWordsStep is one failing call made on every profile: through the canonical tool, or
// through its resource action on the resource profile.
type profileWordsStep struct {
	name     string
	tool     string
	args     map[string]any
	resource string
	action   map[string]any
	writes   bool // the canonical tool writes: not on agent:read
}

// TestMCPHintsSpeakTheSessionsProfile holds issue 27 item 1: a session reports its own profile
// (session get, the sessions list behind agent-deck status, /metrics), and every message and
// hint it gets names only tools its own profile and scope can call.
func TestMCPHintsSpeakTheSessionsProfile(t *testing.T) {
	s := startMCPStack(t, mcpStackOptions{Profile: "legacy"})
	type session struct {
		profile  string
		readOnly bool
		conn     *mcpConn
	}
	var sessions []session
	for _, p := range []string{"runtime", "standard", "resource", "legacy"} {
		for _, readOnly := range []bool{false, true} {
			scope := backend.ScopeAgent
			if readOnly {
				scope = backend.ScopeAgentRead
			}
			sessions = append(sessions, session{p, readOnly, s.connect(t, s.token(scope), nil, "?profile="+p)})
		}
	}
	res := sessions[4].conn

	t.Run("the resource profile is reported as resource", func(t *testing.T) {
		var b struct {
			Profile        string `json:"profile"`
			DisplaySummary string `json:"display_summary"`
		}
		res.ok("session", map[string]any{"action": "get"}, &b)
		if b.Profile != "resource" {
			t.Errorf("session get: profile %q, want resource", b.Profile)
		}
		if !strings.Contains(b.DisplaySummary, "session action bind") {
			t.Errorf("unbound display_summary %q does not say how this profile binds", b.DisplaySummary)
		}
		var listed []struct {
			ID      string `json:"id"`
			Profile string `json:"profile"`
		}
		s.api().Must(t, http.StatusOK, http.MethodGet, "/api/v1/sessions", nil, &listed)
		i := slices.IndexFunc(listed, func(x struct {
			ID      string `json:"id"`
			Profile string `json:"profile"`
		}) bool {
			return x.ID == res.sessionID()
		})
		if i < 0 || listed[i].Profile != "resource" {
			t.Errorf("GET /api/v1/sessions (agent-deck status): %+v, want the session with profile resource", listed)
		}
		metrics := string(s.api().Must(t, http.StatusOK, http.MethodGet, "/metrics", nil, nil).Body)
		if !strings.Contains(metrics, `agent_deck_mcp_sessions{profile="resource"} 2`) {
			t.Errorf("/metrics does not count the two resource sessions:\n%s", grepLines(metrics, "agent_deck_mcp_sessions"))
		}
	})

	steps := []profileWordsStep{
		{name: "not bound, no deck exists", tool: "get_bound_deck", resource: "deck", action: map[string]any{"action": "get"}},
		{name: "bind without a deck", tool: "bind_workspace", args: map[string]any{"workspaceRoot": "/w", "deckId": " "},
			resource: "session", action: map[string]any{"action": "bind", "id": " ", "fields": map[string]any{"workspaceRoot": "/w"}}},
		{name: "session get while unbound", tool: "get_session_binding", resource: "session", action: map[string]any{"action": "get"}},
	}
	later := []profileWordsStep{
		{name: "not bound, decks exist", tool: "get_bound_deck", resource: "deck", action: map[string]any{"action": "get"}},
		{name: "bind then a playbook off the deck", tool: "get_playbook", args: map[string]any{"playbook_id": "pb_other_release"},
			resource: "playbook", action: map[string]any{"action": "get", "id": "pb_other_release"}},
		{name: "a tool the service lacks", tool: "call_service_tool",
			args:     map[string]any{"serviceId": "dev-peer", "toolName": "no_such_tool"},
			resource: "service", action: map[string]any{"action": "call", "id": "dev-peer", "fields": map[string]any{"toolName": "no_such_tool"}}},
		{name: "a cursor from nowhere", tool: "get_bound_deck", args: map[string]any{"cursor": "garbage"},
			resource: "deck", action: map[string]any{"action": "get", "fields": map[string]any{"cursor": "garbage"}}},
		{name: "link an unknown card", tool: "manage_deck_card", writes: true,
			args:     map[string]any{"action": "link", "card_type": "service", "card_id": "ghost"},
			resource: "deck", action: map[string]any{"action": "link", "fields": map[string]any{"card_type": "service", "card_id": "ghost"}}},
		{name: "disable tools of an unknown service", tool: "update_service_tool_settings", writes: true,
			args:     map[string]any{"service_id": "ghost", "disabled_tools": []string{"x"}},
			resource: "service", action: map[string]any{"action": "disable_tools", "id": "ghost", "fields": map[string]any{"disabled_tools": []string{"x"}}}},
	}
	run := func(t *testing.T, steps []profileWordsStep, bind bool) {
		for _, sess := range sessions {
			have := mcptools.ToolNames(mcptools.Profile(sess.profile), sess.readOnly)
			if bind {
				bindFor(t, sess.profile, sess.conn, "dev")
			}
			for _, st := range steps {
				if st.writes && sess.readOnly {
					continue
				}
				name, args := st.tool, st.args
				if sess.profile == "resource" {
					name, args = st.resource, st.action
				}
				if !slices.Contains(have, name) {
					continue
				}
				text := mcpText(sess.conn.call(name, args))
				if bad := foreignTools(text, have); len(bad) > 0 {
					t.Errorf("%s (profile %s, read-only %v): names %v, which this session cannot call:\n%s",
						st.name, sess.profile, sess.readOnly, bad, text)
				}
				if sess.profile == "resource" && strings.Contains(text, "bind") && !strings.Contains(text, "session action bind") &&
					strings.Contains(st.name, "not bound") {
					t.Errorf("%s (resource): does not teach session action bind:\n%s", st.name, text)
				}
			}
		}
	}
	t.Run("every profile's hints name its own tools, before any deck exists", func(t *testing.T) { run(t, steps, false) })
	peer := startHTTPPeer(t)
	s.seedDeck(t, "dev", peer)
	s.seedDeck(t, "other", peer)
	t.Run("every profile's hints name its own tools", func(t *testing.T) {
		run(t, later[:1], false)
		run(t, later[1:], true)
	})
}

// bindFor binds a session to deck the way its profile does.
func bindFor(t *testing.T, profile string, c *mcpConn, deck string) {
	t.Helper()
	if profile == "resource" {
		c.ok("session", map[string]any{"action": "bind", "id": deck, "fields": map[string]any{"workspaceRoot": "/w/" + deck}}, nil)
		return
	}
	c.ok("bind_workspace", map[string]any{"workspaceRoot": "/w/" + deck, "deckId": deck}, nil)
}

// foreignTools lists the canonical tool names in text that are not among have.
func foreignTools(text string, have []string) []string {
	var out []string
	for _, name := range mcptools.CanonicalToolNames(mcptools.ProfileLegacy) {
		if !slices.Contains(have, name) && regexp.MustCompile(`\b`+name+`\b`).MatchString(text) {
			out = append(out, name)
		}
	}
	return out
}
