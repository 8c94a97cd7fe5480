package proxy_test

import (
	"context"
	"testing"
	"time"

	"github.com/agent-deck/agent-deck/backend"
	"github.com/agent-deck/agent-deck/proxy"
	"github.com/agent-deck/agent-deck/tests/peertest"
)

// TestResultBudgetAfterAnIdleStream: a result of nearly the hard cap that arrives on a stream no
// call owns (the legacy SSE stream) and is then followed by nothing leaves no charge behind: a
// stdio service's next answer is read at once. The charge of an event used to be given back only
// when the stream's next event started, so an idle stream kept it, and the budget's privilege,
// and every other reader over the shared part waited until its call timed out.
func TestResultBudgetAfterAnIdleStream(t *testing.T) {
	for _, first := range []string{"http", "sse"} {
		t.Run(first, func(t *testing.T) {
			const hardCap = 1 << 20
			p, _ := newProxy(t, proxy.Options{ResultHardCap: hardCap, MaxResultBytes: 1024})
			local, _ := localTarget(t)
			tr := backend.TransportStreamableHTTP
			if first == "sse" {
				tr = backend.TransportSSE
			}
			remote := remoteTarget(peertest.Start(t, first).URL, tr)
			remote.Timeout = 20 * time.Second
			_, err := tryCall(context.Background(), p, remote, "big", map[string]any{"bytes": 4 * hardCap})
			wantCode(t, err, backend.CodeDownstreamResultTooLarge)
			if _, err := tryCall(context.Background(), p, remote, "big", map[string]any{"bytes": hardCap - 4096}); err != nil {
				t.Fatal(err)
			}
			local.Timeout = 10 * time.Second
			if _, err := tryCall(context.Background(), p, local, "pid", nil); err != nil {
				t.Fatalf("a stdio call after a large result on %s: %v", first, err)
			}
		})
	}
}
