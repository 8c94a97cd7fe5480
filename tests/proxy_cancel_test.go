package tests

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"testing"
	"time"

	"github.com/agent-deck/agent-deck/backend"
	"github.com/agent-deck/agent-deck/backend/core"
	"github.com/agent-deck/agent-deck/mcptools"
)

// TestProxyCancelledCall holds issue 9 item 2 (second round): whichever path serves a
// tools/call (the transport, or the fast path of mcptools/fastpath.go, which keeps its calls
// cancellable the same way), the client's notifications/cancelled stops a proxied call. The
// downstream sleeps far longer than the test waits, and the service's timeout is longer still,
// so only the cancellation can end the call.
func TestProxyCancelledCall(t *testing.T) {
	s := startMCPStack(t, mcpStackOptions{Config: core.Config{DefaultServiceTimeout: time.Hour}})
	f := s.seedDeck(t, "cancel", startHTTPPeer(t))
	token := s.token(backend.ScopeAgent)
	conn := s.connect(t, token, nil, "")
	conn.ok("bind_workspace", map[string]any{"workspaceRoot": "/cancel", "deckId": "cancel"}, nil)
	post := func(body string) (*http.Response, error) {
		req, err := http.NewRequest(http.MethodPost, s.URL+"/mcp", bytes.NewBufferString(body))
		if err != nil {
			return nil, err
		}
		req.Header.Set("Authorization", "Bearer "+token)
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
		req.Header.Set(backend.HeaderMCPSession, conn.sessionID())
		req.Header.Set(backend.HeaderMCPProtocolVersion, mcptools.SessionProtocolVersions[0])
		return http.DefaultClient.Do(req)
	}
	type answer struct {
		body []byte
		err  error
	}
	done := make(chan answer, 1)
	go func() {
		resp, err := post(`{"jsonrpc":"2.0","id":"slow-1","method":"tools/call","params":{"name":"call_service_tool",` +
			`"arguments":{"serviceId":"` + f.Service.ID + `","toolName":"sleep","arguments":{"ms":3600000}}}}`)
		if err != nil {
			done <- answer{err: err}
			return
		}
		defer resp.Body.Close()
		b, err := io.ReadAll(resp.Body)
		done <- answer{b, err}
	}()
	// The call may not have reached the hub yet: cancel until it ends, within a deadline.
	deadline := time.After(60 * time.Second)
	tick := time.NewTicker(50 * time.Millisecond)
	defer tick.Stop()
	for {
		select {
		case a := <-done:
			if a.err != nil {
				t.Fatal(a.err)
			}
			var resp struct {
				Result struct {
					Content []struct{ Text string } `json:"content"`
					IsError bool                    `json:"isError"`
				} `json:"result"`
			}
			// Cancelled while the downstream works: "the request to … was cancelled"; cancelled
			// while the hub still reads the database before sending it (its first call
			// fetches and pins the service's tools): CANCELED.
			if err := json.Unmarshal(a.body, &resp); err != nil || !resp.Result.IsError || len(resp.Result.Content) != 1 ||
				!bytes.Contains([]byte(resp.Result.Content[0].Text), []byte("was cancelled")) &&
					!bytes.Contains([]byte(resp.Result.Content[0].Text), []byte(`"code":"CANCELED"`)) {
				t.Fatalf("the cancelled call answered %s", a.body)
			}
			return
		case <-tick.C:
			resp, err := post(`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":"slow-1","reason":"test"}}`)
			if err != nil {
				t.Fatal(err)
			}
			_ = resp.Body.Close()
			if resp.StatusCode != http.StatusAccepted {
				t.Fatalf("notifications/cancelled: %d", resp.StatusCode)
			}
		case <-deadline:
			t.Fatal("notifications/cancelled did not stop the proxied call")
		}
	}
}
