package proxy_test

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/agent-deck/agent-deck/backend"
	"github.com/agent-deck/agent-deck/tests/peertest"
	"github.com/google/go-cmp/cmp"
)

// TestTransports lists and calls tools over every transport, end to end against the peer.
func TestTransports(t *testing.T) {
	httpPeer := peertest.Start(t, "http")
	ssePeer := peertest.Start(t, "sse")
	local, _ := localTarget(t)
	cases := []struct {
		name   string
		target backend.Target
	}{
		{"stdio", local},
		{"streamable_http", remoteTarget(httpPeer.URL, backend.TransportStreamableHTTP)},
		{"auto over streamable_http", remoteTarget(httpPeer.URL, backend.TransportAuto)},
		{"sse", remoteTarget(ssePeer.URL, backend.TransportSSE)},
		{"auto falls back to sse", remoteTarget(ssePeer.URL, backend.TransportAuto)},
	}
	p, logs := newProxy(t, proxyOptions{}.opts())
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			tools, err := p.ListTools(context.Background(), tc.target)
			if err != nil {
				t.Fatalf("list tools: %v", err)
			}
			byName := map[string]backend.DownstreamTool{}
			for _, tool := range tools {
				byName[tool.Name] = tool
			}
			echo, ok := byName["echo"]
			if !ok {
				t.Fatalf("echo missing from %d tools", len(tools))
			}
			// The raw schema keeps keys a typed decode would drop.
			if !strings.Contains(string(echo.InputSchema), `"x-peer-extension":{"kept":true}`) {
				t.Errorf("echo schema lost its extension: %s", echo.InputSchema)
			}
			if !echo.ReadOnly || !echo.Enabled || byName["write_note"].ReadOnly || !byName["read_config"].ReadOnly {
				t.Errorf("annotations misread: echo=%+v write_note=%+v", echo, byName["write_note"])
			}

			res, raw := call(t, p, tc.target, "echo", map[string]any{"message": "hi", "count": 2})
			if diff := cmp.Diff(`{"count":2,"message":"hi"}`, string(res.StructuredContent)); diff != "" {
				t.Errorf("structured content (-want +got):\n%s", diff)
			}
			if strings.Contains(string(raw.Raw), "_meta") {
				t.Errorf("downstream _meta not removed: %s", raw.Raw)
			}
			if raw.IsError {
				t.Errorf("echo reported isError")
			}

			fail, raw := call(t, p, tc.target, "fail", map[string]any{"message": "nope"})
			if !fail.IsError || !raw.IsError || fail.Content[0].Text != "nope" {
				t.Errorf("fail result = %+v (isError %v)", fail, raw.IsError)
			}

			bin, _ := call(t, p, tc.target, "binary", nil)
			if len(bin.Content) != 1 || bin.Content[0].Type != "image" || bin.Content[0].MimeType != "image/png" {
				t.Errorf("binary result = %+v", bin)
			}

			st, ok := p.Status(tc.target.ServiceID)
			if !ok || st.Health.Status != backend.HealthHealthy || st.Health.LastSuccessAt == nil || len(st.Tools) != len(tools) {
				t.Errorf("status = %+v, %v", st.Health, ok)
			}
		})
	}
	if !strings.Contains(logs.String(), "trying SSE") {
		t.Errorf("auto against an SSE-only server did not fall back to SSE; logs:\n%s", logs)
	}
}

// TestArgumentsAsJSONString accepts arguments given as a JSON string holding an object.
func TestArgumentsAsJSONString(t *testing.T) {
	p, _ := newProxy(t, proxyOptions{}.opts())
	tg, _ := localTarget(t)
	inner, _ := json.Marshal(`{"message":"from a string"}`)
	res, _ := call(t, p, tg, "echo", json.RawMessage(inner))
	if got := string(res.StructuredContent); got != `{"message":"from a string"}` {
		t.Errorf("structured content = %s", got)
	}
}

// TestNoSSEFallback: under auto, failures SSE would not fix are reported as they are, without
// trying SSE: an auth refusal, a server error, a closed port.
func TestNoSSEFallback(t *testing.T) {
	status := func(code int) string {
		srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
			http.Error(w, "no", code)
		}))
		t.Cleanup(srv.Close)
		return srv.URL + "/mcp"
	}
	closed := httptest.NewServer(http.NotFoundHandler())
	closedURL := closed.URL + "/mcp"
	closed.Close()
	cases := []struct {
		name string
		url  string
		code backend.Code
	}{
		{"401", status(http.StatusUnauthorized), backend.CodeDownstreamAuth},
		{"403", status(http.StatusForbidden), backend.CodeDownstreamAuth},
		{"500", status(http.StatusInternalServerError), backend.CodeDownstreamError},
		{"closed port", closedURL, backend.CodeDownstreamUnreachable},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			p, logs := newProxy(t, proxyOptions{}.opts())
			_, err := p.ListTools(context.Background(), remoteTarget(tc.url, backend.TransportAuto))
			be := wantCode(t, err, tc.code)
			if be.Details["phase"] != "connect" {
				t.Errorf("details = %v", be.Details)
			}
			if strings.Contains(logs.String(), "trying SSE") {
				t.Errorf("fell back to SSE")
			}
		})
	}
}
