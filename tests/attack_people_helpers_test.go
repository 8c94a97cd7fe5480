package tests

import (
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/agent-deck/agent-deck/backend"
	"github.com/agent-deck/agent-deck/backend/core"
	"github.com/agent-deck/agent-deck/cli"
	"github.com/agent-deck/agent-deck/tests/oauthas"
)

// Attacks of one person on another's decks and cards (issue 26), for the tables of each surface.

// alicesHub is a team hub where alice owns a private deck with her own service and playbook,
// and the admin a deck shared with everyone.
func alicesHub(t *testing.T) (*teamHub, string) {
	t.Helper()
	h := startTeamHub(t, mcpStackOptions{})
	peer := startHTTPPeer(t)
	alice := h.as(h.person["alice"])
	alice.Must(t, http.StatusCreated, "POST", "/api/v1/decks", core.DeckInput{Name: "alice-private"}, nil)
	alice.Must(t, http.StatusCreated, "POST", "/api/v1/services", core.ServiceInput{Name: "alice-svc",
		Type: backend.ServiceRemote, URL: peer}, nil)
	alice.Must(t, http.StatusCreated, "POST", "/api/v1/playbooks", backend.PlaybookInput{Title: "Alice runbook", Body: "x"}, nil)
	for _, c := range []core.CardRef{{CardType: backend.CardService, CardID: "alice-svc"}, {CardType: backend.CardPlaybook, CardID: "Alice runbook"}} {
		alice.Must(t, http.StatusOK, "POST", "/api/v1/decks/alice-private/cards", c, nil)
	}
	admin := h.s.api()
	admin.Must(t, http.StatusCreated, "POST", "/api/v1/decks", core.DeckInput{Name: "team"}, nil)
	admin.Must(t, http.StatusOK, "PUT", "/api/v1/decks/team/sharing", core.DeckSharingInput{Sharing: backend.ShareEveryone}, nil)
	return h, peer
}

func attackMCPOtherPersonsDeck(t *testing.T) {
	h, _ := alicesHub(t)
	// A session asked to start on alice's deck is refused, as for a deck that does not exist.
	init := `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"x","version":"1"}}}`
	a := h.as(h.agent["bob"]).Do(t, h.agent["bob"], "POST", "/mcp", init, backend.HeaderDeckID, "alice-private",
		"Accept", "application/json, text/event-stream")
	if a.Status == http.StatusOK && !strings.Contains(string(a.Body), "NOT_FOUND") || strings.Contains(string(a.Body), "alice_runbook") {
		t.Errorf("bob opens a session on alice's deck: %d %s", a.Status, a.Body)
	}
	bob := h.s.connect(t, h.agent["bob"], nil, "")
	for _, try := range []struct {
		tool string
		args map[string]any
	}{
		{"bind_workspace", map[string]any{"workspaceRoot": "/w", "deckId": "alice-private"}},
		{"switch_bound_deck", map[string]any{"deckId": "alice-private"}},
	} {
		if e := bob.fails(try.tool, try.args); e.Code != "NOT_FOUND" && e.Code != "NOT_BOUND" {
			t.Errorf("%s on alice's deck: %+v", try.tool, e)
		}
	}
	bob.ok("bind_workspace", map[string]any{"workspaceRoot": "/w", "deckId": "team"}, nil)
	for _, try := range []struct {
		tool string
		args map[string]any
	}{
		{"get_playbook", map[string]any{"playbook_id": "pb_alice_runbook"}},
		{"list_service_tools", map[string]any{"serviceId": "alice-svc"}},
		{"call_service_tool", map[string]any{"serviceId": "alice-svc", "toolName": "echo", "arguments": map[string]any{"message": "x"}}},
		{"manage_deck_card", map[string]any{"action": "link", "card_type": "playbook", "card_id": "pb_alice_runbook"}},
		{"update_service_tool_settings", map[string]any{"service_id": "alice-svc", "disabled_tools": []string{}}},
	} {
		e := bob.fails(try.tool, try.args)
		if e.Code != "NOT_FOUND" && e.Code != "NOT_ON_BOUND_DECK" {
			t.Errorf("%s on alice's card: %+v", try.tool, e)
		}
	}
	for _, tool := range []string{"get_decks", "list_collection"} {
		if txt := mcpText(bob.call(tool, map[string]any{})); strings.Contains(txt, "alice") {
			t.Errorf("%s names alice's cards: %s", tool, txt)
		}
	}
}

func attackMCPUnsharedDeckStaysBound(t *testing.T) {
	h, _ := alicesHub(t)
	h.as(h.person["alice"]).Must(t, http.StatusOK, "PUT", "/api/v1/decks/alice-private/sharing",
		core.DeckSharingInput{Sharing: backend.SharePeople, SharedWith: []string{"bob"}}, nil)
	bob := h.s.connect(t, h.agent["bob"], nil, "")
	bob.ok("bind_workspace", map[string]any{"workspaceRoot": "/w", "deckId": "alice-private"}, nil)
	bob.ok("call_service_tool", map[string]any{"serviceId": "alice-svc", "toolName": "echo", "arguments": map[string]any{"message": "x"}}, nil)
	h.as(h.person["alice"]).Must(t, http.StatusOK, "PUT", "/api/v1/decks/alice-private/sharing",
		core.DeckSharingInput{Sharing: backend.SharePrivate}, nil)
	for tool, args := range map[string]map[string]any{
		"call_service_tool": {"serviceId": "alice-svc", "toolName": "echo", "arguments": map[string]any{"message": "x"}},
		"get_bound_deck":    {},
		"get_playbook":      {"playbook_id": "pb_alice_runbook"},
	} {
		if e := bob.fails(tool, args); e.Code != "NOT_BOUND" {
			t.Errorf("%s after alice unshared her deck: %+v", tool, e)
		}
	}
}

func attackRESTOtherPersonsDeck(t *testing.T) {
	h, _ := alicesHub(t)
	for _, tok := range []string{h.agent["bob"], h.person["bob"]} {
		bob := h.as(tok)
		for _, r := range []struct {
			method, path string
			body         any
		}{
			{"GET", "/api/v1/decks/alice-private", nil},
			{"GET", "/api/v1/decks/alice-private/snapshot", nil},
			{"PATCH", "/api/v1/decks/alice-private", core.DeckInput{Name: "bobs"}},
			{"POST", "/api/v1/decks/alice-private/cards", core.CardRef{CardType: backend.CardPlaybook, CardID: "pb_alice_runbook"}},
			{"POST", "/api/v1/decks/team/cards", core.CardRef{CardType: backend.CardService, CardID: "alice-svc"}},
			{"GET", "/api/v1/services/alice-svc", nil},
			{"PATCH", "/api/v1/services/alice-svc", map[string]any{"description": "mine now"}},
			{"POST", "/api/v1/services/alice-svc/call", core.CallInput{ToolName: "echo", Deck: "alice-private"}},
			{"GET", "/api/v1/playbooks/pb_alice_runbook", nil},
			{"PATCH", "/api/v1/playbooks/pb_alice_runbook", map[string]any{"body": "gone"}},
			{"GET", "/api/v1/playbooks/pb_alice_runbook/versions", nil},
			{"GET", "/api/v1/decks/alice-private/services/alice-svc/settings", nil},
		} {
			if a := bob.Do(t, tok, r.method, r.path, r.body); a.Status != http.StatusNotFound {
				t.Errorf("bob %s %s: %d %s, want 404", r.method, r.path, a.Status, a.Body)
			}
		}
	}
}

func attackRESTMemberOverreach(t *testing.T) {
	h, _ := alicesHub(t)
	bob := h.as(h.person["bob"])
	for _, r := range []struct {
		method, path string
		body         any
	}{
		{"PUT", "/api/v1/decks/team/sharing", core.DeckSharingInput{Sharing: backend.SharePrivate}},
		{"PUT", "/api/v1/decks/team/sharing", core.DeckSharingInput{Sharing: backend.ShareEveryone, Owner: "bob"}},
		{"DELETE", "/api/v1/decks/team", nil},
		{"POST", "/api/v1/tokens", core.TokenInput{Name: "x", Scope: backend.ScopeAgent, Person: "alice"}},
		{"POST", "/api/v1/people", core.PersonInput{Name: "mallory", Role: backend.RoleAdmin}},
		{"PATCH", "/api/v1/people/bob", map[string]any{"role": "admin"}},
		{"DELETE", "/api/v1/people/alice", nil},
		{"POST", "/api/v1/dashboard/signin-codes?person=alice", nil},
		{"GET", "/api/v1/tool-calls", nil},
		{"GET", "/api/v1/export", nil},
	} {
		if a := bob.Do(t, h.person["bob"], r.method, r.path, r.body); a.Status != http.StatusForbidden {
			t.Errorf("member bob %s %s: %d %s, want 403", r.method, r.path, a.Status, a.Body)
		}
	}
	var tokens []backend.Token
	bob.Must(t, http.StatusOK, "GET", "/api/v1/tokens", nil, &tokens)
	for _, tok := range tokens {
		if tok.Person != "bob" {
			t.Errorf("bob lists %s's token %q", tok.Person, tok.Name)
		}
	}
}

func attackDashboardOtherPersonsDeck(t *testing.T) {
	h, _ := alicesHub(t)
	bob := h.dashboard(t, "bob")
	for _, path := range []string{"/api/v1/decks/alice-private/snapshot", "/api/v1/services/alice-svc", "/api/v1/playbooks/pb_alice_runbook"} {
		if a := bob.Do(t, "", "GET", path, nil); a.Status != http.StatusNotFound {
			t.Errorf("bob's dashboard GET %s: %d %s", path, a.Status, a.Body)
		}
	}
	if a := bob.Do(t, "", "DELETE", "/api/v1/decks/alice-private", nil); a.Status != http.StatusNotFound {
		t.Errorf("bob's dashboard deletes alice's deck: %d %s", a.Status, a.Body)
	}
}

func attackCLIOtherPersonsDeck(t *testing.T) {
	h, _ := alicesHub(t)
	for _, args := range [][]string{
		{"deck", "show", "alice-private"},
		{"deck", "delete", "alice-private", "--yes"},
		{"service", "show", "alice-svc"},
		{"playbook", "show", "pb_alice_runbook"},
		{"deck", "share", "alice-private", "--everyone"},
	} {
		h.cli(t, h.person["bob"], args...).wantCode(t, 1)
	}
	for _, args := range [][]string{{"deck", "list"}, {"service", "list"}, {"playbook", "list"}} {
		if out := h.cli(t, h.person["bob"], args...).wantCode(t, 0).stdout; strings.Contains(out, "alice") {
			t.Errorf("bob's %v names alice's cards:\n%s", args, out)
		}
	}
}

// attackMCPBorrowAnotherPersonsSecret: with alice's own secret set and connected, bob (who set
// none) calls the same personal service through the same deck: he gets CREDENTIAL_MISSING, and
// nothing goes out with alice's secret for him.
func attackMCPBorrowAnotherPersonsSecret(t *testing.T) {
	h := startTeamHub(t, mcpStackOptions{})
	capture := startCaptureProxy(t, startHTTPPeer(t))
	admin := h.s.api()
	admin.Must(t, http.StatusCreated, "POST", "/api/v1/credentials", core.CredentialInput{Label: "Tracker", Value: "shared-" + randHex(6)}, nil)
	admin.Must(t, http.StatusCreated, "POST", "/api/v1/services", core.ServiceInput{Name: "tracker", Type: backend.ServiceRemote,
		URL: capture.URL, CredentialID: "cred_tracker", Personal: true}, nil)
	admin.Must(t, http.StatusCreated, "POST", "/api/v1/decks", core.DeckInput{Name: "team"}, nil)
	admin.Must(t, http.StatusOK, "POST", "/api/v1/decks/team/cards", core.CardRef{CardType: backend.CardService, CardID: "tracker"}, nil)
	admin.Must(t, http.StatusOK, "PUT", "/api/v1/decks/team/sharing", core.DeckSharingInput{Sharing: backend.ShareEveryone}, nil)
	aliceSecret := "alice-" + randHex(8)
	h.as(h.person["alice"]).Must(t, http.StatusOK, "PUT", "/api/v1/credentials/Tracker/mine", core.OwnSecretInput{Value: aliceSecret}, nil)
	echo := map[string]any{"serviceId": "tracker", "toolName": "echo", "arguments": map[string]any{"message": "x"}}
	alice := h.s.connect(t, h.agent["alice"], nil, "")
	alice.ok("bind_workspace", map[string]any{"workspaceRoot": "/w/a", "deckId": "team"}, nil)
	alice.ok("call_service_tool", echo, nil)
	capture.take()
	bob := h.s.connect(t, h.agent["bob"], nil, "")
	bob.ok("bind_workspace", map[string]any{"workspaceRoot": "/w/b", "deckId": "team"}, nil)
	for i := 0; i < 2; i++ {
		if e := bob.fails("call_service_tool", echo); e.Code != "CREDENTIAL_MISSING" {
			t.Errorf("bob's call with no secret of his own: %+v", e)
		}
	}
	if a := h.as(h.agent["bob"]).Do(t, h.agent["bob"], "POST", "/api/v1/services/tracker/call",
		core.CallInput{ToolName: "echo", Deck: "team", Arguments: []byte(`{"message":"x"}`)}); a.Status != http.StatusConflict {
		t.Errorf("bob's REST call: %d %s", a.Status, a.Body)
	}
	if got := capture.take(); len(got) != 0 {
		t.Errorf("bob's calls went out with %q (alice's secret or the shared one)", got)
	}
}

// attackOIDCForeignCallback: an attacker sends a victim's browser to the OpenID Connect
// callback with a code and state of the attacker's own sign-in (login CSRF). The browser has no
// sign-in in progress, so the callback refuses and sets no session.
func attackOIDCForeignCallback(t *testing.T) {
	users := oidcUsers{"id-x": {ID: "id-x", Username: "x", Password: "x", Email: "x@example.com", EmailVerified: true}}
	issuer, serve := startOIDCProvider(t, users)
	s := startMCPStack(t, mcpStackOptions{Serve: func(c *cli.ServeConfig) {
		c.OIDC = cli.OIDCConfig{Issuer: issuer, ClientID: "agent-deck", ClientSecret: "oidc-client-secret"}
	}})
	serve(s.URL + "/api/v1/dashboard/oidc/callback")
	noRedirect := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	for _, q := range []string{"?state=attacker-state&code=attacker-code", "?code=attacker-code", ""} {
		resp, err := noRedirect.Get(s.URL + "/api/v1/dashboard/oidc/callback" + q)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		loc := resp.Header.Get("Location")
		if resp.StatusCode != http.StatusFound || !strings.HasPrefix(loc, "/signin?error=") {
			t.Errorf("callback%s: %d to %q, want a refusal on the sign-in page", q, resp.StatusCode, loc)
		}
		for _, c := range resp.Cookies() {
			if c.Name == "agent_deck_session" && c.Value != "" {
				t.Errorf("callback%s set a dashboard session", q)
			}
		}
	}
	// A start issues a fresh state each time, bound to this browser only.
	resp, err := noRedirect.Get(s.URL + "/api/v1/dashboard/oidc/start")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusFound || !strings.HasPrefix(resp.Header.Get("Location"), issuer) {
		t.Errorf("start: %d to %q, want the provider", resp.StatusCode, resp.Header.Get("Location"))
	}
}

// attackMCPPersonalServiceLendsSharedSignIn: a service signed in once (OAuth) is made one that
// each person brings their own secret for. The service's own sign-in must then go out on
// nobody's call: with no sign-in of their own every call is refused; a connect starts only the
// caller's own sign-in, which serves no one else's calls; with a personal header credential,
// alice's call carries her header and no borrowed bearer token (the protected server answers
// 401).
func attackMCPPersonalServiceLendsSharedSignIn(t *testing.T) {
	h := startTeamHub(t, mcpStackOptions{})
	as := newOAuthService(t, oauthas.Options{})
	admin, ctx := h.s.api(), h.s.adminCtx()
	admin.Must(t, http.StatusCreated, "POST", "/api/v1/services", core.ServiceInput{Name: "notes", Type: backend.ServiceRemote,
		URL: as.MCPURL()}, nil)
	started, err := h.s.svc.ConnectService(ctx, "notes", "http://127.0.0.1:1/oauth/callback", core.OAuthConnectInput{})
	if err != nil {
		t.Fatal(err)
	}
	code, state := consentCode(t, started.AuthURL)
	if _, err := h.s.svc.FinishOAuth(ctx, state, code, ""); err != nil {
		t.Fatal(err)
	}
	admin.Must(t, http.StatusCreated, "POST", "/api/v1/decks", core.DeckInput{Name: "team"}, nil)
	admin.Must(t, http.StatusOK, "POST", "/api/v1/decks/team/cards", core.CardRef{CardType: backend.CardService, CardID: "notes"}, nil)
	admin.Must(t, http.StatusOK, "PUT", "/api/v1/decks/team/sharing", core.DeckSharingInput{Sharing: backend.ShareEveryone}, nil)
	echo := map[string]any{"serviceId": "notes", "toolName": "echo", "arguments": map[string]any{"text": "x"}}
	conn := map[string]*mcpConn{}
	for _, who := range []string{"alice", "bob"} {
		conn[who] = h.s.connect(t, h.agent[who], nil, "")
		conn[who].ok("bind_workspace", map[string]any{"workspaceRoot": "/w/" + who, "deckId": "team"}, nil)
	}
	conn["alice"].ok("call_service_tool", echo, nil) // the shared sign-in works while the service is shared

	admin.Must(t, http.StatusOK, "PATCH", "/api/v1/services/notes", core.ServicePatch{Personal: ptrTo(true)}, nil)
	for _, who := range []string{"alice", "bob"} {
		if e := conn[who].fails("call_service_tool", echo); e.Code != "DOWNSTREAM_AUTH" {
			t.Errorf("%s calls a personal service with no credential for her own secret: %+v (the shared sign-in was lent)", who, e)
		}
	}
	// The admin's connect is the admin's own sign-in now: it lends nothing to alice or bob.
	var own core.OAuthConnect
	admin.Must(t, http.StatusOK, "POST", "/api/v1/services/notes/connect", map[string]any{}, &own)
	code, state = consentCode(t, own.AuthURL)
	if _, err := h.s.svc.FinishOAuth(ctx, state, code, ""); err != nil {
		t.Fatal(err)
	}
	for _, who := range []string{"alice", "bob"} {
		if e := conn[who].fails("call_service_tool", echo); e.Code != "DOWNSTREAM_AUTH" {
			t.Errorf("%s calls after the admin signed in for themselves: %+v (the admin's sign-in was lent)", who, e)
		}
	}

	admin.Must(t, http.StatusCreated, "POST", "/api/v1/credentials", core.CredentialInput{Label: "NotesKey",
		Scheme: backend.SchemeHeader, HeaderName: "X-Notes-Key", Personal: true}, nil)
	admin.Must(t, http.StatusOK, "PATCH", "/api/v1/services/notes", core.ServicePatch{CredentialID: ptrTo("cred_noteskey")}, nil)
	h.as(h.person["alice"]).Must(t, http.StatusOK, "PUT", "/api/v1/credentials/NotesKey/mine", core.OwnSecretInput{Value: "alice-" + randHex(8)}, nil)
	refused := as.Counts().Unauthorized
	if e := conn["alice"].fails("call_service_tool", echo); e.Code != "DOWNSTREAM_AUTH" {
		t.Errorf("alice's call went through: %+v (it carried the service's bearer token, not only her header)", e)
	}
	if as.Counts().Unauthorized == refused {
		t.Error("the protected server saw no request without a bearer token from alice's call")
	}
	if e := conn["bob"].fails("call_service_tool", echo); e.Code != "CREDENTIAL_MISSING" {
		t.Errorf("bob, who set no secret: %+v", e)
	}
}

func ptrTo[T any](v T) *T { return &v }

// privateCredentialHub is a team hub where the admin keeps a credential (with a shared secret)
// on a deck of their own, and a personal credential on the same private deck: bob may use
// neither, see neither, nor set a secret of his own for either.
func privateCredentialHub(t *testing.T) (*teamHub, []string) {
	t.Helper()
	h := startTeamHub(t, mcpStackOptions{})
	admin := h.s.api()
	var shared, personal backend.Credential
	admin.Must(t, http.StatusCreated, "POST", "/api/v1/credentials", core.CredentialInput{Label: "Payroll key", Value: "payroll-" + randHex(8),
		EnvName: "PAYROLL_KEY"}, &shared)
	admin.Must(t, http.StatusCreated, "POST", "/api/v1/credentials", core.CredentialInput{Label: "Payroll login", Personal: true,
		EnvName: "PAYROLL_LOGIN"}, &personal)
	admin.Must(t, http.StatusCreated, "POST", "/api/v1/decks", core.DeckInput{Name: "payroll"}, nil)
	for _, id := range []string{shared.ID, personal.ID} {
		admin.Must(t, http.StatusOK, "POST", "/api/v1/decks/payroll/cards", core.CardRef{CardType: backend.CardCredential, CardID: id}, nil)
	}
	admin.Must(t, http.StatusCreated, "POST", "/api/v1/decks", core.DeckInput{Name: "team"}, nil)
	admin.Must(t, http.StatusOK, "PUT", "/api/v1/decks/team/sharing", core.DeckSharingInput{Sharing: backend.ShareEveryone}, nil)
	return h, []string{shared.ID, personal.ID, "Payroll key", "Payroll login", "PAYROLL_KEY", "PAYROLL_LOGIN"}
}

// attackRESTOtherPersonsCredential: bob's tokens read, list, use for exec, or set a secret of
// his own for credentials on a deck he may not use.
func attackRESTOtherPersonsCredential(t *testing.T) {
	h, hidden := privateCredentialHub(t)
	for _, tok := range []string{h.agent["bob"], h.person["bob"]} {
		bob := h.as(tok)
		var creds []backend.Credential
		bob.Must(t, http.StatusOK, "GET", "/api/v1/credentials", nil, &creds)
		if len(creds) != 0 {
			t.Errorf("bob lists %+v", creds)
		}
		for _, ref := range hidden[:4] {
			p := "/api/v1/credentials/" + url.PathEscape(ref)
			for _, r := range []struct {
				method, path string
				body         any
			}{{"GET", p, nil}, {"PUT", p + "/mine", core.OwnSecretInput{Value: "bob-" + randHex(4)}}, {"DELETE", p + "/mine", nil}} {
				want := http.StatusNotFound
				if tok == h.agent["bob"] && r.method != "GET" {
					want = http.StatusForbidden // a person's own surface: agent tokens never set secrets
				}
				if a := bob.Do(t, tok, r.method, r.path, r.body); a.Status != want {
					t.Errorf("bob %s %s: %d %s, want %d", r.method, r.path, a.Status, a.Body, want)
				}
			}
		}
		if a := bob.Do(t, tok, "POST", "/api/v1/exec", core.ExecInput{CredentialIDs: hidden[:1], Command: []string{"env"}}); a.Status != http.StatusForbidden {
			t.Errorf("bob resolves the admin's credential for exec: %d %s", a.Status, a.Body)
		}
		noneOf(t, "bob's REST answers", bob.Bodies(), hidden[4:])
	}
}

// attackMCPOtherPersonsCredential: bob's agent sees no credential of a deck he may not use in
// the collection, and binding that deck is refused.
func attackMCPOtherPersonsCredential(t *testing.T) {
	h, hidden := privateCredentialHub(t)
	// The admin's own agent reads them: what bob must not.
	own := h.s.connect(t, h.agent["admin"], nil, "")
	if s := mcpText(own.call("list_collection", map[string]any{"card_type": "credential"})); !strings.Contains(s, "PAYROLL_KEY") {
		t.Fatalf("the admin's agent does not see the credential either: %s", s)
	}
	bob := h.s.connect(t, h.agent["bob"], nil, "")
	if e := bob.fails("bind_workspace", map[string]any{"workspaceRoot": "/w/b", "deckId": "payroll"}); e.Code != "NOT_FOUND" {
		t.Errorf("bob binds the admin's deck: %+v", e)
	}
	bob.ok("bind_workspace", map[string]any{"workspaceRoot": "/w/b", "deckId": "team"}, nil)
	var texts []string
	for _, tool := range []string{"list_collection", "get_bound_deck"} {
		texts = append(texts, mcpText(bob.call(tool, map[string]any{})))
	}
	texts = append(texts, mcpText(bob.call("list_collection", map[string]any{"card_type": "credential"})))
	for _, ref := range hidden {
		if e := bob.fails("manage_deck_card", map[string]any{"action": "link", "card_type": "credential", "card_id": ref}); e.Code != "NOT_FOUND" {
			t.Errorf("bob links the admin's credential %q to the team deck: %+v", ref, e)
		}
	}
	for _, s := range texts {
		for _, w := range hidden {
			if strings.Contains(s, w) {
				t.Errorf("bob's agent reads %q: %s", w, s)
			}
		}
	}
}

// attackCLIOtherPersonsCredential: bob's CLI lists, shows, or sets his own secret for a
// credential on a deck he may not use.
func attackCLIOtherPersonsCredential(t *testing.T) {
	h, hidden := privateCredentialHub(t)
	list := h.cli(t, h.person["bob"], "credential", "list").wantCode(t, 0)
	show := h.cli(t, h.person["bob"], "credential", "show", hidden[0]).wantCode(t, 1)
	set := runCLI(t.TempDir(), strings.NewReader("bob-secret\n"), "--server", h.s.URL, "--token", h.person["bob"],
		"credential", "set-mine", hidden[1]).wantCode(t, 1)
	for _, r := range []cliResult{list, show, set} {
		for _, w := range hidden[2:] {
			if strings.Contains(r.stdout+r.stderr, w) {
				t.Errorf("bob's CLI names %q: %s %s", w, r.stdout, r.stderr)
			}
		}
	}
}

// attackMCPBorrowAnotherPersonsSignIn: on a service that takes each person's own sign-in, alice
// has signed in and her connection is warm; bob, who has not, calls the service on the same
// deck (MCP and REST) and lists its tools: each is refused with DOWNSTREAM_AUTH naming the
// command, and nothing reaches the service with alice's token for him.
func attackMCPBorrowAnotherPersonsSignIn(t *testing.T) {
	h := startPersonalOAuthHub(t)
	h.signInByDashboard(t, "alice", "alice@downstream")
	h.callAs(t, "alice", "alice@downstream")
	for i := 0; i < 2; i++ {
		e := h.sessions["bob"].fails("call_service_tool", notesEcho)
		if e.Code != "DOWNSTREAM_AUTH" || !strings.Contains(e.Hint, "agent-deck service connect notes") {
			t.Errorf("bob's call with no sign-in of his own: %+v", e)
		}
	}
	if e := h.sessions["bob"].fails("list_service_tools", map[string]any{"serviceId": "notes"}); e.Code != "DOWNSTREAM_AUTH" {
		t.Errorf("bob lists the tools with no sign-in of his own: %+v", e)
	}
	a := h.as(h.agent["bob"]).Do(t, h.agent["bob"], "POST", "/api/v1/services/notes/call",
		core.CallInput{ToolName: "echo", Deck: "team", Arguments: []byte(`{"text":"x"}`)})
	if code, _, _ := a.Err(); code != backend.CodeDownstreamAuth {
		t.Errorf("bob's REST call: %d %s", a.Status, a.Body)
	}
	if got := h.ds.TakeUsers(); len(got) != 0 {
		t.Errorf("bob's calls reached the service as %q", got)
	}
	h.callAs(t, "alice", "alice@downstream")
}

// attackRESTOverwriteAnotherPersonsSignIn: on a service that takes each person's own sign-in,
// bob signs in (as another downstream user) after alice, then disconnects, and the admin
// disconnects too: alice's sign-in stays hers and connected, her calls keep going out with her
// own token, and bob's agent token may not start a sign-in at all.
func attackRESTOverwriteAnotherPersonsSignIn(t *testing.T) {
	h := startPersonalOAuthHub(t)
	h.signInByCLI(t, "alice", "alice@downstream")
	var started core.OAuthConnect
	h.as(h.person["bob"]).Must(t, http.StatusOK, "POST", "/api/v1/services/notes/connect", map[string]any{}, &started)
	browse(t, oauthas.AsUser(started.AuthURL, "mallory@downstream"))
	h.callAs(t, "alice", "alice@downstream")
	h.callAs(t, "bob", "mallory@downstream")
	if a := h.as(h.agent["bob"]).Do(t, h.agent["bob"], "POST", "/api/v1/services/notes/connect", map[string]any{}); a.Status != http.StatusForbidden {
		t.Errorf("bob's agent token starts a sign-in: %d %s", a.Status, a.Body)
	}
	for _, who := range []string{"bob", "admin"} {
		h.as(h.person[who]).Must(t, http.StatusNoContent, "POST", "/api/v1/services/notes/disconnect", nil, nil)
	}
	if st := h.ownSignInStatus(t, "alice"); st.State != backend.OAuthStateConnected {
		t.Errorf("alice's sign-in after bob's and the admin's disconnects: %+v", st)
	}
	h.callAs(t, "alice", "alice@downstream")
	if e := h.sessions["bob"].fails("call_service_tool", notesEcho); e.Code != "DOWNSTREAM_AUTH" {
		t.Errorf("bob's call after his disconnect: %+v", e)
	}
}
