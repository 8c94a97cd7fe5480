package proxy_test

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/agent-deck/agent-deck/backend"
	"github.com/agent-deck/agent-deck/proxy"
	"github.com/agent-deck/agent-deck/tests/peertest"
)

// BenchmarkComponentProxyCallTool times Proxy.CallTool in process against the Go peer's echo over
// Streamable HTTP on loopback, at 1 and 16 callers. It is a component figure with no target and
// no "direct" row beside it: an in-process call set against a client's round trip made the
// difference come out negative, which is not what the deck adds. What an agent pays is
// tests.BenchmarkMCPProxyOverhead, through HTTP to /mcp.
func BenchmarkComponentProxyCallTool(b *testing.B) {
	peer := peertest.Start(b, "http")
	px := proxy.New(proxy.Options{Home: b.TempDir()})
	b.Cleanup(func() { _ = px.Close(context.Background()) })
	target := backend.Target{ServiceID: "bench", ServiceName: "bench", Type: backend.ServiceRemote,
		URL: peer.URL, Transport: backend.TransportAuto}
	args := json.RawMessage(`{"message":"bench"}`)
	peertest.Compare(b, []peertest.Path{
		{Name: "proxy", Call: func(ctx context.Context) error { _, err := px.CallTool(ctx, target, "echo", args); return err }},
	}, []int{1, 16})
}

// BenchmarkStdioSoak makes 1,000 calls to a local server killed every 100 calls (a call in
// flight at each kill) and reports how many failed and how long it took.
func BenchmarkStdioSoak(b *testing.B) {
	for range b.N {
		p := proxy.New(proxy.Options{Home: b.TempDir()})
		tg, marker := localTarget(b)
		failed := soak(b, p, tg, marker)
		b.ReportMetric(float64(failed), "failed/1000")
		closeAndCheck(b, p, marker)
	}
}
