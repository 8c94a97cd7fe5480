package tests

import (
	"encoding/json"
	"net/http"
	"slices"
	"strings"
	"testing"

	"github.com/agent-deck/agent-deck/backend"
	"github.com/agent-deck/agent-deck/backend/core"
	"github.com/agent-deck/agent-deck/tests/resttest"
)

// deckScopeEnv is one server with the Go test peer linked to two decks, "ro" and "full", and an
// agent token, driven by the CLI (admin), REST and MCP.
type deckScopeEnv struct {
	*cliEnv
	agent string
	peer  backend.ServiceCard
}

func startDeckScopeEnv(t *testing.T, peerEnv ...string) *deckScopeEnv {
	t.Helper()
	e := startCLIEnv(t)
	peer := startHTTPPeer(t, peerEnv...)
	svc, err := e.svc.CreateService(e.ctx, core.ServiceInput{Name: "peer", Type: backend.ServiceRemote, URL: peer})
	must(t, err)
	for _, deck := range []string{"ro", "full"} {
		_, err := e.svc.CreateDeck(e.ctx, core.DeckInput{Name: deck})
		must(t, err)
		_, err = e.svc.LinkCard(e.ctx, core.LinkCardInput{CardRef: core.CardRef{Deck: deck,
			CardType: backend.CardService, CardID: svc.ID}})
		must(t, err)
	}
	tok, err := e.svc.CreateToken(e.ctx, core.TokenInput{Name: "agent", Scope: backend.ScopeAgent})
	must(t, err)
	return &deckScopeEnv{cliEnv: e, agent: tok.Secret, peer: svc}
}

func (e *deckScopeEnv) rest(t *testing.T, token, method, path string, body any) resttest.Answer {
	t.Helper()
	return resttest.New(e.srv.URL(), "").Do(t, token, method, "/api/v1"+path, body)
}

// agentCall calls a peer tool with the agent token through deck.
func (e *deckScopeEnv) agentCall(t *testing.T, deck, tool string, args any) resttest.Answer {
	t.Helper()
	return e.rest(t, e.agent, http.MethodPost, "/services/peer/call",
		map[string]any{"tool_name": tool, "arguments": args, "deck": deck})
}

// TestDeckToolSubsets: a deck narrows a linked service's tools (issue 10 §1, per-deck tool
// subsets); the same service stays whole on another deck.
func TestDeckToolSubsets(t *testing.T) {
	e := startDeckScopeEnv(t)

	r := e.run("", "deck", "tools", "ro", "peer", "--allow", "echo,whoami,read_config").wantCode(t, 0)
	if !strings.Contains(r.stdout, "only echo, whoami, read_config") {
		t.Errorf("deck tools --allow did not show the rule:\n%s", r.stdout)
	}
	e.run("", "deck", "tools", "ro", "peer", "--allow", "echo,ecko").wantCode(t, 1)
	e.run("", "deck", "tools", "ro", "nope").wantCode(t, 1)

	t.Run("call refused naming the deck rule", func(t *testing.T) {
		a := e.agentCall(t, "ro", "fail", map[string]any{"message": "x"})
		code, msg, _ := a.Err()
		if a.Status != http.StatusForbidden || code != backend.CodeForbidden || !strings.Contains(msg, `deck "ro" allows only`) {
			t.Fatalf("status %d code %s: %s", a.Status, code, a.Body)
		}
		if a := e.agentCall(t, "ro", "echo", map[string]any{"message": "hi"}); a.Status != http.StatusOK {
			t.Fatalf("an allowed tool: %d %s", a.Status, a.Body)
		}
		if a := e.agentCall(t, "full", "fail", map[string]any{"message": "x"}); a.Status != http.StatusOK {
			t.Fatalf("the same tool through the other deck: %d %s", a.Status, a.Body)
		}
	})
	t.Run("list_service_tools shows the subset", func(t *testing.T) {
		var tools []core.ToolInfo
		a := e.rest(t, e.agent, http.MethodGet, "/services/peer/tools?deck=ro", nil)
		must(t, json.Unmarshal(a.Body, &tools))
		var names []string
		for _, tl := range tools {
			if tl.Enabled {
				names = append(names, tl.Name)
			}
		}
		slices.Sort(names)
		if !slices.Equal(names, []string{"echo", "read_config", "whoami"}) {
			t.Errorf("tools through ro = %v", names)
		}
	})
	t.Run("snapshot counts", func(t *testing.T) {
		for deck, want := range map[string]int{"ro": 3, "full": 0} {
			snap, err := e.svc.DeckSnapshot(e.ctx, deck)
			must(t, err)
			s := snap.Services[0]
			if s.EnabledToolCount == nil {
				t.Fatalf("%s: no tool counts yet", deck)
			}
			if deck == "full" {
				want = *s.EnabledToolCount + *s.DisabledToolCount
			}
			if *s.EnabledToolCount != want {
				t.Errorf("%s: enabled_tool_count = %d, want %d", deck, *s.EnabledToolCount, want)
			}
		}
	})
	t.Run("MCP session bound to the deck", func(t *testing.T) {
		m := dialMCP(t, e.srv.URL()+"/mcp", map[string]string{"Authorization": "Bearer " + e.agent}, "")
		m.ok("bind_workspace", map[string]any{"workspaceRoot": t.TempDir(), "deckId": "ro"}, nil)
		fe := m.fails("call_service_tool", map[string]any{"serviceId": "peer", "toolName": "write_note",
			"arguments": map[string]any{"note": "x"}})
		if fe.Code != string(backend.CodeForbidden) || !strings.Contains(fe.Message, `deck "ro" allows only`) {
			t.Errorf("call_service_tool: %+v", fe)
		}
		res := m.call("list_service_tools", map[string]any{"serviceId": "peer"})
		if txt := mcpText(res); strings.Contains(txt, "write_note") || !strings.Contains(txt, "whoami") {
			t.Errorf("list_service_tools through ro: %s", txt)
		}
		var deck map[string]any
		m.ok("get_bound_deck", map[string]any{}, &deck)
		if b, _ := json.Marshal(deck); !strings.Contains(string(b), `"enabled_tool_count":3`) {
			t.Errorf("get_bound_deck counts: %s", b)
		}
	})

	rows := []struct {
		name   string
		token  string
		body   map[string]any
		status int
	}{
		{"agent narrows the allow-list", e.agent, map[string]any{"allow_tools": []string{"echo", "whoami"}}, 200},
		{"agent may not widen the allow-list", e.agent, map[string]any{"allow_tools": []string{"echo", "fail"}}, 403},
		{"agent may not clear the rule", e.agent, map[string]any{"allow_tools": []string{}, "deny_tools": []string{}}, 403},
		{"agent may not choose a credential", e.agent, map[string]any{"credential_id": "x"}, 403},
		{"both lists at once", e.srv.AdminToken(), map[string]any{"allow_tools": []string{"echo"}, "deny_tools": []string{"fail"}}, 400},
		{"admin switches to a deny-list", e.srv.AdminToken(), map[string]any{"allow_tools": []string{}, "deny_tools": []string{"fail"}}, 200},
		{"agent denies more", e.agent, map[string]any{"deny_tools": []string{"fail", "big"}}, 200},
		{"agent may not deny less", e.agent, map[string]any{"deny_tools": []string{"big"}}, 403},
	}
	for _, row := range rows {
		t.Run("settings/"+row.name, func(t *testing.T) {
			a := e.rest(t, row.token, http.MethodPatch, "/decks/ro/services/peer/settings", row.body)
			if a.Status != row.status {
				t.Fatalf("status %d, want %d: %s", a.Status, row.status, a.Body)
			}
		})
	}
	if a := e.agentCall(t, "ro", "big", map[string]any{"bytes": 1}); a.Status != http.StatusForbidden ||
		!strings.Contains(string(a.Body), `deck \"ro\" denies`) {
		t.Errorf("a denied tool: %d %s", a.Status, a.Body)
	}
	r = e.run("", "deck", "tools", "ro", "peer", "--clear", "--json").wantCode(t, 0)
	var res core.DeckServiceSettingsResult
	must(t, json.Unmarshal([]byte(r.stdout), &res))
	if len(res.AllowTools)+len(res.DenyTools) != 0 {
		t.Errorf("--clear left %+v", res)
	}
	if a := e.agentCall(t, "ro", "big", map[string]any{"bytes": 1}); a.Status != http.StatusOK {
		t.Errorf("after --clear: %d %s", a.Status, a.Body)
	}
}

// TestDeckCredentialChoice: two decks reach one service with different credentials (issue
// 10 §1, per-deck credential choice); the peer's whoami reports the sha256 of the header it got,
// so the test sees which secret arrived on which connection.
func TestDeckCredentialChoice(t *testing.T) {
	e := startDeckScopeEnv(t)
	const work, personal = "work-secret-5b1d9e", "personal-secret-c07a44"
	for label, v := range map[string]string{"work": work, "personal": personal} {
		_, err := e.svc.CreateCredential(e.ctx, core.CredentialInput{Label: label, Value: v,
			Scheme: backend.SchemeHeader, HeaderName: "X-Api-Key", EnvName: strings.ToUpper(label) + "_KEY"})
		must(t, err)
	}
	personalID := credentialID(t, e, "personal")
	_, err := e.svc.UpdateService(e.ctx, "peer", core.ServicePatch{CredentialID: &personalID})
	must(t, err)
	r := e.run("", "deck", "credential", "full", "peer", "work").wantCode(t, 0)
	if strings.Contains(r.stdout, work) {
		t.Fatalf("the CLI printed the secret:\n%s", r.stdout)
	}

	whoami := func(deck string) string {
		t.Helper()
		a := e.agentCall(t, deck, "whoami", map[string]any{"headers": []string{"X-Api-Key", "Mcp-Session-Id"}})
		if a.Status != http.StatusOK {
			t.Fatalf("whoami through %s: %d %s", deck, a.Status, a.Body)
		}
		if strings.Contains(string(a.Body), work) || strings.Contains(string(a.Body), personal) {
			t.Fatalf("a secret came back unmasked: %s", a.Body)
		}
		return string(a.Body)
	}
	// Twice each, interleaved: each deck keeps its own downstream session (one connection per
	// service and credential), rather than one connection switching secrets back and forth.
	sessions := map[string]map[string]bool{"full": {}, "ro": {}}
	for range 2 {
		got := whoami("full")
		if !strings.Contains(got, sha256hex(work)) {
			t.Errorf("deck full did not present its own credential: %s", got)
		}
		sessions["full"][peerSession(t, got)] = true
		if got = whoami("ro"); !strings.Contains(got, sha256hex(personal)) {
			t.Errorf("deck ro did not present the service's credential: %s", got)
		}
		sessions["ro"][peerSession(t, got)] = true
	}
	if len(sessions["full"]) != 1 || len(sessions["ro"]) != 1 {
		t.Errorf("downstream sessions per deck = %v, want one each", sessions)
	}
	for id := range sessions["full"] {
		if sessions["ro"][id] {
			t.Errorf("both decks share downstream session %s", id)
		}
	}
	snap, err := e.svc.DeckSnapshot(e.ctx, "full")
	must(t, err)
	if workID := credentialID(t, e, "work"); snap.Services[0].CredentialID != workID {
		t.Errorf("snapshot credential_id = %q, want the deck's %q", snap.Services[0].CredentialID, workID)
	}

	e.run("", "deck", "credential", "full", "peer", "--clear").wantCode(t, 0)
	if got := whoami("full"); !strings.Contains(got, sha256hex(personal)) {
		t.Errorf("after --clear deck full should use the service's credential: %s", got)
	}
}

func credentialID(t *testing.T, e *deckScopeEnv, label string) string {
	t.Helper()
	c, err := e.svc.GetCredential(e.ctx, label)
	must(t, err)
	return c.ID
}

// peerSession is the downstream MCP session id whoami saw, from a call's raw result.
func peerSession(t *testing.T, body string) string {
	t.Helper()
	var res struct {
		Content []struct {
			Text string `json:"text"`
		} `json:"content"`
	}
	must(t, json.Unmarshal([]byte(body), &res))
	for _, c := range res.Content {
		var w struct {
			Headers map[string]struct {
				Value string `json:"value"`
			} `json:"headers"`
		}
		if json.Unmarshal([]byte(c.Text), &w) == nil {
			if v := w.Headers["Mcp-Session-Id"].Value; v != "" {
				return v
			}
		}
	}
	t.Fatalf("whoami reported no Mcp-Session-Id: %s", body)
	return ""
}

// TestDeckSettingsInBundle: an export carries each deck's rules for its services, and an import on
// another server restores them, the deck's credential and its sampling grants included (issue 27
// item 13: the grant was dropped).
func TestDeckSettingsInBundle(t *testing.T) {
	e := startDeckScopeEnv(t)
	_, err := e.svc.CreateCredential(e.ctx, core.CredentialInput{Label: "work", Value: "work-secret-" + randHex(6),
		Scheme: backend.SchemeHeader, HeaderName: "X-Api-Key"})
	must(t, err)
	e.run("", "deck", "tools", "ro", "peer", "--allow", "echo,whoami").wantCode(t, 0)
	e.run("", "deck", "tools", "full", "peer", "--deny", "crash").wantCode(t, 0)
	e.run("", "deck", "credential", "full", "peer", "work").wantCode(t, 0)
	e.run("", "deck", "sampling", "full", "peer", "--allow").wantCode(t, 0)

	for _, deck := range []string{"", "full"} {
		t.Run("export "+deck, func(t *testing.T) {
			bundle, err := e.svc.Export(e.ctx, core.ExportInput{Deck: deck})
			must(t, err)
			if !strings.Contains(string(bundle), `"service_settings"`) {
				t.Fatalf("the bundle lacks the deck's service settings: %s", bundle)
			}
			other := startCLIEnv(t)
			rep, err := other.svc.Import(other.ctx, bundle, false)
			must(t, err)
			if len(rep.Skipped) != 0 {
				t.Errorf("import skipped %v", rep.Skipped)
			}
			full, err := other.svc.GetDeckServiceSettings(other.ctx, "full", "peer")
			must(t, err)
			cred, err := other.svc.GetCredential(other.ctx, "work")
			must(t, err)
			if !slices.Equal(full.DenyTools, []string{"crash"}) || full.CredentialID != cred.ID {
				t.Errorf("deck full after import: %+v", full)
			}
			again, err := other.svc.Export(other.ctx, core.ExportInput{Deck: "full"})
			must(t, err)
			if !strings.Contains(string(bundle), `"sampling_allowed": true`) || !strings.Contains(string(again), `"sampling_allowed": true`) {
				t.Errorf("the sampling grant of deck full did not travel:\nexported %s\nre-exported %s", bundle, again)
			}
			if deck == "" {
				ro, err := other.svc.GetDeckServiceSettings(other.ctx, "ro", "peer")
				must(t, err)
				if !slices.Equal(ro.AllowTools, []string{"echo", "whoami"}) {
					t.Errorf("deck ro after import: %+v", ro)
				}
			}
		})
	}
}
