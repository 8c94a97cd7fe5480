package tests

import (
	"context"
	"encoding/json"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/client/transport"
	"github.com/mark3labs/mcp-go/mcp"

	"github.com/agent-deck/agent-deck/backend"
	"github.com/agent-deck/agent-deck/backend/core"
)

// faithfulAgent is an agent session over /mcp that records every notification it receives and,
// when it declared elicitation or sampling, answers each request with its own name.
type faithfulAgent struct {
	t     *testing.T
	name  string
	token string
	c     *client.Client

	mu    sync.Mutex
	notes []mcp.JSONRPCNotification
	asked []string
}

func (a *faithfulAgent) Elicit(_ context.Context, req mcp.ElicitationRequest) (*mcp.ElicitationResult, error) {
	a.mu.Lock()
	a.asked = append(a.asked, req.Params.Message)
	a.mu.Unlock()
	return &mcp.ElicitationResult{ElicitationResponse: mcp.ElicitationResponse{
		Action: mcp.ElicitationResponseActionAccept, Content: map[string]any{"name": "user of " + a.name}}}, nil
}

func (a *faithfulAgent) CreateMessage(_ context.Context, req mcp.CreateMessageRequest) (*mcp.CreateMessageResult, error) {
	a.mu.Lock()
	a.asked = append(a.asked, "sampling")
	a.mu.Unlock()
	return &mcp.CreateMessageResult{SamplingMessage: mcp.SamplingMessage{Role: mcp.RoleAssistant,
		Content: mcp.NewTextContent("the model of " + a.name + " answers")}, Model: "test-model"}, nil
}

// agentCaps are the client capabilities an agent session declares.
type agentCaps struct {
	elicit, sample bool
}

// dialFaithful opens an agent session bound to deck, declaring caps. Sampling requests come on
// the session's GET stream, so a sampling agent listens on it.
func dialFaithful(t *testing.T, s *mcpStack, name, deck string, caps agentCaps) *faithfulAgent {
	t.Helper()
	a := &faithfulAgent{t: t, name: name, token: s.token(backend.ScopeAgent)}
	topts := []transport.StreamableHTTPCOption{
		transport.WithHTTPHeaders(map[string]string{"Authorization": "Bearer " + a.token})}
	if caps.sample {
		//lint:ignore SA1019 the session speaks 2025-11-25, which has the GET stream
		topts = append(topts, transport.WithContinuousListening())
	}
	tr, err := transport.NewStreamableHTTP(s.URL+"/mcp", topts...)
	if err != nil {
		t.Fatal(err)
	}
	var opts []client.ClientOption
	if caps.elicit {
		opts = append(opts, client.WithElicitationHandler(a))
	}
	if caps.sample {
		opts = append(opts, client.WithSamplingHandler(a))
	}
	a.c = client.NewClient(tr, opts...)
	// Start's context lives as long as the session: the GET stream listens under it.
	if err := a.c.Start(context.Background()); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = a.c.Close() })
	a.c.OnNotification(func(n mcp.JSONRPCNotification) {
		a.mu.Lock()
		a.notes = append(a.notes, n)
		a.mu.Unlock()
	})
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	req := mcp.InitializeRequest{}
	req.Params.ClientInfo = mcp.Implementation{Name: "faithful-" + name, Version: "1"}
	if _, err := a.c.Initialize(ctx, req); err != nil {
		t.Fatal(err)
	}
	a.call("bind_workspace", map[string]any{"workspaceRoot": "/work/" + name, "deckId": deck}, nil)
	return a
}

// call runs a tool with an optional progress token and returns its result.
func (a *faithfulAgent) call(tool string, args map[string]any, token any) *mcp.CallToolResult {
	a.t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	req := mcp.CallToolRequest{}
	req.Params.Name, req.Params.Arguments = tool, args
	if token != nil {
		req.Params.Meta = &mcp.Meta{ProgressToken: token}
	}
	res, err := a.c.CallTool(ctx, req)
	if err != nil {
		a.t.Fatalf("%s %s: %v", a.name, tool, err)
	}
	return res
}

// peer calls a tool of the test peer service through call_service_tool.
func (a *faithfulAgent) peer(service, tool string, args map[string]any, token any) *mcp.CallToolResult {
	a.t.Helper()
	if args == nil {
		args = map[string]any{}
	}
	return a.call("call_service_tool", map[string]any{"serviceId": service, "toolName": tool, "arguments": args}, token)
}

// seen returns the notifications of method received so far, as JSON params.
func (a *faithfulAgent) seen(method string) []string {
	a.mu.Lock()
	defer a.mu.Unlock()
	var out []string
	for _, n := range a.notes {
		if n.Method == method {
			b, _ := json.Marshal(n.Params.AdditionalFields)
			out = append(out, string(b))
		}
	}
	return out
}

// waitSeen polls until want notifications of method arrived (they may trail the result).
func (a *faithfulAgent) waitSeen(method string, want int) []string {
	a.t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for {
		got := a.seen(method)
		if len(got) >= want || time.Now().After(deadline) {
			return got
		}
		// What trails a result waits in the session for its next stream: a ping opens one.
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		_ = a.c.Ping(ctx) //lint:ignore SA1019 the session speaks 2025-11-25, which has ping
		cancel()
		time.Sleep(10 * time.Millisecond)
	}
}

// startFaithfulDeck is a deck with the Go test peer twice: over stdio and over Streamable HTTP.
func startFaithfulDeck(t *testing.T) (*mcpStack, []string) {
	t.Helper()
	s := startMCPStack(t, mcpStackOptions{})
	ctx := s.adminCtx()
	deck, err := s.svc.CreateDeck(ctx, core.DeckInput{Name: "faithful"})
	if err != nil {
		t.Fatal(err)
	}
	inputs := []core.ServiceInput{
		{Name: "stdio-peer", Type: backend.ServiceLocal, LocalCommand: mcpPeerBinary(t), LocalArgs: []string{"-transport", "stdio"}},
		{Name: "http-peer", Type: backend.ServiceRemote, URL: startHTTPPeer(t)},
	}
	var names []string
	for _, in := range inputs {
		svc, err := s.svc.CreateService(ctx, in)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := s.svc.LinkCard(ctx, core.LinkCardInput{CardRef: core.CardRef{
			Deck: deck.ID, CardType: backend.CardService, CardID: svc.ID}}); err != nil {
			t.Fatal(err)
		}
		names = append(names, in.Name)
	}
	return s, names
}

// TestProxyFaithfulMCP: what a downstream sends during a call reaches the agent session that
// made the call, over stdio and Streamable HTTP downstreams, and never the other session.
func TestProxyFaithfulMCP(t *testing.T) {
	s, services := startFaithfulDeck(t)
	for _, service := range services {
		t.Run(service, func(t *testing.T) {
			a := dialFaithful(t, s, "A", "faithful", agentCaps{elicit: true})
			b := dialFaithful(t, s, "B", "faithful", agentCaps{})
			ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
			defer cancel()
			//lint:ignore SA1019 the session speaks 2025-11-25, which has logging/setLevel
			if err := a.c.SetLevel(ctx, mcp.SetLevelRequest{Params: mcp.SetLevelParams{Level: mcp.LoggingLevelInfo}}); err != nil {
				t.Fatalf("logging/setLevel: %v", err)
			}
			steps := []struct {
				name string
				run  func(t *testing.T)
			}{
				{"progress is mapped to each caller's token", func(t *testing.T) {
					var wg sync.WaitGroup
					for _, ag := range []*faithfulAgent{a, b} {
						wg.Go(func() {
							ag.peer(service, "progress", map[string]any{"count": 3, "tag": ag.name, "gap_ms": 20}, "tok-"+ag.name)
						})
					}
					wg.Wait()
					for _, ag := range []*faithfulAgent{a, b} {
						got := ag.waitSeen("notifications/progress", 3)
						if len(got) != 3 {
							t.Fatalf("%s got %d progress notifications, want 3: %v", ag.name, len(got), got)
						}
						for _, n := range got {
							if !strings.Contains(n, `"progressToken":"tok-`+ag.name+`"`) || !strings.Contains(n, `"message":"`+ag.name+` step`) {
								t.Errorf("%s got a progress notification not its own: %s", ag.name, n)
							}
						}
					}
				}},
				{"log messages reach the session that set a level, at that level", func(t *testing.T) {
					a.peer(service, "notify_log", map[string]any{"tag": "A"}, nil)
					// The stdio peer may write log messages after its result. On the pipe every
					// session shares, one that comes just as another session's call starts could be
					// either's, and is dropped: so B calls once A has its messages.
					a.waitSeen("notifications/message", 3)
					b.peer(service, "notify_log", map[string]any{"tag": "B"}, nil)
					pctx, pcancel := context.WithTimeout(context.Background(), 10*time.Second)
					_ = a.c.Ping(pctx) //lint:ignore SA1019 the session speaks 2025-11-25, which has ping
					pcancel()          // a stream of A's, where a message of B's sent to A would be waiting
					got := a.seen("notifications/message")
					if len(got) != 3 || strings.Contains(strings.Join(got, " "), "debug") {
						t.Errorf("A (level info) got %v, want info, warning and error", got)
					}
					for _, n := range got {
						if !strings.Contains(n, `"A `) {
							t.Errorf("A got another session's log message: %s", n)
						}
					}
					if got := b.seen("notifications/message"); len(got) != 0 {
						t.Errorf("B set no level and got log messages: %v", got)
					}
				}},
				{"elicitation reaches the client that declared it", func(t *testing.T) {
					res := a.peer(service, "elicit", map[string]any{"message": "Your name, A?"}, nil)
					if res.IsError || !strings.Contains(mcpText(res), "user of A") || !strings.Contains(mcpText(res), "accept") {
						t.Errorf("A's elicitation = %s", mcpText(res))
					}
					if a.asked[len(a.asked)-1] != "Your name, A?" {
						t.Errorf("A was asked %v", a.asked)
					}
				}},
				{"elicitation is refused for a client that did not declare it", func(t *testing.T) {
					res := b.peer(service, "elicit", nil, nil)
					if !strings.Contains(mcpText(res), "elicitation failed") {
						t.Errorf("B's elicitation = %s", mcpText(res))
					}
				}},
				{"sampling is refused to a client that did not declare it", func(t *testing.T) {
					res := a.peer(service, "sample", nil, nil)
					if !strings.Contains(mcpText(res), "sampling failed") || strings.Contains(mcpText(res), "answers") {
						t.Errorf("A's sampling = %s", mcpText(res))
					}
				}},
			}
			for _, ag := range []*faithfulAgent{a, b} {
				steps = append(steps, struct {
					name string
					run  func(t *testing.T)
				}{"cancelling a call of " + ag.name + " cancels it downstream", func(t *testing.T) { ag.cancelBlock(t, service) }})
			}
			for _, st := range steps {
				t.Run(st.name, st.run)
			}
		})
	}
}

// cancelBlock starts the peer's block tool, cancels the call once the downstream runs it (its
// progress says so), and waits for the downstream to count the cancellation.
func (a *faithfulAgent) cancelBlock(t *testing.T, service string) {
	count := func() string { return mcpText(a.peer(service, "cancellations", nil, nil)) }
	before := count()
	token := "block-" + a.name + "-" + service + "-" + randHex(4)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() {
		req := mcp.CallToolRequest{}
		req.Params.Name = "call_service_tool"
		req.Params.Arguments = map[string]any{"serviceId": service, "toolName": "block", "arguments": map[string]any{}}
		req.Params.Meta = &mcp.Meta{ProgressToken: token}
		_, err := a.c.CallTool(ctx, req)
		done <- err
	}()
	deadline := time.Now().Add(20 * time.Second)
	for !strings.Contains(strings.Join(a.seen("notifications/progress"), " "), token) {
		if time.Now().After(deadline) {
			cancel()
			t.Fatalf("the downstream never started block")
		}
		time.Sleep(10 * time.Millisecond)
	}
	cancel()
	if err := <-done; err == nil {
		t.Errorf("the cancelled call returned no error")
	}
	for count() == before {
		if time.Now().After(deadline) {
			t.Fatalf("the downstream never saw the cancellation (still %s)", before)
		}
		time.Sleep(20 * time.Millisecond)
	}
}
