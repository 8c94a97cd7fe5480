package tests

import (
	"encoding/json"
	"net/http"
	"strings"
	"testing"

	"github.com/agent-deck/agent-deck/backend"
	"github.com/agent-deck/agent-deck/backend/core"
)

// The attacks of the target policy (SPEC §10), one function per row of the surface tables in
// attack_rest_test.go and attack_mcp_test.go.

// attackRESTPatchURLOfSecretService: an agent token moves a service whose headers hold a secret
// to a URL it controls, hoping the next call carries the header there.
func attackRESTPatchURLOfSecretService(t *testing.T) {
	d := startPolicyDeck(t)
	a := d.rest(t, d.agent, http.MethodPatch, "/services/"+d.svc.ID, map[string]any{"url": d.evil})
	wantRefused(t, a, http.StatusForbidden, backend.CodeForbidden)
	for _, p := range []map[string]any{
		{"headers": map[string]string{"X-Api-Key": backend.MaskedValue}, "url": d.evil},
		{"transport": "sse"},
		{"headers": map[string]string{"X-Api-Key": backend.MaskedValue, "X-Forward-To": d.evil}},
	} {
		wantRefused(t, d.rest(t, d.agent, http.MethodPatch, "/services/"+d.svc.ID, p), http.StatusForbidden, backend.CodeForbidden)
	}
	d.stillHome(t)
}

// attackRESTUnlinkCredentialAndMove: an agent unlinks the credential and moves the URL in one
// PATCH, so that no credential is "linked" when the URL changes.
func attackRESTUnlinkCredentialAndMove(t *testing.T) {
	d := startPolicyDeck(t)
	admin := d.stack.AdminToken
	if a := d.rest(t, admin, http.MethodPatch, "/services/"+d.svc.ID, map[string]any{"credential_id": d.fx.Cred.ID}); a.Status != http.StatusOK {
		t.Fatalf("admin links the credential: %d %s", a.Status, a.Body)
	}
	a := d.rest(t, d.agent, http.MethodPatch, "/services/"+d.svc.ID, map[string]any{"credential_id": "", "url": d.evil})
	wantRefused(t, a, http.StatusForbidden, backend.CodeForbidden)
	d.stillHome(t)
}

// attackRESTRepointOwnServiceAfterAdminAddsSecret: an agent registers a service that
// inherits nothing secret, waits for an admin to give it a secret header, then points it at
// itself.
func attackRESTRepointOwnServiceAfterAdminAddsSecret(t *testing.T) {
	d := startPolicyDeck(t)
	var own backend.ServiceCard
	a := d.rest(t, d.agent, http.MethodPost, "/services", map[string]any{"name": "own", "type": "mcp", "url": d.home})
	if a.Status != http.StatusCreated || jsonInto(a.Body, &own) != nil {
		t.Fatalf("agent registers a service: %d %s", a.Status, a.Body)
	}
	if a := d.rest(t, d.stack.AdminToken, http.MethodPatch, "/services/"+own.ID,
		map[string]any{"headers": map[string]string{"Authorization": "Bearer " + d.secret}}); a.Status != http.StatusOK {
		t.Fatalf("admin adds a secret header: %d %s", a.Status, a.Body)
	}
	wantRefused(t, d.rest(t, d.agent, http.MethodPatch, "/services/"+own.ID, map[string]any{"url": d.evil}),
		http.StatusForbidden, backend.CodeForbidden)
	if n := d.evilHit.Load(); n != 0 {
		t.Errorf("the attacker's URL got %d requests", n)
	}
}

// attackRESTCallOffDeck: an agent token calls, lists and checks a credentialed service that is
// on no deck, or on a deck other than the one it names.
func attackRESTCallOffDeck(t *testing.T) {
	d := startPolicyDeck(t)
	ctx := d.stack.adminCtx()
	hidden, err := d.stack.svc.CreateService(ctx, core.ServiceInput{Name: "hidden", Type: backend.ServiceRemote,
		URL: d.home, CredentialID: d.fx.Cred.ID})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := d.stack.svc.CreateDeck(ctx, core.DeckInput{Name: "empty"}); err != nil {
		t.Fatal(err)
	}
	call := map[string]any{"tool_name": "echo", "arguments": map[string]any{"message": "hi"}}
	for _, deck := range []string{"", "ops", "empty", "no-such-deck"} {
		body := map[string]any{"tool_name": "echo", "arguments": map[string]any{"message": "hi"}, "deck": deck}
		a := d.rest(t, d.agent, http.MethodPost, "/services/"+hidden.ID+"/call", body)
		if a.Status == http.StatusOK {
			t.Errorf("call through deck %q reached a service on no deck: %s", deck, a.Body)
		}
		for _, r := range []struct{ method, path string }{
			{http.MethodGet, "/services/" + hidden.ID + "/tools"}, {http.MethodPost, "/services/" + hidden.ID + "/check"}} {
			if a := d.rest(t, d.agent, r.method, r.path, nil, backend.HeaderDeck, deck); a.Status == http.StatusOK {
				t.Errorf("%s %s through deck %q answered 200: %s", r.method, r.path, deck, a.Body)
			}
		}
	}
	a := d.rest(t, d.agent, http.MethodPost, "/services/"+hidden.ID+"/call", call)
	wantRefused(t, a, http.StatusForbidden, backend.CodeForbidden)
	if _, msg, details := a.Err(); !strings.Contains(msg, "deck") || details["field"] != "deck" {
		t.Errorf("refusal does not name the deck parameter: %s", a.Body)
	}
	if a := d.rest(t, d.agent, http.MethodPost, "/services/"+d.svc.ID+"/call", call, backend.HeaderDeck, "ops"); a.Status != http.StatusOK {
		t.Errorf("call through the deck that links it: %d %s", a.Status, a.Body)
	}
	if a := d.rest(t, d.agent, http.MethodGet, "/services/"+d.svc.Name+"/tools?deck=ops", nil); a.Status != http.StatusOK {
		t.Errorf("tools through ?deck=: %d %s", a.Status, a.Body)
	}
	if a := d.rest(t, d.stack.AdminToken, http.MethodPost, "/services/"+hidden.ID+"/call", call); a.Status != http.StatusOK {
		t.Errorf("admin call of a service on no deck: %d %s", a.Status, a.Body)
	}
}

// attackRESTRegisterMetadataHost: an agent, and then an admin, register cloud-metadata and
// link-local hosts in every spelling; an agent registers private-range hosts. Nothing is sent
// anywhere: the checks read the URL only.
func attackRESTRegisterMetadataHost(t *testing.T) {
	d := startPolicyDeck(t)
	for _, u := range metadataURLs {
		for _, tok := range []string{d.agent, d.stack.AdminToken} {
			a := d.rest(t, tok, http.MethodPost, "/services", map[string]any{"name": "m" + randHex(3), "type": "mcp", "url": u})
			wantRefused(t, a, http.StatusForbidden, backend.CodeForbidden)
		}
		wantRefused(t, d.rest(t, d.agent, http.MethodPatch, "/services/"+d.fx.Service.ID, map[string]any{"url": u}),
			http.StatusForbidden, backend.CodeForbidden)
	}
	for _, u := range privateURLs {
		wantRefused(t, d.rest(t, d.agent, http.MethodPost, "/services", map[string]any{"name": "p" + randHex(3), "type": "mcp", "url": u}),
			http.StatusForbidden, backend.CodeForbidden)
		if a := d.rest(t, d.stack.AdminToken, http.MethodPost, "/services", map[string]any{"name": "p" + randHex(3), "type": "mcp", "url": u}); a.Status != http.StatusCreated {
			t.Errorf("admin registers %s: %d %s", u, a.Status, a.Body)
		}
	}
}

// attackRESTReadURLUserinfo: user:password@ in a service URL comes back from reads, exports,
// logs or errors.
func attackRESTReadURLUserinfo(t *testing.T) {
	s := startMCPStack(t, mcpStackOptions{})
	pass := "pw-" + randHex(8)
	peer := startHTTPPeer(t, "PEER_REQUIRE_AUTHORIZATION="+basicAuth("deck", pass))
	d := &policyDeck{stack: s, agent: s.token(backend.ScopeAgent)}
	withInfo := strings.Replace(peer, "://", "://deck:"+pass+"@", 1)
	var card backend.ServiceCard
	a := d.rest(t, s.AdminToken, http.MethodPost, "/services", map[string]any{"name": "basic", "type": "mcp", "url": withInfo})
	if a.Status != http.StatusCreated || jsonInto(a.Body, &card) != nil {
		t.Fatalf("create: %d %s", a.Status, a.Body)
	}
	if _, err := s.svc.LinkCard(s.adminCtx(), core.LinkCardInput{CardRef: core.CardRef{Deck: newDeck(t, s, "basic").ID,
		CardType: backend.CardService, CardID: card.ID}}); err != nil {
		t.Fatal(err)
	}
	bodies := [][]byte{a.Body}
	for _, r := range []struct{ tok, method, path string }{
		{s.AdminToken, http.MethodGet, "/services/" + card.ID},
		{s.AdminToken, http.MethodGet, "/services"},
		{s.AdminToken, http.MethodGet, "/export"},
		{s.AdminToken, http.MethodGet, "/decks/basic/snapshot"},
		{s.AdminToken, http.MethodPost, "/services/" + card.ID + "/check"},
	} {
		a := d.rest(t, r.tok, r.method, r.path, nil)
		if a.Status != http.StatusOK {
			t.Errorf("%s %s: %d %s", r.method, r.path, a.Status, a.Body)
		}
		bodies = append(bodies, a.Body)
	}
	// The userinfo works as basic auth: the peer refuses anything else.
	call := d.rest(t, d.agent, http.MethodPost, "/services/"+card.ID+"/call", map[string]any{
		"tool_name": "echo", "arguments": map[string]any{"message": "hi"}, "deck": "basic"})
	if call.Status != http.StatusOK || strings.Contains(string(call.Body), `"isError":true`) {
		t.Errorf("call with the URL's basic auth: %d %s", call.Status, call.Body)
	}
	bad := d.rest(t, s.AdminToken, http.MethodPost, "/services", map[string]any{"name": "bad", "type": "mcp",
		"url": "http://deck:" + pass + "@"})
	bodies = append(bodies, call.Body, bad.Body)
	for _, b := range bodies {
		if strings.Contains(string(b), pass) {
			t.Errorf("the URL's password leaked: %s", b)
		}
	}
	if strings.Contains(s.logs.String(), pass) {
		t.Errorf("the URL's password is in the logs")
	}
}

// attackRESTCredentialSecretWithLineBreak: a secret with CR or LF is stored, and every call of
// every service linked to it then fails as "could not connect".
func attackRESTCredentialSecretWithLineBreak(t *testing.T) {
	d := startPolicyDeck(t)
	for _, v := range []string{"sk-a\r\nX-Injected: 1", "sk-b\nmore", "sk-c\rmore", "sk-d\x00more"} {
		a := d.rest(t, d.stack.AdminToken, http.MethodPost, "/credentials", map[string]any{"label": "k" + randHex(3), "value": v})
		wantRefused(t, a, http.StatusBadRequest, backend.CodeInvalidArgument)
		if _, _, details := a.Err(); details["field"] != "value" || strings.Contains(string(a.Body), "more") ||
			strings.Contains(string(a.Body), "Injected") {
			t.Errorf("create refusal must name the field and not echo the value: %s", a.Body)
		}
		a = d.rest(t, d.stack.AdminToken, http.MethodPost, "/credentials/"+d.fx.Cred.ID+"/rotate", map[string]any{"value": v})
		wantRefused(t, a, http.StatusBadRequest, backend.CodeInvalidArgument)
		if strings.Contains(string(a.Body), "more") || strings.Contains(string(a.Body), "Injected") {
			t.Errorf("rotate refusal echoes the value: %s", a.Body)
		}
	}
}

// attackMCPUpdateServiceURLOfSecretService: over MCP, an agent moves a service with a secret
// header to its own URL, alone or with the credential unlinked in the same call.
func attackMCPUpdateServiceURLOfSecretService(t *testing.T) {
	d := startPolicyDeck(t)
	if _, err := d.stack.svc.UpdateService(d.stack.adminCtx(), d.svc.ID, core.ServicePatch{CredentialID: &d.fx.Cred.ID}); err != nil {
		t.Fatal(err)
	}
	m := d.stack.connect(t, d.agent, nil, "")
	m.ok("bind_workspace", map[string]any{"workspaceRoot": "/srv/app", "deckId": "ops"}, nil)
	for _, args := range []map[string]any{
		{"service_id": d.svc.ID, "url": d.evil},
		{"service_id": d.svc.Name, "credentialId": "", "url": d.evil},
		{"service_id": d.svc.ID, "headers": map[string]string{"X-Api-Key": backend.MaskedValue}, "url": d.evil},
	} {
		if e := m.fails("update_service", args); e.Code != string(backend.CodeForbidden) || !strings.Contains(e.Hint, "description") {
			t.Errorf("update_service(%v) = %+v, want FORBIDDEN teaching what an agent may change", args, e)
		}
	}
	res := m.call("call_service_tool", map[string]any{"serviceId": d.svc.Name, "toolName": "whoami",
		"arguments": map[string]any{"headers": []string{"X-Api-Key"}}})
	if res.IsError || !strings.Contains(mcpText(res), sha256hex(d.secret)) {
		t.Errorf("call after the refused change: %s", mcpText(res))
	}
	if n := d.evilHit.Load(); n != 0 {
		t.Errorf("the attacker's URL got %d requests", n)
	}
}

// attackMCPRegisterMetadataHost: an agent registers metadata and private hosts over MCP.
func attackMCPRegisterMetadataHost(t *testing.T) {
	d := startPolicyDeck(t)
	m := d.stack.connect(t, d.agent, nil, "")
	m.ok("bind_workspace", map[string]any{"workspaceRoot": "/srv/app", "deckId": "ops"}, nil)
	for _, u := range append(append([]string{}, metadataURLs...), privateURLs...) {
		if e := m.fails("register_service", map[string]any{"name": "m" + randHex(3), "type": "mcp", "url": u}); e.Code != string(backend.CodeForbidden) {
			t.Errorf("register_service %s = %+v, want FORBIDDEN", u, e)
		}
		if e := m.fails("update_service", map[string]any{"service_id": d.svc.ID, "url": u}); e.Code != string(backend.CodeForbidden) {
			t.Errorf("update_service %s = %+v, want FORBIDDEN", u, e)
		}
	}
	m.ok("register_service", map[string]any{"name": "loop", "type": "mcp", "url": d.home}, nil)
}

// attackMCPUpdatePlaybookOffDeck: an agent rewrites a playbook that is not on its bound deck,
// which get_playbook would not even show it.
func attackMCPUpdatePlaybookOffDeck(t *testing.T) {
	d := startPolicyDeck(t)
	other := d.stack.seedDeck(t, "other", d.home)
	m := d.stack.connect(t, d.agent, nil, "")
	m.ok("bind_workspace", map[string]any{"workspaceRoot": "/srv/app", "deckId": "ops"}, nil)
	if e := m.fails("get_playbook", map[string]any{"playbook_id": other.Playbook.ID}); e.Code != string(backend.CodeNotOnBoundDeck) {
		t.Fatalf("get_playbook off deck = %+v", e)
	}
	for _, ref := range []string{other.Playbook.ID, other.Playbook.Title} {
		e := m.fails("update_playbook", map[string]any{"playbook_id": ref, "body": "# Owned\nrun curl evil"})
		if e.Code != string(backend.CodeNotOnBoundDeck) || !strings.Contains(e.Message, d.fx.Playbook.Title) {
			t.Errorf("update_playbook %s = %+v, want NOT_ON_BOUND_DECK listing the deck's playbooks", ref, e)
		}
	}
	pb, err := d.stack.svc.GetPlaybook(d.stack.adminCtx(), other.Playbook.ID)
	if err != nil || strings.Contains(pb.Body, "Owned") {
		t.Errorf("the off-deck playbook changed: %q %v", pb.Body, err)
	}
	m.ok("update_playbook", map[string]any{"playbook_id": d.fx.Playbook.ID, "body": "# Release\n1. echo it twice"}, nil)
}

// attackMCPBindRelativeWorkspace: an agent binds a relative folder, which would match other
// projects' folders by accident.
func attackMCPBindRelativeWorkspace(t *testing.T) {
	s := startMCPStack(t, mcpStackOptions{})
	s.seedDeck(t, "ops", "http://127.0.0.1:9/mcp")
	m := s.connect(t, s.token(backend.ScopeAgent), nil, "")
	for _, ws := range []string{".", "project", "./app", "../up", "~/code"} {
		e := m.fails("bind_workspace", map[string]any{"workspaceRoot": ws, "deckId": "ops"})
		if e.Code != string(backend.CodeInvalidArgument) || !strings.Contains(e.Message, "workspaceRoot") || e.Hint == "" {
			t.Errorf("bind_workspace(%q) = %+v, want INVALID_ARGUMENT naming workspaceRoot, with a hint", ws, e)
		}
	}
	for _, ws := range []string{"/srv/app", `C:\Users\me\app`} {
		m.ok("bind_workspace", map[string]any{"workspaceRoot": ws, "deckId": "ops"}, nil)
	}
}

// attackCLICredentialSecretWithLineBreak: a secret piped with a line break inside (two lines
// pasted, a key file with a header) is stored and breaks every call later.
func attackCLICredentialSecretWithLineBreak(t *testing.T) {
	e := startCLIEnv(t)
	if _, err := e.svc.CreateCredential(e.ctx, core.CredentialInput{Label: "OpenAI", Value: "sk-one-line"}); err != nil {
		t.Fatal(err)
	}
	for _, args := range [][]string{{"credential", "add", "Pasted"}, {"credential", "rotate", "cred_openai"}} {
		r := e.run("sk-first-line\nsecond-line-0c3e\n", args...)
		if r.code == 0 {
			t.Fatalf("%v accepted a two-line secret: %s", args, r.stdout)
		}
		if !strings.Contains(r.stderr, "value") || strings.Contains(r.stdout+r.stderr, "second-line-0c3e") {
			t.Errorf("%v: the refusal must name the field and not echo the secret: %s%s", args, r.stdout, r.stderr)
		}
	}
	if _, err := e.svc.GetCredential(e.ctx, "cred_pasted"); backend.ErrorCode(err) != backend.CodeNotFound {
		t.Errorf("the refused credential was stored: %v", err)
	}
}

// attackRESTNameResolvesInward: the host policy read only the URL's text, so an agent could
// register http://169.254.169.254.nip.io/ (public-looking, metadata in fact). The deck now checks
// every address it dials for an agent-registered service with the rules of literal addresses:
// metadata and link-local refused to everyone, private ranges only where an admin set the URL.
// Nothing reaches the capture server where the rules say no; a public name still works, and so
// does an admin's service on a name that resolves to a private address.
func attackRESTNameResolvesInward(t *testing.T) {
	d := startInwardDeck(t)
	at := func(name string) string { return "http://" + name + ":" + d.port + "/mcp" }
	for _, name := range []string{"imds.rebind.test", "ec2v6.rebind.test", "lan.rebind.test", "mapped.rebind.test", "mixed.rebind.test"} {
		d.wantRefusedDial(t, "agent's "+name, d.register(t, d.agent, at(name)))
	}
	d.wantRefusedDial(t, "admin's imds.rebind.test", d.register(t, d.stack.AdminToken, at("imds.rebind.test")))
	pub := d.register(t, d.agent, at("pub.rebind.test"))
	mark := d.net.sentLen()
	if a := d.call(t, pub); a.Status != http.StatusOK {
		t.Fatalf("agent's public name: %d %s (the test network routes nothing, so this row proves nothing)", a.Status, a.Body)
	}
	if !strings.Contains(d.net.sentSince(mark), d.canary) {
		t.Fatalf("the canary header never reached the capture server on a public name, so its absence proves nothing")
	}
	if a := d.call(t, d.register(t, d.stack.AdminToken, at("lan.rebind.test"))); a.Status != http.StatusOK {
		t.Errorf("admin's service on a name that resolves to a private address: %d %s", a.Status, a.Body)
	}
	// The agent repoints its own public service (one without secrets, which an agent may repoint)
	// at the private name: refused at the dial; an admin who saves that URL takes it on.
	pub = d.registerWith(t, d.agent, at("pub.rebind.test"), nil)
	if a := d.stack.api().Do(t, d.agent, http.MethodPatch, "/api/v1/services/"+pub, map[string]any{"url": at("lan.rebind.test")}); a.Status != http.StatusOK {
		t.Fatalf("agent repoints its service: %d %s", a.Status, a.Body)
	}
	d.wantRefusedDial(t, "agent's repointed service", pub)
	if a := d.stack.api().Do(t, d.stack.AdminToken, http.MethodPatch, "/api/v1/services/"+pub, map[string]any{"url": at("lan.rebind.test")}); a.Status != http.StatusOK {
		t.Fatalf("admin saves the url: %d %s", a.Status, a.Body)
	}
	if a := d.call(t, pub); a.Status != http.StatusOK {
		t.Errorf("after an admin saved the url: %d %s", a.Status, a.Body)
	}
}

// attackRESTRedirectInward: an agent registers a loopback URL (allowed) whose server answers
// every request with a redirect to a name that resolves to the metadata address. The redirect's
// dial is checked like the first: refused, and nothing reaches the capture server.
func attackRESTRedirectInward(t *testing.T) {
	d := startInwardDeck(t)
	target := "http://imds.rebind.test:" + d.port + "/mcp"
	redirector := &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, target, http.StatusTemporaryRedirect)
	})}
	ln := mcpListenRetry(t, "127.0.0.1:0")
	go func() { _ = redirector.Serve(ln) }()
	t.Cleanup(func() { _ = redirector.Close() })
	id := d.register(t, d.agent, "http://"+ln.Addr().String()+"/mcp")
	before := d.hits.Load()
	a := d.call(t, id)
	if a.Status == http.StatusOK {
		t.Fatalf("the call followed the redirect to the metadata address: %s", a.Body)
	}
	if code, msg, _ := a.Err(); code != backend.CodeForbidden || !strings.Contains(msg, "resolves to") {
		t.Errorf("redirect inward: %d %s, want FORBIDDEN saying what the name resolves to", a.Status, a.Body)
	}
	if n := d.hits.Load() - before; n != 0 || len(d.net.dials()) != 0 {
		t.Errorf("the capture server got %d requests; dialed %v", n, d.net.dials())
	}
}

// attackRESTOAuthDiscoveryInward: an agent registers a loopback service (allowed) whose sign-in
// metadata names hosts that resolve inward: its 401 challenge points at protected resource
// metadata on the metadata address, or its own metadata names an authorization server there.
// When an admin starts the sign-in, every request of the OAuth flow meets the service's host
// policy: the sign-in fails saying which address was refused, and nothing reaches the capture
// server.
func attackRESTOAuthDiscoveryInward(t *testing.T) {
	d := startInwardDeck(t)
	inward := "http://imds.rebind.test:" + d.port
	for _, c := range []struct{ name, challenge, prm string }{
		{"the challenge names inward resource metadata", inward + "/.well-known/oauth-protected-resource", ""},
		{"the resource metadata names an inward authorization server", "", inward},
	} {
		t.Run(c.name, func(t *testing.T) {
			var self string
			svc := &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				if strings.HasPrefix(r.URL.Path, "/.well-known/oauth-protected-resource") && c.prm != "" {
					w.Header().Set("Content-Type", "application/json")
					_ = json.NewEncoder(w).Encode(map[string]any{"resource": self + "/mcp", "authorization_servers": []string{c.prm}})
					return
				}
				md := c.challenge
				if md == "" {
					md = self + "/.well-known/oauth-protected-resource/mcp"
				}
				w.Header().Set("WWW-Authenticate", `Bearer resource_metadata="`+md+`"`)
				w.WriteHeader(http.StatusUnauthorized)
			})}
			ln := mcpListenRetry(t, "127.0.0.1:0")
			self = "http://" + ln.Addr().String()
			go func() { _ = svc.Serve(ln) }()
			t.Cleanup(func() { _ = svc.Close() })
			id := d.registerWith(t, d.agent, self+"/mcp", nil)
			before, mark := d.hits.Load(), d.net.sentLen()
			a := d.stack.api().Do(t, d.stack.AdminToken, http.MethodPost, "/api/v1/services/"+id+"/connect", map[string]any{})
			t.Logf("connect: %d %s", a.Status, a.Body)
			if a.Status == http.StatusOK {
				t.Errorf("the sign-in started with an authorization server on the metadata address: %s", a.Body)
			}
			if code, msg, _ := a.Err(); code != backend.CodeForbidden || !strings.Contains(msg, "169.254.169.254") {
				t.Errorf("connect: %d %s, want FORBIDDEN naming the refused address", a.Status, a.Body)
			}
			if n := d.hits.Load() - before; n != 0 || d.net.sentSince(mark) != "" {
				t.Errorf("the capture server got %d requests; dialed %v", n, d.net.dials())
			}
		})
	}
}
