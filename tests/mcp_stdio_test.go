package tests

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/client/transport"
	"github.com/mark3labs/mcp-go/mcp"

	"github.com/agent-deck/agent-deck/backend"
	"github.com/agent-deck/agent-deck/backend/core"
	"github.com/agent-deck/agent-deck/cli"
)

// stdioBridge runs the mcp-stdio bridge in process and returns an MCP client speaking to its
// stdin and stdout, plus everything the bridge wrote to stdout (to prove it is only protocol).
func stdioBridge(t *testing.T, opts cli.StdioBridgeOptions) (*client.Client, *syncBuffer, func() error) {
	t.Helper()
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	stdout := &syncBuffer{}
	stderr := &syncBuffer{}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() {
		done <- cli.RunMCPStdio(ctx, opts, inR, io.MultiWriter(outW, stdout), stderr)
		outW.Close()
	}()
	c := client.NewClient(transport.NewIO(outR, inW, io.NopCloser(strings.NewReader(""))))
	if err := c.Start(ctx); err != nil {
		t.Fatal(err)
	}
	stop := func() error {
		inW.Close()
		select {
		case err := <-done:
			cancel()
			return err
		case <-time.After(10 * time.Second):
			cancel()
			t.Fatal("the bridge did not stop at the end of stdin")
			return nil
		}
	}
	t.Cleanup(func() { cancel(); inW.Close() })
	return c, stdout, stop
}

// TestMCPStdioBridge: a stdio client reaches the deck through `agent-deck mcp-stdio`, and the
// bridge's stdout carries nothing but JSON-RPC.
func TestMCPStdioBridge(t *testing.T) {
	s := startMCPStack(t, mcpStackOptions{})
	f := s.seedDeck(t, "dev", startHTTPPeer(t))
	agentToken := s.token(backend.ScopeAgent)
	c, stdout, stop := stdioBridge(t, cli.StdioBridgeOptions{URL: s.URL + "/mcp", Token: agentToken,
		Deck: "dev", Profile: "runtime"})
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	init := mcp.InitializeRequest{}
	init.Params.ProtocolVersion = "2025-06-18"
	init.Params.ClientInfo = mcp.Implementation{Name: "stdio-test", Version: "1"}
	res, err := c.Initialize(ctx, init)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(res.Instructions, "bind_workspace") {
		t.Errorf("instructions = %q", res.Instructions)
	}
	tools, err := c.ListTools(ctx, mcp.ListToolsRequest{})
	if err != nil || len(tools.Tools) != 10 {
		t.Fatalf("runtime profile over stdio: %v %d tools", err, len(tools.Tools))
	}
	call := func(name string, args any) *mcp.CallToolResult {
		t.Helper()
		req := mcp.CallToolRequest{}
		req.Params.Name, req.Params.Arguments = name, args
		r, err := c.CallTool(ctx, req)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		return r
	}
	var b core.Binding
	if err := json.Unmarshal([]byte(mcpText(call("get_session_binding", nil))), &b); err != nil || !b.Bound || b.DeckName != "dev" {
		t.Errorf("the deck flag did not pre-bind: %+v %v", b, err)
	}
	r := call("call_service_tool", map[string]any{"serviceId": f.Service.ID, "toolName": "echo",
		"arguments": map[string]any{"message": "over stdio"}})
	if r.IsError || mcpText(r) != `{"message":"over stdio"}` {
		t.Errorf("call over stdio: %+v", r)
	}
	mcpDeleteSession(t, s, agentToken, b.SessionID)
	var again core.Binding
	if err := json.Unmarshal([]byte(mcpText(call("get_session_binding", nil))), &again); err != nil ||
		again.SessionID == b.SessionID || !again.Bound {
		t.Errorf("after the session ended the bridge did not open a new one: %+v %v", again, err)
	}
	if err := stop(); err != nil {
		t.Fatalf("bridge: %v", err)
	}
	b = again
	sc := bufio.NewScanner(strings.NewReader(stdout.String()))
	lines := 0
	for sc.Scan() {
		lines++
		var msg struct {
			JSONRPC string `json:"jsonrpc"`
		}
		if err := json.Unmarshal(sc.Bytes(), &msg); err != nil || msg.JSONRPC != "2.0" {
			t.Errorf("stdout line is not JSON-RPC: %q", sc.Text())
		}
	}
	if lines < 4 {
		t.Errorf("%d lines on stdout", lines)
	}
	if status, _ := mcpRaw(t, s, s.AdminToken, nil, b.SessionID, mcpToolsListBody); status != 404 {
		t.Errorf("the bridge left its session open at the end of stdin: %d", status)
	}
}

// TestMCPStdioBridgeServerDown: requests get a JSON-RPC error naming the server, not silence.
func TestMCPStdioBridgeServerDown(t *testing.T) {
	c, _, stop := stdioBridge(t, cli.StdioBridgeOptions{URL: "http://127.0.0.1:9/mcp", Token: "x"})
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	init := mcp.InitializeRequest{}
	init.Params.ClientInfo = mcp.Implementation{Name: "stdio-test", Version: "1"}
	_, err := c.Initialize(ctx, init)
	if err == nil || !strings.Contains(err.Error(), "agent-deck serve") {
		t.Errorf("initialize with no server: %v", err)
	}
	if err := stop(); err != nil {
		t.Fatal(err)
	}
}

// TestMCPStdioBridgeKeepsOrder holds issue 15 item 13: requests piped to mcp-stdio without waiting
// keep their order around bind_workspace, so the calls right after it see the binding. Each round
// is a fresh session; enough rounds catch the reordering the bridge used to allow.
func TestMCPStdioBridgeKeepsOrder(t *testing.T) {
	s := startMCPStack(t, mcpStackOptions{})
	if _, err := s.svc.CreateDeck(s.adminCtx(), core.DeckInput{Name: "dev"}); err != nil {
		t.Fatal(err)
	}
	opts := cli.StdioBridgeOptions{URL: s.URL + "/mcp", Token: s.token(backend.ScopeAgent)}
	const rounds, after = 25, 4
	for round := range rounds {
		lines := []string{
			`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"pipe","version":"1"}}}`,
			`{"jsonrpc":"2.0","method":"notifications/initialized"}`,
			fmt.Sprintf(`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"bind_workspace","arguments":{"workspaceRoot":"/w/%d","deckId":"dev"}}}`, round),
		}
		for i := range after {
			lines = append(lines, fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":"get_bound_deck","arguments":{}}}`, 10+i))
		}
		var out, errb syncBuffer
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		err := cli.RunMCPStdio(ctx, opts, strings.NewReader(strings.Join(lines, "\n")+"\n"), &out, &errb)
		cancel()
		if err != nil {
			t.Fatalf("round %d: bridge: %v (stderr %s)", round, err, errb.String())
		}
		answers := map[int]string{}
		sc := bufio.NewScanner(strings.NewReader(out.String()))
		sc.Buffer(nil, 1<<20)
		for sc.Scan() {
			var m struct {
				ID     int `json:"id"`
				Result struct {
					IsError bool `json:"isError"`
				} `json:"result"`
				Error json.RawMessage `json:"error"`
			}
			if json.Unmarshal(sc.Bytes(), &m) == nil && m.ID >= 10 && (m.Result.IsError || m.Error != nil) {
				answers[m.ID] = sc.Text()
			} else if m.ID >= 10 {
				answers[m.ID] = ""
			}
		}
		for i := range after {
			text, ok := answers[10+i]
			if !ok {
				t.Fatalf("round %d: no answer to request %d; stdout:\n%s", round, 10+i, out.String())
			}
			if text != "" {
				t.Fatalf("round %d: get_bound_deck piped after bind_workspace failed: %s", round, text)
			}
		}
	}
}
