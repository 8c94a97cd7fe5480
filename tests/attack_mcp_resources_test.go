package tests

import (
	"context"
	"net/url"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/mcp"

	"github.com/agent-deck/agent-deck/backend"
	"github.com/agent-deck/agent-deck/backend/core"
)

// attackMCPResourcesOffDeck: an agent bound to one deck reaches, through resources, prompts and
// completions, a service and a playbook that only another deck holds, by the hub's names it
// learnt elsewhere, and forges a list cursor.
func attackMCPResourcesOffDeck(t *testing.T) {
	s := startMCPStack(t, mcpStackOptions{})
	s.seedDeck(t, "ops", startHTTPPeer(t))
	other := s.seedDeck(t, "other", startHTTPPeer(t))
	linkEverything(t, s, other.Deck.ID)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()

	// The names, as a session of the other deck sees them.
	o := s.connect(t, s.token(backend.ScopeAgent), map[string]string{backend.HeaderDeckID: "other"}, "")
	res, err := o.c.ListResources(ctx, mcp.ListResourcesRequest{})
	if err != nil {
		t.Fatal(err)
	}
	var doc string
	for _, r := range res.Resources {
		if strings.HasPrefix(r.URI, "agentdeck://services/everything/") {
			doc = r.URI
			break
		}
	}
	if doc == "" {
		t.Fatalf("the other deck lists no resource of Everything: %+v", res.Resources)
	}
	if _, err := o.c.ReadResource(ctx, mcp.ReadResourceRequest{Params: mcp.ReadResourceParams{URI: doc}}); err != nil {
		t.Fatalf("the other deck cannot read its own service's resource: %v", err)
	}

	m := s.connect(t, s.token(backend.ScopeAgent), map[string]string{backend.HeaderDeckID: "ops"}, "")
	list, err := m.c.ListResources(ctx, mcp.ListResourcesRequest{})
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range list.Resources {
		if strings.Contains(r.URI, "everything") || strings.Contains(r.URI, other.Playbook.ID) {
			t.Errorf("ops lists %s of the other deck", r.URI)
		}
	}
	for _, uri := range []string{doc, "agentdeck://playbooks/" + other.Playbook.ID,
		"agentdeck://services/everything/resources/..%2F..%2Fetc%2Fpasswd", "agentdeck://services/../deck"} {
		if r, err := m.c.ReadResource(ctx, mcp.ReadResourceRequest{Params: mcp.ReadResourceParams{URI: uri}}); err == nil {
			t.Errorf("ops read %s: %+v", uri, r.Contents)
		}
	}
	if p, err := m.c.GetPrompt(ctx, mcp.GetPromptRequest{Params: mcp.GetPromptParams{Name: "everything__simple-prompt"}}); err == nil {
		t.Errorf("ops got the other deck's prompt: %+v", p.Messages)
	}
	done, err := m.c.Complete(ctx, mcp.CompleteRequest{Params: mcp.CompleteParams{
		Ref:      mcp.PromptReference{Type: "ref/prompt", Name: "everything__completable-prompt"},
		Argument: mcp.CompleteArgument{Name: "department", Value: "E"}}})
	if err != nil || len(done.Completion.Values) != 0 {
		t.Errorf("ops completed the other deck's prompt: %+v %v", done, err)
	}
	_, err = m.c.ListResources(ctx, mcp.ListResourcesRequest{PaginatedRequest: mcp.PaginatedRequest{
		Params: mcp.PaginatedParams{Cursor: "eyJzIjotNX0="}}})
	if err == nil || !strings.Contains(err.Error(), "cursor") {
		t.Errorf("a forged cursor = %v, want a refusal naming the cursor", err)
	}
}

// attackMCPProjectedOffDeck: with projection on, an agent calls a projected name of a service only
// another deck holds, and an agent:read session a projected tool that is not read-only; both are
// refused as call_service_tool would refuse them, and neither reaches the downstream.
func attackMCPProjectedOffDeck(t *testing.T) {
	s := startMCPStack(t, mcpStackOptions{})
	s.seedDeck(t, "ops", startHTTPPeer(t))
	s.seedDeck(t, "other", startHTTPPeer(t))
	ctx := s.adminCtx()
	for _, deck := range []string{"ops", "other"} {
		if _, err := s.svc.SetDeckProjection(ctx, deck, core.DeckProjectionInput{Enabled: true}); err != nil {
			t.Fatal(err)
		}
	}
	m := s.connect(t, s.token(backend.ScopeAgent), map[string]string{backend.HeaderDeckID: "ops"}, "")
	if !slices.Contains(m.toolNames(), "ops_peer__echo") || slices.Contains(m.toolNames(), "other_peer__echo") {
		t.Fatalf("ops lists %v", m.toolNames())
	}
	for _, name := range []string{"other_peer__echo", "other-peer__echo", "ops_peer__../echo", "__echo", "ops_peer__"} {
		if res, err := m.callErr(name, map[string]any{"message": "x"}); err == nil && !res.IsError {
			t.Errorf("%s answered %s", name, mcpText(res))
		}
	}
	r := s.connect(t, s.token(backend.ScopeAgentRead), map[string]string{backend.HeaderDeckID: "ops"}, "")
	if slices.Contains(r.toolNames(), "ops_peer__fail") {
		t.Errorf("agent:read lists a tool that is not read-only: %v", r.toolNames())
	}
	if res, err := r.callErr("ops_peer__fail", map[string]any{}); err == nil && !res.IsError {
		t.Errorf("agent:read called a tool that is not read-only: %s", mcpText(res))
	}
	calls := auditCalls(t, s, url.Values{"deck": {"other"}}, 0)
	if len(calls) != 0 {
		t.Errorf("the other deck's service was called: %+v", calls)
	}
}
