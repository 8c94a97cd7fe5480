package tests

import (
	"encoding/json"
	"net/http"
	"strings"
	"testing"

	"github.com/agent-deck/agent-deck/backend"
	"github.com/agent-deck/agent-deck/backend/core"
	"github.com/agent-deck/agent-deck/cli"
	"github.com/agent-deck/agent-deck/tests/oauthas"
	"github.com/agent-deck/agent-deck/tests/resttest"
)

// TestOAuthStateInBoundDeck: get_bound_deck shows a service's sign-in state as one word, only
// for a service that has one: a service without a sign-in renders exactly as before (no "auth"
// member), a connected one says "connected", and after disconnecting the word goes away.
func TestOAuthStateInBoundDeck(t *testing.T) {
	s := startMCPStack(t, mcpStackOptions{})
	as := newOAuthService(t, oauthas.Options{Scope: "mcp:read"})
	dev := s.seedDeck(t, "dev", startHTTPPeer(t))
	ctx := s.adminCtx()
	card, err := s.svc.CreateService(ctx, core.ServiceInput{Name: "notes", Type: backend.ServiceRemote, URL: as.MCPURL()})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.svc.LinkCard(ctx, core.LinkCardInput{CardRef: core.CardRef{Deck: dev.Deck.ID,
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

	started, err := s.svc.ConnectService(ctx, "notes", "http://127.0.0.1:1/oauth/callback", core.OAuthConnectInput{})
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

// TestOAuthStateInServiceList: `agent-deck service list` has a SIGN-IN column only once some
// service has a sign-in state, and then shows every service's state.
func TestOAuthStateInServiceList(t *testing.T) {
	as := newOAuthService(t, oauthas.Options{Scope: "mcp:read"})
	home := t.TempDir()
	srv := startFrontDoor(t, func(c *cli.ServeConfig) { c.Home = home })
	runCLI(home, strings.NewReader(""), "service", "add", "notes", as.MCPURL()).wantCode(t, 0)
	runCLI(home, strings.NewReader(""), "service", "add", "plain", "http://127.0.0.1:9/mcp").wantCode(t, 0)
	list := func() string {
		t.Helper()
		r := runCLI(home, strings.NewReader(""), "service", "list")
		r.wantCode(t, 0)
		return r.stdout
	}
	if out := list(); strings.Contains(out, "SIGN-IN") {
		t.Fatalf("service list with no sign-in has a SIGN-IN column:\n%s", out)
	}
	a := resttest.New(srv.URL(), "").Do(t, srv.AdminToken(), http.MethodPost, "/api/v1/services/notes/connect", map[string]any{})
	var started core.OAuthConnect
	must(t, json.Unmarshal(a.Body, &started))
	resp, err := http.Get(started.AuthURL) // consent, then the deck's callback
	if err != nil {
		t.Fatal(err)
	}
	_ = resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("the sign-in ended with %d", resp.StatusCode)
	}
	out := list()
	lines := strings.Split(strings.TrimSpace(out), "\n")
	if !strings.Contains(lines[0], "SIGN-IN") {
		t.Fatalf("service list after signing in has no SIGN-IN column:\n%s", out)
	}
	rows := 0
	for _, l := range lines[1:] {
		f := strings.Fields(l)
		rows++
		switch {
		case strings.Contains(l, " notes "):
			if f[len(f)-1] != "connected" {
				t.Errorf("notes row %q, want it to end with connected", l)
			}
		case strings.Contains(l, " plain "):
			if f[len(f)-1] != "-" {
				t.Errorf("plain row %q, want it to end with -", l)
			}
		default:
			rows--
		}
	}
	if rows != 2 {
		t.Errorf("service list shows %d of the two services:\n%s", rows, out)
	}
}
