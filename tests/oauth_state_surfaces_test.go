package tests

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/agent-deck/agent-deck/backend"
	"github.com/agent-deck/agent-deck/tests/oauthas"
)

// TestOAuthStateInBoundDeck: get_bound_deck shows a service's sign-in state as one word, only
// for a service that has one: a service without a sign-in renders exactly as before (no "auth"
// member), a connected one says "connected", and after disconnecting the word goes away.
func TestOAuthStateInBoundDeck(t *testing.T) {
	s := startMCPStack(t, mcpStackOptions{})
	as := newOAuthService(t, oauthas.Options{Scope: "mcp:read"})
	dev := s.seedDeck(t, "dev", startHTTPPeer(t))
	ctx := s.adminCtx()
	card, err := s.svc.CreateService(ctx, backend.ServiceInput{Name: "notes", Type: backend.ServiceRemote, URL: as.MCPURL()})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.svc.LinkCard(ctx, backend.LinkCardInput{CardRef: backend.CardRef{Deck: dev.Deck.ID,
		CardType: backend.CardService, CardID: card.ID}}); err != nil {
		t.Fatal(err)
	}
	agent := s.connect(t, s.token(backend.ScopeAgent), nil, "")
	agent.ok("bind_workspace", map[string]any{"workspaceRoot": "/w", "deckId": "dev"}, nil)
	auth := func() map[string]string {
		t.Helper()
		var snap struct {
			Services []map[string]json.RawMessage `json:"services"`
		}
		agent.ok("get_bound_deck", nil, &snap)
		out := map[string]string{}
		for _, svc := range snap.Services {
			var name, word string
			must(t, json.Unmarshal(svc["name"], &name))
			if raw, ok := svc["auth"]; ok {
				must(t, json.Unmarshal(raw, &word))
			} else {
				word = "(absent)"
			}
			out[name] = word
		}
		return out
	}
	want := func(where string, peer, notes string) {
		t.Helper()
		got := auth()
		if got[dev.Service.Name] != peer || got["notes"] != notes {
			t.Fatalf("%s: auth words %v, want %s=%s notes=%s", where, got, dev.Service.Name, peer, notes)
		}
	}
	want("before any sign-in", "(absent)", "(absent)")

	started, err := s.svc.ConnectService(ctx, "notes", "http://127.0.0.1:1/oauth/callback", backend.OAuthConnectInput{})
	if err != nil {
		t.Fatal(err)
	}
	want("with a sign-in started", "(absent)", string(backend.OAuthStateNeedsSignIn))
	code, state := consentCode(t, started.AuthURL)
	if _, err := s.svc.FinishOAuth(ctx, state, code, ""); err != nil {
		t.Fatal(err)
	}
	want("after signing in", "(absent)", string(backend.OAuthStateConnected))
	for _, tok := range as.Issued() {
		var snap json.RawMessage
		agent.ok("get_bound_deck", nil, &snap)
		if strings.Contains(string(snap), tok) {
			t.Fatal("get_bound_deck carries an issued token")
		}
	}
	if err := s.svc.DisconnectService(ctx, "notes"); err != nil {
		t.Fatal(err)
	}
	want("after disconnecting", "(absent)", "(absent)")
}
