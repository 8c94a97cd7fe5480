package tests

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/mcp"

	"github.com/agent-deck/agent-deck/backend"
	"github.com/agent-deck/agent-deck/backend/core"
)

// TestProxyFaithfulSecrets: a hostile downstream that quotes its service's secret in a progress
// notification, a log message and an elicitation request reaches the agent with the secret masked.
func TestProxyFaithfulSecrets(t *testing.T) {
	s, _ := startFaithfulDeck(t)
	ctx := s.adminCtx()
	secret := "leaky-" + randHex(12)
	svc, err := s.svc.CreateService(ctx, core.ServiceInput{Name: "leaky-peer", Type: backend.ServiceLocal,
		LocalCommand: mcpPeerBinary(t), LocalArgs: []string{"-transport", "stdio"},
		LocalEnv: map[string]string{"PEER_SECRET": secret}})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.svc.LinkCard(ctx, core.LinkCardInput{CardRef: core.CardRef{
		Deck: "faithful", CardType: backend.CardService, CardID: svc.ID}}); err != nil {
		t.Fatal(err)
	}
	a := dialFaithful(t, s, "A", "faithful", agentCaps{elicit: true})
	cctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	//lint:ignore SA1019 the session speaks 2025-11-25, which has logging/setLevel
	if err := a.c.SetLevel(cctx, mcp.SetLevelRequest{Params: mcp.SetLevelParams{Level: mcp.LoggingLevelDebug}}); err != nil {
		t.Fatal(err)
	}
	if res := a.peer("leaky-peer", "leak_env", map[string]any{"name": "PEER_SECRET"}, "leak"); mcpText(res) != "leaked" {
		t.Fatalf("leak_env = %s", mcpText(res))
	}
	progress, logs := a.waitSeen("notifications/progress", 1), a.waitSeen("notifications/message", 1)
	a.mu.Lock()
	asked := strings.Join(a.asked, " ")
	a.mu.Unlock()
	for what, got := range map[string]string{"progress": strings.Join(progress, " "), "log": strings.Join(logs, " "), "elicit": asked} {
		if !strings.Contains(got, what) {
			t.Errorf("no %s reached the agent: %q", what, got)
		}
		if strings.Contains(got, secret) {
			t.Errorf("the %s carried the service's secret in clear: %s", what, got)
		}
	}
}
