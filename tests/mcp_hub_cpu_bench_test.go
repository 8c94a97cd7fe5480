package tests

import (
	"context"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/mark3labs/mcp-go/client"

	"github.com/agent-deck/agent-deck/backend/postgres/pgtest"
)

// Hub CPU time per call the server process may spend, at 16 concurrent sessions of a Go client.
const (
	hubCPUEchoTargetMS      = 0.35 // call_service_tool of the Go peer's echo
	hubCPUBoundDeckTargetMS = 0.25 // get_bound_deck on a deck of 100 cards
)

// BenchmarkMCPHubCPU starts the real agent-deck binary and measures the CPU time its process
// spends (utime+stime from /proc/<pid>/stat) per call made through /mcp by 16 concurrent
// sessions: call_service_tool of the Go peer's echo (a real downstream process) and
// get_bound_deck on a deck of 100 cards. On a small machine this, not latency, is the ceiling.
// With AGENT_DECK_BENCH_PPROF=dir it also saves a CPU profile of the server for each row.
func BenchmarkMCPHubCPU(b *testing.B) {
	profDir := os.Getenv("AGENT_DECK_BENCH_PPROF")
	dbURL := pgtest.NewDB(b)
	env := []string{"AGENT_DECK_DATABASE_URL=" + dbURL}
	if profDir != "" {
		env = append(env, "AGENT_DECK_PPROF=true")
	}
	srv := startServeBench(b, env...)
	peer := startHTTPPeer(b)
	svcID := srv.seedPeerDeck(b, "cpu", peer)
	srv.rest(b, http.StatusCreated, "POST", "/api/v1/decks", `{"name":"hundred"}`, nil)
	var card struct{ ID string }
	for i := range 100 {
		var typ, body, path string
		switch i % 3 {
		case 0:
			typ, path = "service", "/api/v1/services"
			body = fmt.Sprintf(`{"name":"svc-%03d","type":"mcp","url":"http://127.0.0.1:9/mcp/%d","description":"a downstream server"}`, i, i)
		case 1:
			typ, path = "credential", "/api/v1/credentials"
			body = fmt.Sprintf(`{"label":"Key %03d","value":"v","tags":["bench"]}`, i)
		default:
			typ, path = "playbook", "/api/v1/playbooks"
			body = fmt.Sprintf(`{"title":"Runbook %03d","body":"Steps.","triggers":["run book %d"],"auto_detect_dependencies":false}`, i, i)
		}
		srv.rest(b, http.StatusCreated, "POST", path, body, &card)
		srv.rest(b, http.StatusOK, "POST", "/api/v1/decks/hundred/cards",
			fmt.Sprintf(`{"card_type":%q,"card_id":%q}`, typ, card.ID), nil)
	}
	ctx := context.Background()
	sessions := func(deck string) []*client.Client { return srv.boundSessions(b, deck, 16) }
	for _, bc := range []struct {
		name     string
		deck     string
		targetMS float64
		op       func(*client.Client) error
	}{
		{"call_service_tool-echo/16-sessions", "cpu", hubCPUEchoTargetMS, func(c *client.Client) error {
			return mcpEcho(ctx, c, "call_service_tool", map[string]any{"serviceId": svcID, "toolName": "echo",
				"arguments": map[string]any{"message": "bench"}})
		}},
		{"get_bound_deck-100-cards/16-sessions", "hundred", hubCPUBoundDeckTargetMS, func(c *client.Client) error {
			return mcpEcho(ctx, c, "get_bound_deck", nil)
		}},
	} {
		clients := sessions(bc.deck)
		b.Run(bc.name, func(b *testing.B) {
			mcpMeasure(b, clients, 64, bc.op) // warm connections and caches
			n := max(b.N, 500)
			b.ResetTimer()
			prof := srv.cpuProfile(b, profDir, strings.ReplaceAll(bc.name, "/", "_"))
			before, pg := processCPU(b, srv.cmd.Process.Pid), startPGCPU(b, dbURL)
			r := mcpMeasure(b, clients, n, bc.op)
			after, pgTicks := processCPU(b, srv.cmd.Process.Pid), pg.since()
			b.StopTimer()
			prof()
			b.ReportMetric(float64(after-before)*1000/clockTicks/float64(n), "hub-cpu-ms/call")
			b.ReportMetric(bc.targetMS, "hub-cpu-ms/call-max")
			// PostgreSQL's share beside it: the backends of the server's database.
			b.ReportMetric(float64(after-before+pgTicks)*1000/clockTicks/float64(n), "hub+pg-cpu-ms/call")
			b.ReportMetric(ms(r.p50), "p50-ms")
			b.ReportMetric(ms(r.p99), "p99-ms")
			b.ReportMetric(r.perSec, "calls/s")
		})
	}
}

// seedPeerDeck creates deck name holding the Go peer at peerURL as a service, through the real
// server's REST API, and returns the service's id.
func (s *benchServer) seedPeerDeck(b *testing.B, name, peerURL string) string {
	b.Helper()
	var svc struct{ ID string }
	s.rest(b, http.StatusCreated, "POST", "/api/v1/decks", fmt.Sprintf(`{"name":%q}`, name), nil)
	s.rest(b, http.StatusCreated, "POST", "/api/v1/services",
		fmt.Sprintf(`{"name":"peer-%s","type":"mcp","url":%q}`, name, peerURL), &svc)
	s.rest(b, http.StatusOK, "POST", "/api/v1/decks/"+name+"/cards",
		fmt.Sprintf(`{"card_type":"service","card_id":%q}`, svc.ID), nil)
	return svc.ID
}

// boundSessions opens k MCP sessions to the real server with a new agent token, each bound to
// deck.
func (s *benchServer) boundSessions(b *testing.B, deck string, k int) []*client.Client {
	b.Helper()
	var tok struct{ Secret string }
	s.rest(b, http.StatusCreated, "POST", "/api/v1/tokens", fmt.Sprintf(`{"name":"bench-%s","scope":"agent"}`, deck), &tok)
	clients := mcpClients(b, s.url+"/mcp", map[string]string{"Authorization": "Bearer " + tok.Secret}, k)
	for _, c := range clients {
		if err := mcpEcho(context.Background(), c, "bind_workspace", map[string]any{"workspaceRoot": "/" + deck, "deckId": deck}); err != nil {
			b.Fatal(err)
		}
	}
	return clients
}

// cpuProfile, when dir is set (AGENT_DECK_BENCH_PPROF=dir), starts a 3-second CPU profile of the
// server through its /debug/pprof and returns a func that waits for it and saves it as
// dir/name.pprof, for `go tool pprof`. Give the row enough calls (-benchtime) to outlast it.
func (s *benchServer) cpuProfile(b *testing.B, dir, name string) (wait func()) {
	if dir == "" {
		return func() {}
	}
	done := make(chan []byte, 1)
	go func() {
		a := s.api().Do(b, s.token, http.MethodGet, "/debug/pprof/profile?seconds=3", nil)
		if a.Status != http.StatusOK {
			b.Errorf("CPU profile: %d %s", a.Status, a.Body)
		}
		done <- a.Body
	}()
	return func() {
		path := filepath.Join(dir, name+".pprof")
		if err := os.WriteFile(path, <-done, 0o600); err != nil {
			b.Error(err)
		}
		b.Logf("server CPU profile: go tool pprof %s", path)
	}
}

// clockTicks is USER_HZ, the unit of utime and stime in /proc (100 on Linux).
const clockTicks = 100

// processCPU reads utime+stime of process pid, in clock ticks.
func processCPU(tb testing.TB, pid int) int64 {
	tb.Helper()
	raw, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		tb.Skipf("no /proc to read the server's CPU time from: %v", err)
	}
	// The command name may hold spaces; the fields after it start at the state (field 3).
	i := strings.LastIndexByte(string(raw), ')')
	fields := strings.Fields(string(raw[i+1:]))
	if len(fields) < 13 {
		tb.Fatalf("/proc/%d/stat: %q", pid, raw)
	}
	utime, err1 := strconv.ParseInt(fields[11], 10, 64)
	stime, err2 := strconv.ParseInt(fields[12], 10, 64)
	if err1 != nil || err2 != nil {
		tb.Fatalf("/proc/%d/stat: %q", pid, raw)
	}
	return utime + stime
}
