package tests

import (
	"context"
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/mcp"

	"github.com/agent-deck/agent-deck/backend"
	"github.com/agent-deck/agent-deck/backend/core"
)

// credentialChoiceEnv is the deck-scope env with two header credentials: the service presents
// "personal" by default and deck "full" chose "work".
func credentialChoiceEnv(t *testing.T) (e *deckScopeEnv, work, personal string) {
	t.Helper()
	e = startDeckScopeEnv(t)
	work, personal = "work-secret-"+randHex(6), "personal-secret-"+randHex(6)
	for label, v := range map[string]string{"work": work, "personal": personal} {
		_, err := e.svc.CreateCredential(e.ctx, core.CredentialInput{Label: label, Value: v,
			Scheme: backend.SchemeHeader, HeaderName: "X-Api-Key", EnvName: strings.ToUpper(label) + "_KEY"})
		must(t, err)
	}
	personalID := credentialID(t, e, "personal")
	_, err := e.svc.UpdateService(e.ctx, "peer", core.ServicePatch{CredentialID: &personalID})
	must(t, err)
	e.run("", "deck", "credential", "full", "peer", "work").wantCode(t, 0)
	return e, work, personal
}

// attackRESTChooseDeckCredential: an agent token tries to make a deck present another
// credential to a service (so a secret reaches where the admin did not send it).
func attackRESTChooseDeckCredential(t *testing.T) {
	e, work, _ := credentialChoiceEnv(t)
	readTok, err := e.svc.CreateToken(e.ctx, core.TokenInput{Name: "reader", Scope: backend.ScopeAgentRead})
	must(t, err)
	workID := credentialID(t, e, "work")
	for _, tc := range []struct{ token, deck, cred string }{
		{e.agent, "ro", workID}, {e.agent, "ro", "work"}, {e.agent, "full", ""}, {readTok.Secret, "ro", workID},
	} {
		a := e.rest(t, tc.token, http.MethodPatch, "/decks/"+tc.deck+"/services/peer/settings",
			map[string]any{"credential_id": tc.cred})
		wantRefused(t, a, http.StatusForbidden, backend.CodeForbidden)
	}
	for deck, want := range map[string]string{"ro": "", "full": workID} {
		got, err := e.svc.GetDeckServiceSettings(e.ctx, deck, "peer")
		must(t, err)
		if got.CredentialID != want {
			t.Errorf("deck %s credential = %q after refused changes, want %q", deck, got.CredentialID, want)
		}
	}
	a := e.agentCall(t, "ro", "whoami", map[string]any{"headers": []string{"X-Api-Key"}})
	if strings.Contains(string(a.Body), sha256hex(work)) || strings.Contains(string(a.Body), work) {
		t.Errorf("deck ro presented the work credential: %s", a.Body)
	}
}

// attackMCPReachOtherDeckCredential: an agent bound to deck ro tries to have its calls carry the
// credential deck full chose, naming the other deck or the credential in the call, or relinking
// the service's own credential.
func attackMCPReachOtherDeckCredential(t *testing.T) {
	e, work, personal := credentialChoiceEnv(t)
	m := dialMCP(t, e.srv.URL()+"/mcp", map[string]string{"Authorization": "Bearer " + e.agent}, "")
	m.ok("bind_workspace", map[string]any{"workspaceRoot": t.TempDir(), "deckId": "ro"}, nil)
	workID := credentialID(t, e, "work")
	for _, args := range []map[string]any{
		{"serviceId": "peer", "toolName": "whoami", "arguments": map[string]any{"headers": []string{"X-Api-Key"}}},
		{"serviceId": "peer", "toolName": "whoami", "arguments": map[string]any{"headers": []string{"X-Api-Key"}}, "deck": "full"},
		{"serviceId": "peer", "toolName": "whoami", "arguments": map[string]any{"headers": []string{"X-Api-Key"}}, "credentialId": workID},
	} {
		res, err := m.callErr("call_service_tool", args)
		if err != nil {
			continue
		}
		txt := mcpText(res)
		if strings.Contains(txt, sha256hex(work)) || strings.Contains(txt, work) {
			t.Errorf("call %v through deck ro carried the work credential: %s", args, txt)
		}
		if !res.IsError && !strings.Contains(txt, sha256hex(personal)) {
			t.Errorf("call %v did not carry the service's credential: %s", args, txt)
		}
	}
	if res, err := m.callErr("update_service", map[string]any{"serviceId": "peer", "credentialId": workID}); err == nil && !res.IsError {
		t.Errorf("update_service relinked the credential: %s", mcpText(res))
	}
	got, err := e.svc.GetDeckServiceSettings(e.ctx, "ro", "peer")
	must(t, err)
	if got.CredentialID != "" {
		t.Errorf("deck ro now chooses credential %q", got.CredentialID)
	}
}

// attackRESTRepointServiceWithDeckCredential: the service itself holds no secret, but a deck
// presents a credential to it; an agent moving its URL would send that credential to a host of
// its choosing.
func attackRESTRepointServiceWithDeckCredential(t *testing.T) {
	e := startDeckScopeEnv(t)
	work := "work-secret-" + randHex(6)
	_, err := e.svc.CreateCredential(e.ctx, core.CredentialInput{Label: "work", Value: work,
		Scheme: backend.SchemeHeader, HeaderName: "X-Api-Key"})
	must(t, err)
	e.run("", "deck", "credential", "full", "peer", "work").wantCode(t, 0)
	evil := startHTTPPeer(t)
	for _, body := range []map[string]any{{"url": evil}, {"transport": "sse"}, {"name": "renamed"}} {
		a := e.rest(t, e.agent, http.MethodPatch, "/services/peer", body)
		wantRefused(t, a, http.StatusForbidden, backend.CodeForbidden)
	}
	if a := e.rest(t, e.agent, http.MethodPatch, "/services/peer", map[string]any{"description": "still mine"}); a.Status != http.StatusOK {
		t.Errorf("an agent may still change the description: %d %s", a.Status, a.Body)
	}
	got, err := e.svc.GetService(e.ctx, "peer")
	must(t, err)
	if got.URL == evil {
		t.Fatalf("the agent moved the service to its own URL")
	}
	a := e.agentCall(t, "full", "whoami", map[string]any{"headers": []string{"X-Api-Key"}})
	if !strings.Contains(string(a.Body), sha256hex(work)) {
		t.Errorf("deck full no longer reaches its own peer with its credential: %d %s", a.Status, a.Body)
	}
}

// attackMCPResourceOtherDeckCredential: a service's resource read through the hub carries the
// bound deck's credential, never another deck's, and what the service echoes of it comes back
// masked.
func attackMCPResourceOtherDeckCredential(t *testing.T) {
	e, work, personal := credentialChoiceEnv(t)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	const uri = "agentdeck://services/peer/resources/peer:%2F%2Fwhoami"
	for deck, want := range map[string]string{"ro": personal, "full": work} {
		m := dialMCP(t, e.srv.URL()+"/mcp", map[string]string{"Authorization": "Bearer " + e.agent, backend.HeaderDeckID: deck}, "")
		list, err := m.c.ListResources(ctx, mcp.ListResourcesRequest{})
		if err != nil || !slices.ContainsFunc(list.Resources, func(r mcp.Resource) bool { return r.URI == uri }) {
			t.Fatalf("deck %s lists %+v, %v; want %s", deck, list, err, uri)
		}
		res, err := m.c.ReadResource(ctx, mcp.ReadResourceRequest{Params: mcp.ReadResourceParams{URI: uri}})
		if err != nil || len(res.Contents) != 1 {
			t.Fatalf("deck %s read %s: %+v, %v", deck, uri, res, err)
		}
		text := res.Contents[0].(mcp.TextResourceContents).Text
		if !strings.Contains(text, sha256hex(want)) {
			t.Errorf("a read through deck %s did not carry its credential: %s", deck, text)
		}
		for _, secret := range []string{work, personal} {
			if strings.Contains(text, secret) {
				t.Errorf("a read through deck %s shows a secret in clear: %s", deck, text)
			}
		}
		if other := map[string]string{"ro": work, "full": personal}[deck]; strings.Contains(text, sha256hex(other)) {
			t.Errorf("a read through deck %s carried the other deck's credential: %s", deck, text)
		}
	}
}
