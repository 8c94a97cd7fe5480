package tests

import (
	"context"
	"fmt"
	"net/http"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/agent-deck/agent-deck/backend"
	"github.com/agent-deck/agent-deck/backend/core"
	"github.com/agent-deck/agent-deck/cli"
	"github.com/agent-deck/agent-deck/tests/peertest"
)

// scrape reads /metrics as admin.
func scrape(t *testing.T, s *mcpStack) string {
	t.Helper()
	a := s.api().Do(t, s.AdminToken, "GET", "/metrics", nil)
	if a.Status != http.StatusOK {
		t.Fatalf("GET /metrics: %d %s", a.Status, a.Body)
	}
	return string(a.Body)
}

// metricValue returns the value of the series named exactly series (name{labels}), or -1.
func metricValue(text, series string) float64 {
	for _, line := range strings.Split(text, "\n") {
		if rest, ok := strings.CutPrefix(line, series+" "); ok {
			v, err := strconv.ParseFloat(strings.TrimSpace(rest), 64)
			if err == nil {
				return v
			}
		}
	}
	return -1
}

// waitMetric polls /metrics until series reaches at least min: it waits for the event the
// series counts, however long a loaded machine takes to get there, and gives up only shortly
// before the test binary's own deadline (issue 27 item 20: a fixed 20 s read a slow event as a
// missing one).
func waitMetric(t *testing.T, s *mcpStack, series string, min float64) string {
	t.Helper()
	deadline := time.Now().Add(10 * time.Minute)
	if d, ok := t.Deadline(); ok {
		deadline = d.Add(-30 * time.Second)
	}
	for {
		text := scrape(t, s)
		if metricValue(text, series) >= min {
			return text
		}
		if time.Now().After(deadline) {
			t.Fatalf("%s never reached %v:\n%s", series, min, grepLines(text, "agent_deck_"))
		}
		time.Sleep(50 * time.Millisecond)
	}
}

func grepLines(text, prefix string) string {
	var out []string
	for _, l := range strings.Split(text, "\n") {
		if strings.HasPrefix(l, prefix) {
			out = append(out, l)
		}
	}
	return strings.Join(out, "\n")
}

// TestAuditMetrics: /metrics answers the questions an operator asks: calls, errors and latency
// per service and tool, live sessions per profile, downstream health, local server starts and
// crashes, spilled results, the database pool and the build; and the HTTP latency histogram
// leaves out held event streams.
func TestAuditMetrics(t *testing.T) {
	s := startMCPStack(t, mcpStackOptions{Serve: func(c *cli.ServeConfig) { c.ResultCap = 1024 }})
	peer := startHTTPPeer(t)
	f := s.seedDeck(t, "dev", peer)
	ctx := s.adminCtx()
	_, err := s.svc.CreateService(ctx, core.ServiceInput{Name: "local", Type: backend.ServiceLocal,
		LocalCommand: peertest.Build(t), LocalArgs: []string{"-transport", "stdio"}})
	must(t, err)

	agent := s.token(backend.ScopeAgent)
	c := s.connect(t, agent, nil, "")
	c.ok("bind_workspace", map[string]any{"workspaceRoot": "/m", "deckId": "dev"}, nil)
	for _, call := range []struct {
		tool string
		args map[string]any
	}{
		{"echo", map[string]any{"message": "hi"}},
		{"echo", map[string]any{"message": "again"}},
		{"fail", map[string]any{"message": "boom"}},
		{"ecko", nil},
		{"big", map[string]any{"bytes": 4096}},
	} {
		c.call("call_service_tool", map[string]any{"serviceId": f.Service.ID, "toolName": call.tool, "arguments": call.args})
	}
	restCall := func(service, tool string) {
		s.api().Do(t, s.AdminToken, "POST", "/api/v1/services/"+service+"/call",
			map[string]any{"tool_name": tool, "arguments": map[string]any{}})
	}
	restCall("local", "pid")
	restCall("local", "crash")
	restCall("nope", "made-up-tool")

	// An event stream held, then dropped, as a listening client does.
	sctx, cancel := context.WithCancel(context.Background())
	req, _ := http.NewRequestWithContext(sctx, "GET", s.URL+"/mcp", nil)
	req.Header.Set("Authorization", "Bearer "+agent)
	req.Header.Set("Mcp-Session-Id", c.sessionID())
	req.Header.Set("Accept", "text/event-stream")
	if resp, err := http.DefaultClient.Do(req); err == nil {
		resp.Body.Close()
	}
	cancel()

	waitMetric(t, s, `agent_deck_local_server_crashes_total{service="local"}`, 1)
	text := waitMetric(t, s, `agent_deck_http_requests_total{method="GET",status="200",surface="mcp"}`, 1)
	bi := cli.ReadBuildInfo()
	series := map[string]float64{
		`agent_deck_tool_calls_total{outcome="ok",person="admin",service="dev-peer",tool="echo"}`:                         2,
		`agent_deck_tool_calls_total{outcome="is_error",person="admin",service="dev-peer",tool="fail"}`:                   1,
		`agent_deck_tool_calls_total{outcome="error",person="admin",service="dev-peer",tool="other"}`:                     1,
		`agent_deck_tool_calls_total{outcome="error",person="admin",service="other",tool="other"}`:                        1,
		`agent_deck_tool_call_errors_total{code="NOT_FOUND",person="admin",service="dev-peer",tool="other"}`:              1,
		`agent_deck_tool_call_duration_seconds_count{service="dev-peer",tool="echo"}`:                                     2,
		`agent_deck_tool_calls_total{outcome="ok",person="admin",service="local",tool="pid"}`:                             1,
		`agent_deck_local_server_starts_total{service="local"}`:                                                           1,
		`agent_deck_local_server_crashes_total{service="local"}`:                                                          1,
		`agent_deck_results_spilled_total{service="dev-peer"}`:                                                            1,
		`agent_deck_mcp_sessions{profile="standard"}`:                                                                     1,
		`agent_deck_mcp_sessions{profile="legacy"}`:                                                                       0,
		`agent_deck_downstream_health{service="dev-peer",status="healthy"}`:                                               1,
		`agent_deck_downstream_health{service="dev-peer",status="unhealthy"}`:                                             0,
		`agent_deck_db_pool_max_connections`:                                                                              -2, // present
		`agent_deck_audit_entries_dropped_total`:                                                                          0,
		fmt.Sprintf(`agent_deck_build_info{go_version=%q,revision=%q,version=%q}`, bi.GoVersion, bi.Revision, bi.Version): 1,
	}
	for name, want := range series {
		got := metricValue(text, name)
		if (want == -2 && got < 0) || (want != -2 && got != want) {
			t.Errorf("%s = %v, want %v", name, got, want)
		}
	}
	if strings.Contains(text, `tool="ecko"`) || strings.Contains(text, "made-up-tool") || strings.Contains(text, `service="nope"`) {
		t.Errorf("a caller's made-up name became a label:\n%s", grepLines(text, "agent_deck_tool"))
	}
	t.Run("event streams stay out of the latency histogram", func(t *testing.T) {
		var posts float64
		for _, m := range regexp.MustCompile(`(?m)^agent_deck_http_requests_total\{method="(\w+)",status="\w+",surface="mcp"\} (\S+)$`).FindAllStringSubmatch(text, -1) {
			if m[1] != "GET" {
				v, _ := strconv.ParseFloat(m[2], 64)
				posts += v
			}
		}
		// The scrape that read text was itself an api request; mcp requests had all finished.
		if got := metricValue(text, `agent_deck_http_request_duration_seconds_count{surface="mcp"}`); got != posts {
			t.Errorf("mcp latency count %v, want the %v non-GET requests only", got, posts)
		}
	})
}
