package mcptools

import (
	"context"

	"github.com/mark3labs/mcp-go/mcp"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/trace"
	"go.opentelemetry.io/otel/trace/noop"
)

func newTracer(p trace.TracerProvider) trace.Tracer {
	if p == nil {
		p = noop.NewTracerProvider()
	}
	return p.Tracer("github.com/agent-deck/agent-deck/mcptools")
}

// toolSpan starts the span of one tool call (call_service_tool's is the service call; the
// proxy's downstream request is its child); end marks an isError result and closes it.
func (h *Handler) toolSpan(ctx context.Context, tool string) (context.Context, func(*mcp.CallToolResult)) {
	if !h.tracing {
		return ctx, endNoSpan // no span to start: not even a no-op one, on every call
	}
	// No session id: with a token it resumes the session, so it stays out of exported spans.
	ctx, span := h.tracer.Start(ctx, "tools/call "+tool, trace.WithAttributes(
		attribute.String("mcp.method.name", "tools/call"), attribute.String("gen_ai.tool.name", tool)))
	return ctx, func(res *mcp.CallToolResult) {
		if res == nil || res.IsError {
			span.SetStatus(codes.Error, "isError")
		}
		span.End()
	}
}

func endNoSpan(*mcp.CallToolResult) {}
