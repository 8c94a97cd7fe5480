package tests

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"net/http"
	"testing"

	"github.com/agent-deck/agent-deck/backend"
	"github.com/agent-deck/agent-deck/backend/core"
	"github.com/agent-deck/agent-deck/tests/peertest"
)

// BenchmarkRESTServiceCall compares, in one run, the echo tool of the Go peer over Streamable
// HTTP on loopback called directly by an MCP client and through REST (POST
// /api/v1/services/{id}/call on a real server), at 1 and 16 concurrent callers, and prints the
// ratios to the direct call. It has no target of its own; the agent's path with targets is
// BenchmarkMCPProxyOverhead.
func BenchmarkRESTServiceCall(b *testing.B) {
	stack := startMCPStack(b, mcpStackOptions{})
	peer := peertest.Start(b, "http")
	card, err := stack.svc.CreateService(stack.adminCtx(),
		core.ServiceInput{Name: "Bench", Type: backend.ServiceRemote, URL: peer.URL})
	if err != nil {
		b.Fatal(err)
	}
	direct, echo := peertest.DirectClient(b, peer.URL), peertest.EchoRequest()
	restURL := stack.URL + "/api/v1/services/" + card.ID + "/call"
	restBody := []byte(`{"tool_name":"echo","arguments":{"message":"bench"}}`)
	restClient := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: 128}}

	fmt.Print(peertest.Compare(b, []peertest.Path{
		{Name: "direct", Call: func(ctx context.Context) error { _, err := direct.CallTool(ctx, echo); return err }},
		{Name: "rest", Call: func(ctx context.Context) error {
			return restCall(ctx, restClient, restURL, stack.AdminToken, restBody)
		}},
	}, []int{1, 16}))
}

func restCall(ctx context.Context, c *http.Client, url, token string, body []byte) error {
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, url, bytes.NewReader(body))
	if err != nil {
		return err
	}
	req.Header.Set("Authorization", "Bearer "+token)
	req.Header.Set("Content-Type", "application/json")
	resp, err := c.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("REST call: %d %s", resp.StatusCode, b)
	}
	return nil
}
