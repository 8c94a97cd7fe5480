package cli

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	collectortrace "go.opentelemetry.io/proto/otlp/collector/trace/v1"
	"google.golang.org/protobuf/proto"
)

// TestTracingHonoursOTELResourceVariables exports one span to a real OTLP/HTTP endpoint and reads
// the resource it arrived with: agent-deck by default, and what OTEL_SERVICE_NAME and
// OTEL_RESOURCE_ATTRIBUTES say when they are set, so replicas can be told apart.
func TestTracingHonoursOTELResourceVariables(t *testing.T) {
	cases := []struct {
		name        string
		serviceName string // OTEL_SERVICE_NAME
		attributes  string // OTEL_RESOURCE_ATTRIBUTES
		want        map[string]string
	}{
		{name: "default", want: map[string]string{"service.name": "agent-deck"}},
		{name: "service name", serviceName: "agent-deck-b",
			want: map[string]string{"service.name": "agent-deck-b"}},
		{name: "resource attributes", attributes: "service.instance.id=replica-2,deployment.environment=staging",
			want: map[string]string{"service.name": "agent-deck", "service.instance.id": "replica-2",
				"deployment.environment": "staging"}},
		{name: "attributes name a service", attributes: "service.name=from-attributes",
			want: map[string]string{"service.name": "from-attributes"}},
		{name: "service name wins over attributes", serviceName: "from-name", attributes: "service.name=from-attributes",
			want: map[string]string{"service.name": "from-name"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			got := make(chan map[string]string, 1)
			collector := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				body, _ := io.ReadAll(r.Body)
				var req collectortrace.ExportTraceServiceRequest
				if err := proto.Unmarshal(body, &req); err != nil || len(req.ResourceSpans) == 0 {
					http.Error(w, "not an OTLP trace export", http.StatusBadRequest)
					return
				}
				attrs := map[string]string{}
				for _, kv := range req.ResourceSpans[0].GetResource().GetAttributes() {
					attrs[kv.Key] = kv.GetValue().GetStringValue()
				}
				select {
				case got <- attrs:
				default:
				}
				w.Header().Set("Content-Type", "application/x-protobuf")
				_, _ = w.Write(nil)
			}))
			defer collector.Close()
			t.Setenv("OTEL_EXPORTER_OTLP_ENDPOINT", collector.URL)
			t.Setenv("OTEL_SERVICE_NAME", tc.serviceName)
			t.Setenv("OTEL_RESOURCE_ATTRIBUTES", tc.attributes)

			ctx := context.Background()
			tr, stop, err := newTracing(ctx, nil)
			if err != nil {
				t.Fatalf("newTracing: %v", err)
			}
			_, span := tr.provider.Tracer("test").Start(ctx, "one span")
			span.End()
			if err := stop(ctx); err != nil {
				t.Fatalf("flushing the span: %v", err)
			}
			attrs := <-got
			if attrs["service.version"] == "" || attrs["telemetry.sdk.name"] != "opentelemetry" || attrs["host.name"] == "" {
				t.Errorf("resource lacks the build's version, the SDK or the host: %v", attrs)
			}
			for _, key := range []string{"service.version", "host.name", "telemetry.sdk.name",
				"telemetry.sdk.language", "telemetry.sdk.version"} {
				delete(attrs, key)
			}
			if diff := cmp.Diff(tc.want, attrs); diff != "" {
				t.Errorf("resource attributes (-want +got):\n%s", diff)
			}
		})
	}
}

// TestTracingRefusesMalformedResourceAttributes: a typo in OTEL_RESOURCE_ATTRIBUTES stops serve
// with the variable's name rather than sending spans under a half-read resource.
func TestTracingRefusesMalformedResourceAttributes(t *testing.T) {
	t.Setenv("OTEL_EXPORTER_OTLP_ENDPOINT", "http://127.0.0.1:9")
	t.Setenv("OTEL_RESOURCE_ATTRIBUTES", "service.instance.id")
	_, _, err := newTracing(context.Background(), nil)
	if err == nil || !strings.Contains(err.Error(), "OTEL_RESOURCE_ATTRIBUTES") {
		t.Errorf("newTracing with a malformed OTEL_RESOURCE_ATTRIBUTES: %v, want an error naming the variable", err)
	}
}
