package tests

import (
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/agent-deck/agent-deck/backend"
)

// TestMCPBoundDeckOneWrite holds issue 9 item 2 through the real hop: a get_bound_deck answer
// (several KB for 100 cards) comes as one body with its Content-Length, not as HTTP chunks
// written one system call each, and repeated calls return the same bytes.
func TestMCPBoundDeckOneWrite(t *testing.T) {
	s := startMCPStack(t, mcpStackOptions{})
	seedDeck100(t, s.svc, s.adminCtx())
	tok := s.token(backend.ScopeAgent)
	id := mcpRawOpen(t, http.DefaultClient, s.URL+"/mcp", tok)
	call := func(body string) (*http.Response, string) {
		t.Helper()
		req, _ := http.NewRequest(http.MethodPost, s.URL+"/mcp", strings.NewReader(body))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
		req.Header.Set("Authorization", "Bearer "+tok)
		req.Header.Set("Mcp-Session-Id", id)
		req.Header.Set("Mcp-Protocol-Version", "2025-06-18")
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		raw, err := io.ReadAll(resp.Body)
		if err != nil {
			t.Fatal(err)
		}
		return resp, string(raw)
	}
	if resp, out := call(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"bind_workspace","arguments":{"workspaceRoot":"/w","deckId":"hundred"}}}`); resp.StatusCode != 200 || strings.Contains(out, `"isError":true`) {
		t.Fatalf("bind_workspace: %d %s", resp.StatusCode, out)
	}
	var first string
	for i := range 3 {
		resp, out := call(`{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"get_bound_deck","arguments":{}}}`)
		if resp.StatusCode != 200 || !strings.Contains(out, "display_summary") || strings.Contains(out, `"isError":true`) {
			t.Fatalf("get_bound_deck: %d %.300s", resp.StatusCode, out)
		}
		if resp.ContentLength != int64(len(out)) || len(resp.TransferEncoding) > 0 {
			t.Errorf("get_bound_deck answer: Content-Length %d, Transfer-Encoding %v for %d bytes; want one body with its length",
				resp.ContentLength, resp.TransferEncoding, len(out))
		}
		if i == 0 {
			first = out
		} else if out != first {
			t.Errorf("call %d differs from the first:\n%.300s\n%.300s", i+1, out, first)
		}
	}
}
