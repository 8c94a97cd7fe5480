package tests

import (
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"

	"github.com/agent-deck/agent-deck/backend"
	"github.com/agent-deck/agent-deck/cli"
)

// capturedTraceparent calls the peer's capture tool through the deck and returns the
// traceparent header the peer received ("" when none).
func capturedTraceparent(t *testing.T, c *mcpConn, serviceID string) string {
	t.Helper()
	res := c.call("call_service_tool", map[string]any{"serviceId": serviceID, "toolName": "capture", "arguments": map[string]any{}})
	var got struct {
		Headers map[string][]string `json:"headers"`
	}
	if err := json.Unmarshal([]byte(mcpText(res)), &got); err != nil {
		t.Fatalf("capture: %v: %s", err, mcpText(res))
	}
	return strings.Join(got.Headers["Traceparent"], ",")
}

// waitSpans polls the recorder until a span named name has ended.
func waitSpans(t *testing.T, rec *tracetest.SpanRecorder, names ...string) map[string]sdktrace.ReadOnlySpan {
	t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for {
		byName := map[string]sdktrace.ReadOnlySpan{}
		for _, s := range rec.Ended() {
			byName[s.Name()] = s // the last one of each name
		}
		missing := false
		for _, n := range names {
			missing = missing || byName[n] == nil
		}
		if !missing {
			return byName
		}
		if time.Now().After(deadline) {
			t.Fatalf("spans %v not all ended; have %v", names, mapsKeysSpans(byName))
		}
		time.Sleep(20 * time.Millisecond)
	}
}

func mapsKeysSpans(m map[string]sdktrace.ReadOnlySpan) []string {
	var ks []string
	for k := range m {
		ks = append(ks, k)
	}
	return ks
}

// TestAuditTracing: an MCP request, the service call inside it and the downstream request are
// one span tree; the caller's trace continues, and the remote downstream gets the trace
// context (traceparent) of its request span.
func TestAuditTracing(t *testing.T) {
	rec := tracetest.NewSpanRecorder()
	tp := sdktrace.NewTracerProvider(sdktrace.WithSpanProcessor(rec))
	s := startMCPStack(t, mcpStackOptions{Serve: func(c *cli.ServeConfig) { c.TracerProvider = tp }})
	f := s.seedDeck(t, "dev", startHTTPPeer(t))
	const callerTrace, callerSpan = "4bf92f3577b34da6a3ce929d0e0e4736", "00f067aa0ba902b7"
	c := s.connect(t, s.token(backend.ScopeAgent), map[string]string{"traceparent": "00-" + callerTrace + "-" + callerSpan + "-01"}, "")
	c.ok("bind_workspace", map[string]any{"workspaceRoot": "/t", "deckId": "dev"}, nil)

	got := capturedTraceparent(t, c, f.Service.ID)
	spans := waitSpans(t, rec, "POST /mcp", "tools/call call_service_tool", "downstream tools/call")
	req, call, down := spans["POST /mcp"], spans["tools/call call_service_tool"], spans["downstream tools/call"]
	// The last POST /mcp span may be a later request (notifications): find the call's parent.
	for _, sp := range rec.Ended() {
		if sp.SpanContext().SpanID() == call.Parent().SpanID() {
			req = sp
		}
	}
	checks := []struct {
		name string
		ok   bool
	}{
		{"the request continues the caller's trace", req.SpanContext().TraceID().String() == callerTrace &&
			req.Parent().SpanID().String() == callerSpan},
		{"the request span is the service call's parent", call.Parent().SpanID() == req.SpanContext().SpanID() && req.Name() == "POST /mcp"},
		{"the service call is the downstream request's parent", down.Parent().SpanID() == call.SpanContext().SpanID()},
		{"one trace", call.SpanContext().TraceID() == req.SpanContext().TraceID() && down.SpanContext().TraceID() == req.SpanContext().TraceID()},
		{"the downstream got the trace context of its request span", got == "00-"+callerTrace+"-"+down.SpanContext().SpanID().String()+"-01"},
	}
	for _, ck := range checks {
		if !ck.ok {
			t.Errorf("%s: traceparent %q; spans request %v (parent %v), call %v (parent %v), downstream %v (parent %v)", ck.name, got,
				req.SpanContext().SpanID(), req.Parent().SpanID(), call.SpanContext().SpanID(), call.Parent().SpanID(),
				down.SpanContext().SpanID(), down.Parent().SpanID())
		}
	}
}

// TestAuditTracingOff: without OTEL_EXPORTER_OTLP_ENDPOINT nothing is traced and no trace
// context leaves the deck; with it, spans are exported over OTLP/HTTP.
func TestAuditTracingOff(t *testing.T) {
	peer := startHTTPPeer(t)
	t.Run("off", func(t *testing.T) {
		s := startMCPStack(t, mcpStackOptions{})
		f := s.seedDeck(t, "dev", peer)
		c := s.connect(t, s.token(backend.ScopeAgent), nil, "")
		c.ok("bind_workspace", map[string]any{"workspaceRoot": "/t", "deckId": "dev"}, nil)
		if got := capturedTraceparent(t, c, f.Service.ID); got != "" {
			t.Errorf("tracing is off, yet the downstream got traceparent %q", got)
		}
	})
	t.Run("exported over OTLP", func(t *testing.T) {
		var posts atomic.Int64
		collector := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if r.URL.Path == "/v1/traces" && r.Method == http.MethodPost {
				if b, _ := io.ReadAll(r.Body); len(b) > 0 {
					posts.Add(1)
				}
			}
			w.WriteHeader(http.StatusOK)
		}))
		defer collector.Close()
		t.Setenv("OTEL_EXPORTER_OTLP_ENDPOINT", collector.URL)
		s := startMCPStack(t, mcpStackOptions{})
		f := s.seedDeck(t, "dev", peer)
		c := s.connect(t, s.token(backend.ScopeAgent), nil, "")
		c.ok("bind_workspace", map[string]any{"workspaceRoot": "/t", "deckId": "dev"}, nil)
		if got := capturedTraceparent(t, c, f.Service.ID); got == "" {
			t.Error("tracing is on, yet the downstream got no traceparent")
		}
		s.stop() // flushes the exporter
		if posts.Load() == 0 {
			t.Error("no spans reached the OTLP collector")
		}
	})
}
