package cli

import (
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/prometheus/client_golang/prometheus/promhttp"
)

// metrics counts what crosses the one port: requests per surface and status, and their latency.
// Paths are reduced to their surface (mcp, api, health) so ids never become label values.
type metrics struct {
	registry *prometheus.Registry
	requests *prometheus.CounterVec
	latency  *prometheus.HistogramVec
}

func newMetrics() *metrics {
	m := &metrics{
		registry: prometheus.NewRegistry(),
		requests: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "agent_deck_http_requests_total",
			Help: "HTTP requests served, by surface (mcp, api, health, other), method and status.",
		}, []string{"surface", "method", "status"}),
		latency: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Name:    "agent_deck_http_request_duration_seconds",
			Help:    "Time to serve an HTTP request, by surface.",
			Buckets: []float64{.0005, .001, .0025, .005, .01, .025, .05, .1, .25, .5, 1, 2.5, 5, 10, 30},
		}, []string{"surface"}),
	}
	m.registry.MustRegister(m.requests, m.latency,
		collectors.NewGoCollector(), collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}))
	return m
}

// handler serves the registry in the Prometheus text format.
func (m *metrics) handler() http.Handler {
	return promhttp.HandlerFor(m.registry, promhttp.HandlerOpts{})
}

// wrap records every request that passes through next.
func (m *metrics) wrap(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		start := time.Now()
		rec := &statusRecorder{ResponseWriter: w, status: http.StatusOK}
		next.ServeHTTP(rec, r)
		surface := surfaceOf(r.URL.Path)
		m.requests.WithLabelValues(surface, r.Method, strconv.Itoa(rec.status)).Inc()
		m.latency.WithLabelValues(surface).Observe(time.Since(start).Seconds())
	})
}

func surfaceOf(path string) string {
	switch {
	case path == "/mcp" || strings.HasPrefix(path, "/mcp/"):
		return "mcp"
	case strings.HasPrefix(path, "/api/"):
		return "api"
	case path == "/healthz" || path == "/readyz":
		return "health"
	}
	return "other"
}

// statusRecorder remembers the status code; Flush and Unwrap keep streaming responses working.
type statusRecorder struct {
	http.ResponseWriter
	status int
}

func (r *statusRecorder) WriteHeader(code int) {
	r.status = code
	r.ResponseWriter.WriteHeader(code)
}

func (r *statusRecorder) Flush() {
	if f, ok := r.ResponseWriter.(http.Flusher); ok {
		f.Flush()
	}
}

func (r *statusRecorder) Unwrap() http.ResponseWriter { return r.ResponseWriter }
