package tests

import (
	"bytes"
	"context"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/agent-deck/agent-deck/backend"
	"github.com/agent-deck/agent-deck/backend/core"
	"github.com/agent-deck/agent-deck/cli"
)

// TestHTTPLimitsSpareLongRequests: the HTTP limits bound slow clients, not slow answers. The body
// read deadline ends with the body and there is no write timeout, so a REST or MCP tool call
// that takes far longer than the limits (a slow downstream tool) is still answered.
func TestHTTPLimitsSpareLongRequests(t *testing.T) {
	srv := startFrontDoor(t, func(c *cli.ServeConfig) {
		c.HTTP.BodyReadTimeout = 100 * time.Millisecond
		c.HTTP.IdleTimeout = 100 * time.Millisecond
	})
	ctx := backend.WithActor(context.Background(), backend.SystemActor)
	peer, err := srv.Service().CreateService(ctx, core.ServiceInput{Name: "peer", Type: backend.ServiceRemote,
		URL: startHTTPPeer(t), Description: "the Go test peer"})
	if err != nil {
		t.Fatal(err)
	}
	deck, err := srv.Service().CreateDeck(ctx, core.DeckInput{Name: "slow"})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := srv.Service().LinkCard(ctx, core.LinkCardInput{CardRef: core.CardRef{Deck: deck.ID,
		CardType: backend.CardService, CardID: peer.ID}}); err != nil {
		t.Fatal(err)
	}
	t.Run("REST", func(t *testing.T) {
		status, body := frontDoorCall(t, srv, srv.AdminToken(), "POST", "/api/v1/services/peer/call",
			[]byte(`{"tool_name":"sleep","arguments":{"ms":1500}}`))
		if status != http.StatusOK || strings.Contains(string(body), `"isError":true`) {
			t.Fatalf("a 1.5 s tool call behind a 100 ms body deadline: %d %s", status, body)
		}
	})
	t.Run("MCP", func(t *testing.T) {
		m := openRawMCPSession(t, srv, frontDoorToken(t, srv, backend.ScopeAgent))
		if isErr, text := m.callTool("bind_workspace", `{"workspaceRoot":"/tmp/slow","deckId":"slow"}`); isErr {
			t.Fatalf("bind_workspace: %s", text)
		}
		isErr, text := m.callTool("call_service_tool", `{"serviceId":"peer","toolName":"sleep","arguments":{"ms":1500}}`)
		if isErr {
			t.Fatalf("a 1.5 s tool call behind a 100 ms body deadline: %s", text)
		}
	})
}

// TestServeResultMemoryFloor: a result budget too small for two whole results (4 × the hard
// cap) is refused at start, naming the least it may be.
func TestServeResultMemoryFloor(t *testing.T) {
	var out, errb bytes.Buffer
	code := cli.Run(context.Background(), []string{"agent-deck", "--home", t.TempDir(), "serve",
		"--addr", "127.0.0.1:0", "--result-hard-cap", "1048576", "--result-memory", "4194303"}, nil, &out, &errb)
	if code == 0 || !strings.Contains(errb.String(), "--result-memory 4194303: expected at least 4194304 bytes") {
		t.Errorf("exit %d, stderr %q", code, errb.String())
	}
}
