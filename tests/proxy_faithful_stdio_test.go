package tests

import (
	"context"
	"io"
	"os"
	"os/exec"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/client/transport"
	"github.com/mark3labs/mcp-go/mcp"

	"github.com/agent-deck/agent-deck/backend"
	"github.com/agent-deck/agent-deck/backend/core"
	"github.com/agent-deck/agent-deck/cli"
)

// TestProxyFaithfulStdio: through `agent-deck mcp-stdio`, a stdio client that declared
// elicitation and sampling gets a downstream's progress, log messages, elicitation and sampling
// requests, and answers them: the sampled answer comes back to the downstream.
func TestProxyFaithfulStdio(t *testing.T) {
	s, services := startFaithfulDeck(t)
	allowed := true
	for _, svc := range services {
		if _, err := s.svc.SetDeckSampling(s.adminCtx(), core.DeckSamplingInput{Deck: "faithful", Service: svc, Allowed: &allowed}); err != nil {
			t.Fatal(err)
		}
	}
	a := &faithfulAgent{t: t, name: "stdio"}
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	ctx, cancel := context.WithCancel(context.Background())
	var wg sync.WaitGroup
	wg.Go(func() {
		_ = cli.RunMCPStdio(ctx, cli.StdioBridgeOptions{URL: s.URL + "/mcp", Token: s.token(backend.ScopeAgent),
			Deck: "faithful"}, inR, outW, io.Discard)
		outW.Close()
	})
	t.Cleanup(func() { cancel(); inW.Close(); wg.Wait() })
	a.c = client.NewClient(transport.NewIO(outR, inW, io.NopCloser(strings.NewReader(""))),
		client.WithElicitationHandler(a), client.WithSamplingHandler(a))
	if err := a.c.Start(ctx); err != nil {
		t.Fatal(err)
	}
	a.c.OnNotification(func(n mcp.JSONRPCNotification) {
		a.mu.Lock()
		a.notes = append(a.notes, n)
		a.mu.Unlock()
	})
	cctx, ccancel := context.WithTimeout(ctx, time.Minute)
	defer ccancel()
	init := mcp.InitializeRequest{}
	init.Params.ProtocolVersion = "2025-06-18"
	init.Params.ClientInfo = mcp.Implementation{Name: "faithful-stdio", Version: "1"}
	if _, err := a.c.Initialize(cctx, init); err != nil {
		t.Fatal(err)
	}
	//lint:ignore SA1019 the session speaks 2025-06-18, which has logging/setLevel
	if err := a.c.SetLevel(cctx, mcp.SetLevelRequest{Params: mcp.SetLevelParams{Level: mcp.LoggingLevelWarning}}); err != nil {
		t.Fatalf("logging/setLevel: %v", err)
	}
	for _, service := range services {
		t.Run(service, func(t *testing.T) {
			a.t = t
			a.mu.Lock()
			a.notes = nil
			a.mu.Unlock()
			if res := a.peer(service, "progress", map[string]any{"count": 2, "tag": "bridge", "gap_ms": 20}, 7); mcpText(res) != "sent 2" {
				t.Errorf("progress = %s", mcpText(res))
			}
			if got := a.waitSeen("notifications/progress", 2); len(got) != 2 || !strings.Contains(got[0], `"progressToken":7`) {
				t.Errorf("progress through the bridge: %v", got)
			}
			a.peer(service, "notify_log", map[string]any{"tag": "bridge"}, nil)
			if got := a.waitSeen("notifications/message", 2); len(got) != 2 || strings.Contains(strings.Join(got, " "), `"info"`) {
				t.Errorf("log messages at warning and above through the bridge: %v", got)
			}
			res := a.peer(service, "elicit", map[string]any{"message": "Through the bridge?"}, nil)
			if res.IsError || !strings.Contains(mcpText(res), "user of stdio") {
				t.Errorf("elicitation through the bridge = %s", mcpText(res))
			}
			res = a.peer(service, "sample", map[string]any{"prompt": "Through the bridge?"}, nil)
			if res.IsError || !strings.Contains(mcpText(res), "the model of stdio answers") {
				t.Errorf("sampling through the bridge = %s", mcpText(res))
			}
		})
	}
}

// TestMCPStdioBinarySampling: the real `agent-deck mcp-stdio`, with a stdio client that offers
// sampling: a downstream's sampling request reaches the client and the sampled answer comes back.
func TestMCPStdioBinarySampling(t *testing.T) {
	s, services := startFaithfulDeck(t)
	allowed := true
	if _, err := s.svc.SetDeckSampling(s.adminCtx(), core.DeckSamplingInput{Deck: "faithful", Service: services[0], Allowed: &allowed}); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, agentDeckBinary(t), "--server", s.URL, "--token", s.token(backend.ScopeAgent),
		"mcp-stdio", "--deck", "faithful")
	cmd.Env = append(os.Environ(), "AGENT_DECK_HOME="+t.TempDir())
	stdin, err := cmd.StdinPipe()
	must(t, err)
	stdout, err := cmd.StdoutPipe()
	must(t, err)
	var stderr syncBuffer
	cmd.Stderr = &stderr
	must(t, cmd.Start())
	t.Cleanup(func() { _ = stdin.Close(); _ = cmd.Wait() })
	a := &faithfulAgent{t: t, name: "binary"}
	a.c = client.NewClient(transport.NewIO(stdout, stdin, io.NopCloser(strings.NewReader(""))), client.WithSamplingHandler(a))
	must(t, a.c.Start(ctx))
	init := mcp.InitializeRequest{}
	init.Params.ClientInfo = mcp.Implementation{Name: "binary-stdio", Version: "1"}
	if _, err := a.c.Initialize(ctx, init); err != nil {
		t.Fatalf("initialize: %v\n%s", err, stderr.String())
	}
	res := a.peer(services[0], "sample", map[string]any{"prompt": "Through the binary?"}, nil)
	if res.IsError || !strings.Contains(mcpText(res), "the model of binary answers") {
		t.Errorf("sampling through agent-deck mcp-stdio = %s\n%s", mcpText(res), stderr.String())
	}
}
