package tests

import (
	"encoding/json"
	"net/http"
	"net/url"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/agent-deck/agent-deck/backend"
	"github.com/agent-deck/agent-deck/backend/core"
)

// captureServer is a loopback HTTP server that counts every request it gets: a service that
// holds canaries points at it, so a secret sent anywhere would show there.
func captureServer(t *testing.T) (string, *atomic.Int64) {
	t.Helper()
	hits := &atomic.Int64{}
	srv := &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		hits.Add(1)
		w.WriteHeader(http.StatusTeapot)
	})}
	ln := mcpListenRetry(t, "127.0.0.1:0")
	go func() { _ = srv.Serve(ln) }()
	t.Cleanup(func() { _ = srv.Close() })
	return ln.Addr().String(), hits
}

// replicaCaughtUp waits until replica has applied every change committed on the other replica
// so far: a token it has cached is revoked elsewhere, and the replica refuses it once the change
// feed brought the revocation, and so everything committed before it.
func replicaCaughtUp(t *testing.T, base, replica *mcpStack) {
	t.Helper()
	tok, err := base.svc.CreateToken(base.adminCtx(), core.TokenInput{Name: "barrier-" + randHex(4), Scope: backend.ScopeAdmin})
	if err != nil {
		t.Fatal(err)
	}
	if a := replica.api().Do(t, tok.Secret, http.MethodGet, "/api/v1/decks", nil); a.Status != http.StatusOK {
		t.Fatalf("barrier token on the replica: %d", a.Status)
	}
	if err := base.svc.RevokeToken(base.adminCtx(), tok.ID); err != nil {
		t.Fatal(err)
	}
	if !pollUntil(20*time.Second, func() bool {
		return replica.api().Do(t, tok.Secret, http.MethodGet, "/api/v1/decks", nil).Status == http.StatusUnauthorized
	}) {
		t.Fatal("the replica never saw the revocation")
	}
}

// attackHeldSecretsStoredInClear: with argument capture on, an agent on replica B sends the
// values of secrets it should never hold (another credential's, another service's sealed header
// and URL userinfo, a local env value), all added on replica A after B started, in tool
// arguments, a proposal, a signal and a playbook. None of them may be stored in clear.
func attackHeldSecretsStoredInClear(t *testing.T) {
	a := startMCPStack(t, mcpStackOptions{})
	b := startMCPReplica(t, a)
	fx := a.seedDeck(t, "ops", startHTTPPeer(t))
	admin := a.adminCtx()
	capAddr, capHits := captureServer(t)
	canaries := map[string]string{"credential": "canary-cred-" + randHex(6), "header": "canary-head-" + randHex(6),
		"userinfo": "canary-pass-" + randHex(6), "env": "canary-env-" + randHex(6)}
	if _, err := a.svc.CreateCredential(admin, core.CredentialInput{Label: "Billing", Value: canaries["credential"]}); err != nil {
		t.Fatal(err)
	}
	if _, err := a.svc.CreateService(admin, core.ServiceInput{Name: "billing", Type: backend.ServiceRemote,
		URL:     "http://bot:" + canaries["userinfo"] + "@" + capAddr + "/mcp",
		Headers: map[string]string{"X-Api-Key": canaries["header"]}}); err != nil {
		t.Fatal(err)
	}
	if _, err := a.svc.CreateService(admin, core.ServiceInput{Name: "tool", Type: backend.ServiceLocal,
		LocalCommand: "/bin/true", LocalEnv: map[string]string{"TOKEN": canaries["env"]}}); err != nil {
		t.Fatal(err)
	}
	if _, err := a.svc.SetDeckArgumentCapture(admin, "ops", true); err != nil {
		t.Fatal(err)
	}
	replicaCaughtUp(t, a, b)

	all := strings.Join([]string{canaries["credential"], canaries["header"], canaries["userinfo"], canaries["env"]}, " ")
	m := b.connect(t, b.token(backend.ScopeAgent), nil, "")
	m.ok("bind_workspace", map[string]any{"workspaceRoot": "/srv/app", "deckId": "ops"}, nil)
	m.call("call_service_tool", map[string]any{"serviceId": fx.Service.Name, "toolName": "echo",
		"arguments": map[string]any{"message": all}})
	m.ok("propose_playbook_patch", map[string]any{"kind": "update", "playbook_id": fx.Playbook.ID,
		"rationale": "the key is " + all, "evidence": map[string]any{"failure_summary": all},
		"ops": []map[string]any{{"op": "add_item", "section": "Keys", "text": all}}}, nil)
	m.ok("propose_playbook_patch", map[string]any{"kind": "signal_only", "rationale": all}, nil)
	m.ok("update_playbook", map[string]any{"playbook_id": fx.Playbook.ID, "body": "# Release\n1. export KEY=" + all}, nil)

	calls := auditCalls(t, a, url.Values{"tool": {"echo"}}, 1)
	props, _ := a.svc.ListProposals(admin, backend.ProposalFilter{})
	sigs, _ := a.svc.ListSignals(admin)
	pb, _ := a.svc.GetPlaybook(admin, fx.Playbook.ID)
	for what, v := range map[string]any{"audit arguments": calls, "proposals": props, "signals": sigs, "playbook": pb} {
		text, _ := json.Marshal(v)
		for name, c := range canaries {
			if strings.Contains(string(text), c) {
				t.Errorf("%s keep the %s canary in clear: %s", what, name, text)
			}
		}
		if !strings.Contains(string(text), backend.MaskedValue) {
			t.Errorf("%s show no mask: %s", what, text)
		}
	}
	if n := capHits.Load(); n != 0 {
		t.Errorf("the capture server got %d requests", n)
	}
}
