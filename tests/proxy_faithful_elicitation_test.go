package tests

import (
	"context"
	"encoding/json"
	"net/http/httptest"
	"testing"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

	"github.com/agent-deck/agent-deck/backend"
	"github.com/agent-deck/agent-deck/backend/core"
)

// sep1034Schema is the conformance scenario's requested schema: a default for every property.
var sep1034Schema = map[string]any{"type": "object", "properties": map[string]any{
	"name":     map[string]any{"type": "string", "default": "John Doe"},
	"age":      map[string]any{"type": "integer", "default": 30},
	"score":    map[string]any{"type": "number", "default": 95.5},
	"status":   map[string]any{"type": "string", "enum": []string{"active", "inactive", "pending"}, "default": "active"},
	"verified": map[string]any{"type": "boolean", "default": true},
}}

// startDefaultsDownstream is a remote MCP server whose one tool asks for the SEP-1034 schema
// during the call and returns the answer it got, as JSON.
func startDefaultsDownstream(t *testing.T) string {
	t.Helper()
	s := server.NewMCPServer("elicit-defaults", "1.0.0", server.WithElicitation())
	s.AddTool(mcp.NewTool("ask", mcp.WithReadOnlyHintAnnotation(true)), func(ctx context.Context, _ mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		res, err := s.RequestElicitation(ctx, mcp.ElicitationRequest{Params: mcp.ElicitationParams{
			Message: "accept with defaults", RequestedSchema: sep1034Schema}})
		if err != nil {
			return mcp.NewToolResultError("elicitation failed"), nil
		}
		b, _ := json.Marshal(res)
		return mcp.NewToolResultText(string(b)), nil
	})
	hs := httptest.NewServer(server.NewStreamableHTTPServer(s))
	t.Cleanup(hs.Close)
	return hs.URL + "/mcp"
}

// TestElicitationDefaultsRelayed: when the hub relays an agent's accepted elicitation answer to
// the downstream that asked, every property the answer omits gets its schema default, and the
// values the agent gave are kept.
func TestElicitationDefaultsRelayed(t *testing.T) {
	url := startDefaultsDownstream(t)
	s := startMCPStack(t, mcpStackOptions{})
	ctx := s.adminCtx()
	deck, err := s.svc.CreateDeck(ctx, core.DeckInput{Name: "defaults"})
	if err != nil {
		t.Fatal(err)
	}
	svc, err := s.svc.CreateService(ctx, core.ServiceInput{Name: "asker", Type: backend.ServiceRemote, URL: url})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.svc.LinkCard(ctx, core.LinkCardInput{CardRef: core.CardRef{Deck: deck.ID, CardType: backend.CardService, CardID: svc.ID}}); err != nil {
		t.Fatal(err)
	}
	// The agent answers accept with {"name": "user of A"} only.
	a := dialFaithful(t, s, "A", "defaults", agentCaps{elicit: true})
	res := a.peer("asker", "ask", nil, nil)
	var got mcp.ElicitationResult
	if err := json.Unmarshal([]byte(mcpText(res)), &got); err != nil {
		t.Fatalf("ask answered %s", mcpText(res))
	}
	content, _ := got.Content.(map[string]any)
	want := map[string]any{"name": "user of A", "age": float64(30), "score": 95.5, "status": "active", "verified": true}
	if got.Action != mcp.ElicitationResponseActionAccept || len(content) != len(want) {
		t.Fatalf("downstream got %s, want accept with %v", mcpText(res), want)
	}
	for k, v := range want {
		if content[k] != v {
			t.Errorf("%s = %v, want %v", k, content[k], v)
		}
	}
}
