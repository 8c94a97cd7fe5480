package tests

import (
	"bytes"
	"encoding/json"
	"net/http"
	"slices"
	"strings"
	"testing"

	"github.com/agent-deck/agent-deck/backend"
	"github.com/agent-deck/agent-deck/backend/core"
)

// TestRESTProxyRoutes drives the service tool routes of the REST API against the real proxy
// and the Go test peer: listing raw tools, tool settings, calls and their failures, and checks.
func TestRESTProxyRoutes(t *testing.T) {
	d := startRESTDeck(t)
	peer := startHTTPPeer(t)
	d.api.Must(t, http.StatusCreated, "POST", "/api/v1/services",
		map[string]any{"name": "peer", "type": "mcp", "url": peer}, nil)
	d.api.Must(t, http.StatusCreated, "POST", "/api/v1/services",
		map[string]any{"name": "down", "type": "mcp", "url": "http://127.0.0.1:1/mcp", "transport": "streamable_http"}, nil)
	d.api.Must(t, http.StatusCreated, "POST", "/api/v1/services",
		map[string]any{"name": "slow", "type": "mcp", "url": peer, "timeout_seconds": 1}, nil)

	t.Run("tools are listed raw with enabled flags", func(t *testing.T) {
		var tools []core.ToolInfo
		d.api.Must(t, http.StatusOK, "GET", "/api/v1/services/peer/tools", nil, &tools)
		i := slices.IndexFunc(tools, func(ti core.ToolInfo) bool { return ti.Name == "echo" })
		if i < 0 || !tools[i].Enabled || !bytes.Contains(tools[i].Tool, []byte(`"x-peer-extension":{"kept":true}`)) {
			t.Fatalf("echo tool not listed raw: %+v", tools)
		}
	})
	t.Run("tool settings name existing tools", func(t *testing.T) {
		d.api.Must(t, http.StatusBadRequest, "PUT", "/api/v1/services/peer/tool-settings",
			map[string]any{"disabled_tools": []string{"big", "no_such_tool"}}, nil)
		var sc backend.ServiceCard
		d.api.Must(t, http.StatusOK, "PUT", "/api/v1/services/peer/tool-settings",
			map[string]any{"disabled_tools": []string{"big"}}, &sc)
		if !slices.Equal(sc.DisabledTools, []string{"big"}) {
			t.Errorf("disabled_tools = %v, want [big]", sc.DisabledTools)
		}
	})

	cases := []struct {
		name    string
		service string
		body    any
		status  int
		code    backend.Code
		inBody  string // substring of the answer
	}{
		{"echo", "peer", map[string]any{"tool_name": "echo", "arguments": map[string]any{"message": "hello"}}, 200, "", "hello"},
		{"arguments as a JSON string", "peer", map[string]any{"tool_name": "echo", "arguments": `{"message":"as string"}`}, 200, "", "as string"},
		{"tool failure passes through", "peer", map[string]any{"tool_name": "fail", "arguments": map[string]any{"message": "boom"}}, 200, "", `"isError":true`},
		{"disabled tool", "peer", map[string]any{"tool_name": "big", "arguments": map[string]any{"bytes": 1}}, 409, backend.CodeToolDisabled, "big"},
		{"unknown tool names the close ones", "peer", map[string]any{"tool_name": "ecko"}, 404, backend.CodeNotFound, "echo"},
		{"arguments checked against the schema", "peer", map[string]any{"tool_name": "echo", "arguments": map[string]any{"count": 1}}, 400, backend.CodeInvalidArgument, "message"},
		{"unreachable downstream", "down", map[string]any{"tool_name": "echo"}, 503, backend.CodeDownstreamUnreachable, ""},
		{"downstream timeout", "slow", map[string]any{"tool_name": "sleep", "arguments": map[string]any{"ms": 3000}}, 504, backend.CodeDownstreamTimeout, ""},
		{"unknown service", "nope", map[string]any{"tool_name": "echo"}, 404, backend.CodeNotFound, "peer"},
	}
	for _, tc := range cases {
		t.Run("call/"+tc.name, func(t *testing.T) {
			a := d.api.Do(t, d.srv.AdminToken(), "POST", "/api/v1/services/"+tc.service+"/call", tc.body)
			if a.Status != tc.status {
				t.Fatalf("status %d, want %d: %s", a.Status, tc.status, a.Body)
			}
			if code, _, _ := a.Err(); code != tc.code {
				t.Errorf("code %q, want %q: %s", code, tc.code, a.Body)
			}
			if !strings.Contains(string(a.Body), tc.inBody) {
				t.Errorf("answer lacks %q: %s", tc.inBody, a.Body)
			}
			if tc.status == 200 {
				var res map[string]json.RawMessage
				if err := json.Unmarshal(a.Body, &res); err != nil || res["content"] == nil || res["_meta"] != nil {
					t.Errorf("not a CallToolResult without _meta: %s", a.Body)
				}
			}
		})
	}

	t.Run("check", func(t *testing.T) {
		var h backend.Health
		d.api.Must(t, http.StatusOK, "POST", "/api/v1/services/peer/check", nil, &h)
		if h.Status != backend.HealthHealthy {
			t.Errorf("peer health %+v", h)
		}
		a := d.api.Do(t, d.srv.AdminToken(), "POST", "/api/v1/services/down/check", nil)
		if err := json.Unmarshal(a.Body, &h); a.Status == http.StatusOK && (err != nil || h.Status == backend.HealthHealthy) {
			t.Errorf("down service check: %d %s", a.Status, a.Body)
		}
	})
}

// TestRESTSecretsAcrossTheStack links a canary credential to a service that requires it, proves
// the secret reaches the downstream, and then that no REST answer and no log line holds it.
func TestRESTSecretsAcrossTheStack(t *testing.T) {
	d := startRESTDeck(t)
	canary := "CANARY-STACK-" + randHex(12)
	peer := startHTTPPeer(t, "PEER_REQUIRE_AUTHORIZATION=Bearer "+canary)
	d.api.Must(t, http.StatusCreated, "POST", "/api/v1/credentials",
		map[string]any{"label": "Peer key", "value": canary}, nil)
	d.api.Must(t, http.StatusCreated, "POST", "/api/v1/services", map[string]any{
		"name": "locked", "type": "mcp", "url": peer, "credential_id": "cred_peer_key",
		"headers": map[string]string{"X-Api-Key": canary}}, nil)
	d.api.Must(t, http.StatusCreated, "POST", "/api/v1/services",
		map[string]any{"name": "no-key", "type": "mcp", "url": peer, "transport": "streamable_http"}, nil)

	d.api.Must(t, http.StatusOK, "POST", "/api/v1/services/locked/call",
		map[string]any{"tool_name": "echo", "arguments": map[string]any{"message": "authorised"}}, nil)
	a := d.api.Do(t, d.srv.AdminToken(), "POST", "/api/v1/services/no-key/call", map[string]any{"tool_name": "echo",
		"arguments": map[string]any{"message": "x"}})
	if code, _, _ := a.Err(); a.Status != http.StatusServiceUnavailable || code != backend.CodeDownstreamAuth {
		t.Errorf("call without the credential: %d %s, want 503 DOWNSTREAM_AUTH", a.Status, a.Body)
	}
	for _, p := range []string{"/api/v1/services", "/api/v1/services/locked", "/api/v1/services/locked/tools",
		"/api/v1/credentials", "/api/v1/export"} {
		d.api.Must(t, http.StatusOK, "GET", p, nil, nil)
	}
	d.api.Must(t, http.StatusOK, "POST", "/api/v1/services/locked/check", nil, nil)
	for i, b := range d.api.Bodies() {
		if bytes.Contains(b, []byte(canary)) {
			t.Errorf("REST answer %d holds the secret: %s", i, b)
		}
	}
	if strings.Contains(d.logs.String(), canary) {
		t.Errorf("the server log holds the secret")
	}
}
