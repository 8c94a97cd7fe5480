package tests

import (
	"bufio"
	"context"
	"fmt"
	"net/http"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/client/transport"
	"github.com/mark3labs/mcp-go/mcp"

	"github.com/agent-deck/agent-deck/backend"
)

// heldElicitor answers an elicitation only once released.
type heldElicitor struct {
	asked   chan struct{}
	release chan struct{}
}

func (h *heldElicitor) Elicit(ctx context.Context, _ mcp.ElicitationRequest) (*mcp.ElicitationResult, error) {
	h.asked <- struct{}{}
	select {
	case <-h.release:
	case <-ctx.Done():
		return nil, ctx.Err()
	}
	return &mcp.ElicitationResult{ElicitationResponse: mcp.ElicitationResponse{
		Action: mcp.ElicitationResponseActionAccept, Content: map[string]any{"name": "the real user"}}}, nil
}

var askIDParts = regexp.MustCompile(`"id":"adk-([0-9a-f]+)-([0-9]+)"`)

// attackMCPAnswerOtherSessionsQuestion: the ids of the questions Agent Deck asks clients are
// predictable (replica and a counter). Another session, having read the id of its own question,
// answers every id around it while session A's question waits: none of its answers may reach
// A's downstream.
func attackMCPAnswerOtherSessionsQuestion(t *testing.T) {
	s, services := startFaithfulDeck(t)
	service := services[0]
	tok := s.token(backend.ScopeAgent)
	held := &heldElicitor{asked: make(chan struct{}, 1), release: make(chan struct{})}
	tr, err := transport.NewStreamableHTTP(s.URL+"/mcp", transport.WithHTTPHeaders(map[string]string{"Authorization": "Bearer " + tok}))
	must(t, err)
	a := client.NewClient(tr, client.WithElicitationHandler(held))
	must(t, a.Start(context.Background()))
	t.Cleanup(func() { _ = a.Close() })
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	_, err = a.Initialize(ctx, mcp.InitializeRequest{})
	must(t, err)
	bind := mcp.CallToolRequest{}
	bind.Params.Name = "bind_workspace"
	bind.Params.Arguments = map[string]any{"workspaceRoot": "/victim", "deckId": "faithful"}
	_, err = a.CallTool(ctx, bind)
	must(t, err)
	victim := make(chan string, 1)
	go func() {
		req := mcp.CallToolRequest{}
		req.Params.Name = "call_service_tool"
		req.Params.Arguments = map[string]any{"serviceId": service, "toolName": "elicit", "arguments": map[string]any{}}
		res, err := a.CallTool(ctx, req)
		if err != nil {
			victim <- err.Error()
			return
		}
		victim <- mcpText(res)
	}()
	<-held.asked // A's question waits for its client

	hc := &http.Client{}
	url := s.URL + "/mcp"
	b := mcpRawOpenCaps(t, hc, url, tok, `{"elicitation":{}}`)
	if status, out := mcpRawPost(t, hc, url, tok, b, `{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"bind_workspace",`+
		`"arguments":{"workspaceRoot":"/attacker","deckId":"faithful"}}}`); status != 200 || strings.Contains(out, `"isError":true`) {
		t.Fatalf("attacker bind: %d %s", status, out)
	}
	// The attacker's own question (through the other service: on the stdio one, its call would
	// wait for A's) shows the replica and the counter.
	req, _ := http.NewRequestWithContext(ctx, http.MethodPost, url, strings.NewReader(fmt.Sprintf(
		`{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"call_service_tool","arguments":{"serviceId":%q,"toolName":"elicit"}}}`, services[1])))
	for k, v := range map[string]string{"Content-Type": "application/json", "Accept": "application/json, text/event-stream",
		"Authorization": "Bearer " + tok, "Mcp-Session-Id": b, "Mcp-Protocol-Version": "2025-06-18"} {
		req.Header.Set(k, v)
	}
	resp, err := hc.Do(req)
	must(t, err)
	defer resp.Body.Close()
	var replica string
	var n int
	sc := bufio.NewScanner(resp.Body)
	for sc.Scan() {
		if m := askIDParts.FindStringSubmatch(sc.Text()); m != nil {
			replica, n = m[1], atoi(m[2])
			break
		}
	}
	if replica == "" {
		t.Fatal("the attacker was never asked a question")
	}
	for id := max(n-10, 1); id <= n+10; id++ {
		if id == n {
			continue
		}
		body := fmt.Sprintf(`{"jsonrpc":"2.0","id":"adk-%s-%d","result":{"action":"accept","content":{"name":"the attacker"}}}`, replica, id)
		if status, out := mcpRawPost(t, hc, url, tok, b, body); status != http.StatusAccepted {
			t.Errorf("a forged answer got %d %s, want 202 (and nothing else)", status, out)
		}
	}
	close(held.release)
	got := <-victim
	if strings.Contains(got, "the attacker") || !strings.Contains(got, "the real user") {
		t.Errorf("A's downstream got %s", got)
	}
}

// mcpRawOpenCaps opens a session over plain HTTP declaring caps (a JSON object).
func mcpRawOpenCaps(tb testing.TB, hc *http.Client, url, tok, caps string) string {
	tb.Helper()
	body := `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18",` +
		`"capabilities":` + caps + `,"clientInfo":{"name":"raw","version":"1"}}}`
	return mcpRawInitialize(tb, hc, url, tok, body)
}

func atoi(s string) int {
	n, _ := strconv.Atoi(s)
	return n
}
