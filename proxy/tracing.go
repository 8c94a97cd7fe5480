package proxy

import (
	"context"
	"net/http"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/propagation"
	"go.opentelemetry.io/otel/trace"
	"go.opentelemetry.io/otel/trace/noop"

	"github.com/agent-deck/agent-deck/backend"
)

// tracer is the proxy's tracer: Options.Tracing's provider, or one that records nothing.
func (p *Proxy) tracer() trace.Tracer {
	if p.opts.Tracing.Provider == nil {
		return noop.NewTracerProvider().Tracer("")
	}
	return p.opts.Tracing.Provider.Tracer("github.com/agent-deck/agent-deck/proxy")
}

// Tracing configures OpenTelemetry; the zero value traces nothing and propagates nothing.
type Tracing struct {
	// Provider makes the downstream request spans.
	Provider trace.TracerProvider
	// Propagator writes the trace context (traceparent) into requests to remote servers.
	Propagator propagation.TextMapPropagator
}

// downstreamSpan starts the client span of one request to a downstream server; end records
// its error and closes it.
func (p *Proxy) downstreamSpan(ctx context.Context, t backend.Target, method, tool string) (context.Context, func(error)) {
	if p.opts.Tracing.Provider == nil && p.opts.Tracing.Propagator == nil {
		// Tracing off: a span of the no-op tracer records nothing and nothing propagates it,
		// so its options, attributes and context are not built on every call.
		return ctx, endNoSpan
	}
	ctx, span := p.tracer().Start(ctx, "downstream "+method, trace.WithSpanKind(trace.SpanKindClient),
		trace.WithAttributes(attribute.String("agent_deck.service", t.ServiceName),
			attribute.String("mcp.method.name", method), attribute.String("gen_ai.tool.name", tool)))
	return ctx, func(err error) {
		if err != nil {
			span.SetStatus(codes.Error, string(backend.ErrorCode(err)))
		}
		span.End()
	}
}

func endNoSpan(error) {}

// withTraceContext returns req carrying the trace context of its own context, as a copy: a
// RoundTripper must not change the request it was given.
func withTraceContext(prop propagation.TextMapPropagator, req *http.Request) *http.Request {
	if prop == nil || !trace.SpanContextFromContext(req.Context()).IsValid() {
		return req
	}
	out := req.Clone(req.Context())
	prop.Inject(req.Context(), propagation.HeaderCarrier(out.Header))
	return out
}
