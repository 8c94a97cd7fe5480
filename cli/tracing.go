package cli

import (
	"context"
	"fmt"
	"net/http"
	"os"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/exporters/otlp/otlptrace/otlptracehttp"
	"go.opentelemetry.io/otel/propagation"
	"go.opentelemetry.io/otel/sdk/resource"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/trace"

	"github.com/agent-deck/agent-deck/proxy"
)

// tracing is OpenTelemetry as serve runs it: off (zero value) unless the standard
// OTEL_EXPORTER_OTLP_ENDPOINT (or OTEL_EXPORTER_OTLP_TRACES_ENDPOINT) is set, or an embedding
// passes its own provider (ServeConfig.TracerProvider, as the tests do).
type tracing struct {
	provider trace.TracerProvider
	prop     propagation.TextMapPropagator
}

// newTracing builds the provider; the OTLP exporter reads the other OTEL_* variables itself
// (headers, protocol details, timeouts). stop flushes and closes it.
func newTracing(ctx context.Context, given trace.TracerProvider) (tr tracing, stop func(context.Context) error, err error) {
	stop = func(context.Context) error { return nil }
	if given != nil {
		return tracing{provider: given, prop: propagation.TraceContext{}}, stop, nil
	}
	if os.Getenv("OTEL_EXPORTER_OTLP_ENDPOINT") == "" && os.Getenv("OTEL_EXPORTER_OTLP_TRACES_ENDPOINT") == "" {
		return tracing{}, stop, nil
	}
	res, err := tracingResource(ctx)
	if err != nil {
		return tracing{}, stop, err
	}
	exp, err := otlptracehttp.New(ctx)
	if err != nil {
		return tracing{}, stop, fmt.Errorf("OpenTelemetry exporter: %w", err)
	}
	p := sdktrace.NewTracerProvider(sdktrace.WithBatcher(exp), sdktrace.WithResource(res))
	return tracing{provider: p, prop: propagation.TraceContext{}}, p.Shutdown, nil
}

// tracingResource says which process the spans come from: service.name agent-deck and the
// build's version, the SDK's own attributes and the host name, then the standard
// OTEL_RESOURCE_ATTRIBUTES and OTEL_SERVICE_NAME, which win (later detectors override earlier
// ones), so replicas can be told apart by name or by any attribute an operator sets.
func tracingResource(ctx context.Context) (*resource.Resource, error) {
	res, err := resource.New(ctx,
		resource.WithTelemetrySDK(),
		resource.WithHost(),
		resource.WithAttributes(attribute.String("service.name", "agent-deck"),
			attribute.String("service.version", ReadBuildInfo().Version)),
		resource.WithFromEnv(),
	)
	if err != nil {
		return nil, fmt.Errorf("OpenTelemetry resource (OTEL_RESOURCE_ATTRIBUTES, OTEL_SERVICE_NAME): %w", err)
	}
	return res, nil
}

func (t tracing) proxy() proxy.Tracing {
	return proxy.Tracing{Provider: t.provider, Propagator: t.prop}
}

func (t tracing) mcp() trace.TracerProvider { return t.provider }

// wrap makes a server span of every MCP and REST request, continuing the caller's trace when
// it sends a traceparent. Span names stay low-cardinality: the method and the surface.
func (t tracing) wrap(next http.Handler) http.Handler {
	if t.provider == nil {
		return next
	}
	tracer := t.provider.Tracer("github.com/agent-deck/agent-deck/cli")
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		surface := surfaceOf(r.URL.Path)
		if surface == "health" {
			next.ServeHTTP(w, r)
			return
		}
		route, ok := map[string]string{"mcp": "/mcp", "api": "/api/v1"}[surface]
		if !ok {
			route = "other"
		}
		name := methodLabel(r.Method) + " " + route
		ctx := t.prop.Extract(r.Context(), propagation.HeaderCarrier(r.Header))
		ctx, span := tracer.Start(ctx, name, trace.WithSpanKind(trace.SpanKindServer), trace.WithAttributes(
			attribute.String("http.request.method", r.Method), attribute.String("url.path", r.URL.Path)))
		defer span.End()
		rec := &statusRecorder{ResponseWriter: w, status: http.StatusOK}
		next.ServeHTTP(rec, r.WithContext(ctx))
		span.SetAttributes(attribute.Int("http.response.status_code", rec.status))
		if rec.status >= 500 {
			span.SetStatus(codes.Error, http.StatusText(rec.status))
		}
	})
}
