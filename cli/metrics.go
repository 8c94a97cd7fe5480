package cli

import (
	"net/http"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/prometheus/client_golang/prometheus/promhttp"

	"github.com/agent-deck/agent-deck/backend"
	"github.com/agent-deck/agent-deck/backend/audit"
	"github.com/agent-deck/agent-deck/proxy"
)

// metrics counts what crosses the one port: requests per surface and status, and their latency.
// Paths are reduced to their surface (mcp, api, health) so ids never become label values.
type metrics struct {
	registry *prometheus.Registry
	requests *prometheus.CounterVec
	latency  *prometheus.HistogramVec
	// Proxied tool calls, by service name and tool name (enabled tools only, else "other"); the
	// counts also by the person the call acted for.
	toolCalls    *prometheus.CounterVec
	toolErrors   *prometheus.CounterVec
	toolDuration *prometheus.HistogramVec
	// Local server starts and crashes and spilled results, by service name (proxy.Events).
	localStarts  *prometheus.CounterVec
	localCrashes *prometheus.CounterVec
	spills       *prometheus.CounterVec
	toolsChanged *prometheus.CounterVec
}

func newMetrics() *metrics {
	m := &metrics{
		registry: prometheus.NewRegistry(),
		requests: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "agent_deck_http_requests_total",
			Help: "HTTP requests served, by surface (mcp, api, health, other), method and status (other for methods and statuses outside the known set).",
		}, []string{"surface", "method", "status"}),
		latency: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Name:    "agent_deck_http_request_duration_seconds",
			Help:    "Time to serve an HTTP request, by surface; GET /mcp event streams are left out (they last as long as a session listens).",
			Buckets: []float64{.0005, .001, .0025, .005, .01, .025, .05, .1, .25, .5, 1, 2.5, 5, 10, 30},
		}, []string{"surface"}),
	}
	m.toolCalls = prometheus.NewCounterVec(prometheus.CounterOpts{
		Name: "agent_deck_tool_calls_total",
		Help: "Proxied tool calls (REST and MCP), by service, tool, outcome (ok, is_error, error) and the person the call acted for (none for a token of no person); unknown services and tools count as other.",
	}, []string{"service", "tool", "outcome", "person"})
	m.toolErrors = prometheus.NewCounterVec(prometheus.CounterOpts{
		Name: "agent_deck_tool_call_errors_total",
		Help: "Proxied tool calls that failed with an Agent Deck error code, by service, tool, code and person.",
	}, []string{"service", "tool", "code", "person"})
	m.toolDuration = prometheus.NewHistogramVec(prometheus.HistogramOpts{
		Name:    "agent_deck_tool_call_duration_seconds",
		Help:    "Time from a proxied tool call's arrival to its answer, by service and tool (not by person: the counts are, and buckets per person would multiply the series).",
		Buckets: []float64{.001, .0025, .005, .01, .025, .05, .1, .25, .5, 1, 2.5, 5, 10, 30, 60},
	}, []string{"service", "tool"})
	m.registry.MustRegister(m.toolCalls, m.toolErrors, m.toolDuration)
	m.localStarts = newServiceCounter("agent_deck_local_server_starts_total", "Local MCP server processes started, by service.")
	m.localCrashes = newServiceCounter("agent_deck_local_server_crashes_total", "Local MCP server processes that exited without the deck stopping them, by service.")
	m.toolsChanged = newServiceCounter("agent_deck_downstream_tool_list_changes_total", "notifications/tools/list_changed announced by downstream servers, by service: each makes the next call read the tool list again.")
	m.spills = newServiceCounter("agent_deck_results_spilled_total", "Tool results too large to return inline, written to <home>/tool-results, by service.")
	bi := ReadBuildInfo()
	build := prometheus.NewGauge(prometheus.GaugeOpts{
		Name: "agent_deck_build_info", Help: "Always 1; the labels say which build is running (as `agent-deck version`).",
		ConstLabels: prometheus.Labels{"version": bi.Version, "revision": bi.Revision, "go_version": bi.GoVersion},
	})
	build.Set(1)
	m.registry.MustRegister(m.localStarts, m.localCrashes, m.spills, m.toolsChanged, build)
	m.registry.MustRegister(m.requests, m.latency,
		collectors.NewGoCollector(), collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}))
	return m
}

func newServiceCounter(name, help string) *prometheus.CounterVec {
	return prometheus.NewCounterVec(prometheus.CounterOpts{Name: name, Help: help}, []string{"service"})
}

// proxyEvents feeds the proxy's counters.
func (m *metrics) proxyEvents() proxy.Events {
	return proxy.Events{
		LocalStarted:  func(service string) { m.localStarts.WithLabelValues(service).Inc() },
		LocalCrashed:  func(service string) { m.localCrashes.WithLabelValues(service).Inc() },
		ResultSpilled: func(service string) { m.spills.WithLabelValues(service).Inc() },
		ToolsChanged:  func(service string) { m.toolsChanged.WithLabelValues(service).Inc() },
	}
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
		m.requests.WithLabelValues(surface, methodLabel(r.Method), statusLabel(rec.status)).Inc()
		if surface == "mcp" && r.Method == http.MethodGet {
			return // a session's event stream, held as long as the client listens: not a latency
		}
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

// Every label value comes from a fixed set, so no client can grow the number of series: a
// method or status outside the set is counted as "other".
var (
	methodLabels = []string{http.MethodGet, http.MethodPost, http.MethodPut, http.MethodPatch,
		http.MethodDelete, http.MethodHead, http.MethodOptions}
	statusLabels = []int{200, 201, 202, 204, 206, 301, 302, 304, 400, 401, 403, 404, 405, 406, 409,
		413, 415, 422, 429, backend.StatusClientClosedRequest, 500, 501, 502, 503, 504}
)

func methodLabel(m string) string {
	if slices.Contains(methodLabels, m) {
		return m
	}
	return "other"
}

func statusLabel(code int) string {
	if slices.Contains(statusLabels, code) {
		return strconv.Itoa(code)
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

// toolCallSink hands every finished tool call to the metrics and the audit log; neither blocks.
type toolCallSink struct {
	audit   *audit.Log
	metrics *metrics
}

func (k toolCallSink) RecordToolCall(tc backend.ToolCall) {
	k.metrics.observeToolCall(tc)
	k.audit.RecordToolCall(tc)
}

// observeToolCall counts a call. Labels stay bounded: a service is named only once resolved,
// a tool only when it is an enabled tool of that service, codes come from backend's table, and a
// person is one an admin added (people are few; a caller cannot name one).
func (m *metrics) observeToolCall(tc backend.ToolCall) {
	person := tc.Person
	if person == "" {
		person = "none"
	}
	service, tool := "other", "other"
	if tc.ServiceID != "" {
		service = tc.ServiceName
		if tc.KnownTool {
			tool = tc.Tool
		}
	}
	m.toolCalls.WithLabelValues(service, tool, string(tc.Outcome), person).Inc()
	if tc.ErrorCode != "" {
		m.toolErrors.WithLabelValues(service, tool, codeLabel(tc.ErrorCode), person).Inc()
	}
	m.toolDuration.WithLabelValues(service, tool).Observe(tc.Duration.Seconds())
}

func codeLabel(c backend.Code) string {
	if slices.Contains(backend.AllCodes, c) {
		return string(c)
	}
	return "other"
}
