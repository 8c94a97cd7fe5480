package tests

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/agent-deck/agent-deck/backend"
	"github.com/agent-deck/agent-deck/backend/core"
	"github.com/agent-deck/agent-deck/tests/peertest"
)

// proxyDeck is a deck with one local peer service linked to a credential.
type proxyDeck struct {
	stack   *mcpStack
	service backend.ServiceCard
	marker  string
	secret  string
	// outputs collects what the steps returned, to search for the secret at the end.
	outputs []any
}

func newProxyDeck(t *testing.T) *proxyDeck {
	t.Helper()
	stack := startMCPStack(t, mcpStackOptions{})
	ctx := stack.adminCtx()
	d := &proxyDeck{stack: stack, secret: "planted-" + randHex(12), marker: "proxy-" + randHex(6)}
	cred, err := stack.svc.CreateCredential(ctx, core.CredentialInput{Label: "Peer", Value: d.secret})
	if err != nil {
		t.Fatal(err)
	}
	d.service, err = stack.svc.CreateService(ctx, core.ServiceInput{
		Name: "Peer", Type: backend.ServiceLocal, LocalCommand: peertest.Build(t),
		LocalArgs: []string{"-transport", "stdio"}, LocalEnv: map[string]string{"PEER_MARKER": d.marker},
		CredentialID: cred.ID,
	})
	if err != nil {
		t.Fatal(err)
	}
	// Agent tokens reach a service over the core's direct calls only through a deck that links it.
	if _, err := stack.svc.CreateDeck(ctx, core.DeckInput{Name: proxyDeckName}); err != nil {
		t.Fatal(err)
	}
	if _, err := stack.svc.LinkCard(ctx, core.LinkCardInput{CardRef: core.CardRef{
		Deck: proxyDeckName, CardType: backend.CardService, CardID: d.service.ID}}); err != nil {
		t.Fatal(err)
	}
	return d
}

const proxyDeckName = "Proxy"

func actorCtx(scope backend.Scope, kind backend.ActorKind) context.Context {
	return backend.WithActor(context.Background(), backend.Actor{TokenID: "t-" + string(scope), Scope: scope, Kind: kind})
}

func toolNames(tools []core.ToolInfo) (enabled, disabled []string) {
	for _, t := range tools {
		if t.Enabled {
			enabled = append(enabled, t.Name)
		} else {
			disabled = append(disabled, t.Name)
		}
	}
	return enabled, disabled
}

// TestProxyServiceTools drives the tool use cases of the core against a real local server,
// step by step on one deck: scopes on calls, tool settings pruned to real tools, listing per
// actor, the credential at egress, health persisted. No step's output holds the secret.
func TestProxyServiceTools(t *testing.T) {
	d := newProxyDeck(t)
	tools, err := d.stack.svc.ListServiceTools(d.stack.adminCtx(), "Peer", "")
	if err != nil {
		t.Fatal(err)
	}
	if enabled, _ := toolNames(tools); len(enabled) != 22 { // every tool of tests/peer (tools.go and relay_tools.go)
		t.Fatalf("admin sees %d enabled tools, want 22", len(enabled))
	}
	steps := []struct {
		name string
		run  func(*testing.T, *proxyDeck)
	}{
		{"agent:read calls only read-only tools", stepReadOnlyScope},
		{"tool settings name real tools", stepToolSettings},
		{"agents see enabled tools, admins all", stepListing},
		{"the credential reaches the env and never comes back", stepCredential},
		{"health is persisted on change and on check", stepHealth},
	}
	for _, st := range steps {
		if !t.Run(st.name, func(t *testing.T) { st.run(t, d) }) {
			return
		}
	}
	card, err := d.stack.svc.GetService(d.stack.adminCtx(), d.service.ID)
	if err != nil {
		t.Fatal(err)
	}
	d.outputs = append(d.outputs, card)
	b, _ := json.Marshal(d.outputs)
	if strings.Contains(string(b), d.secret) {
		t.Errorf("secret found in outputs: %s", b)
	}
	if strings.Contains(d.stack.logs.String(), d.secret) {
		t.Errorf("secret found in logs")
	}
}

var (
	agentCtx    = actorCtx(backend.ScopeAgent, backend.ActorAgent)
	readOnlyCtx = actorCtx(backend.ScopeAgentRead, backend.ActorAgent)
)

func stepReadOnlyScope(t *testing.T, d *proxyDeck) {
	res, err := d.stack.svc.CallServiceTool(readOnlyCtx, d.service.ID,
		core.CallInput{ToolName: "echo", Arguments: json.RawMessage(`{"message":"ro"}`), Deck: proxyDeckName})
	if err != nil || res.IsError {
		t.Fatalf("read-only echo: %v %s", err, res.Raw)
	}
	for _, tool := range []string{"fail", "write_note"} {
		_, err := d.stack.svc.CallServiceTool(readOnlyCtx, d.service.ID, core.CallInput{ToolName: tool, Deck: proxyDeckName})
		if backend.ErrorCode(err) != backend.CodeForbidden || !strings.Contains(err.Error(), "readOnlyHint") {
			t.Errorf("%s under agent:read: %v", tool, err)
		}
	}
}

func stepToolSettings(t *testing.T, d *proxyDeck) {
	card, err := d.stack.svc.UpdateServiceToolSettings(agentCtx, d.service.ID, core.ToolSettingsInput{
		DisabledTools: []string{"write_note", " write_note ", "crash"}})
	if err != nil {
		t.Fatal(err)
	}
	if want := []string{"write_note", "crash"}; !slices.Equal(card.DisabledTools, want) {
		t.Errorf("disabled = %v, want %v", card.DisabledTools, want)
	}
	_, err = d.stack.svc.UpdateServiceToolSettings(readOnlyCtx, d.service.ID, core.ToolSettingsInput{})
	if backend.ErrorCode(err) != backend.CodeForbidden {
		t.Errorf("agent:read changed tool settings: %v", err)
	}
}

func stepListing(t *testing.T, d *proxyDeck) {
	all, err := d.stack.svc.ListServiceTools(d.stack.adminCtx(), d.service.ID, "")
	if err != nil {
		t.Fatal(err)
	}
	_, off := toolNames(all)
	slices.Sort(off)
	if !slices.Equal(off, []string{"crash", "write_note"}) || len(all) != 22 {
		t.Errorf("admin: %d tools, disabled %v", len(all), off)
	}
	mine, err := d.stack.svc.ListServiceTools(agentCtx, d.service.ID, proxyDeckName)
	if err != nil {
		t.Fatal(err)
	}
	if len(mine) != 20 || !strings.Contains(string(mine[0].Tool), `"inputSchema"`) {
		t.Errorf("agent sees %d tools (want 20), first %s", len(mine), mine[0].Tool)
	}
	_, err = d.stack.svc.CallServiceTool(agentCtx, d.service.ID, core.CallInput{ToolName: "crash", Deck: proxyDeckName})
	if backend.ErrorCode(err) != backend.CodeToolDisabled {
		t.Errorf("disabled tool call: %v", err)
	}
	d.outputs = append(d.outputs, all, mine)
}

func stepCredential(t *testing.T, d *proxyDeck) {
	res, err := d.stack.svc.CallServiceTool(agentCtx, "Peer", core.CallInput{ToolName: "whoami",
		Arguments: json.RawMessage(`"{\"env\":[\"PEER_API_KEY\"]}"`), Deck: proxyDeckName})
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(res.Raw), `"sha256":"`+sha256hex(d.secret)+`"`) {
		t.Errorf("credential did not arrive as PEER_API_KEY: %s", res.Raw)
	}
	d.outputs = append(d.outputs, res)
}

func stepHealth(t *testing.T, d *proxyDeck) {
	svc, id := d.stack.svc, d.service.ID
	h, err := svc.CheckService(d.stack.adminCtx(), id, "")
	if err != nil || h.Status != backend.HealthHealthy || h.LastCheckedAt == nil {
		t.Fatalf("check = %+v, %v", h, err)
	}
	if stored := storedHealth(t, d); stored.Status != backend.HealthHealthy || stored.LastCheckedAt == nil {
		t.Errorf("stored after check = %+v", stored)
	}
	pids := peertest.Processes(t, "PEER_MARKER="+d.marker)
	if len(pids) != 1 {
		t.Fatalf("peer processes = %v", pids)
	}
	_ = syscall.Kill(pids[0], syscall.SIGKILL)
	for deadline := time.Now().Add(5 * time.Second); storedHealth(t, d).Status != backend.HealthUnhealthy && time.Now().Before(deadline); {
		if _, err := svc.CallServiceTool(agentCtx, id, core.CallInput{ToolName: "pid", Deck: proxyDeckName}); err != nil {
			if backend.ErrorCode(err) != backend.CodeDownstreamUnreachable {
				t.Fatalf("call after kill: %v", err)
			}
			be := backend.AsError(err)
			d.outputs = append(d.outputs, be.Message, be.Hint, be.Details)
		}
	}
	if got := storedHealth(t, d); got.Status != backend.HealthUnhealthy || got.LastError == "" {
		t.Errorf("stored after a crash = %+v", got)
	}
	res, err := svc.CallServiceTool(agentCtx, id, core.CallInput{ToolName: "pid", Deck: proxyDeckName})
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(res.Raw), strconv.Itoa(pids[0])) {
		t.Errorf("same pid after restart: %s", res.Raw)
	}
	if got := storedHealth(t, d); got.Status != backend.HealthHealthy {
		t.Errorf("stored after recovery = %+v", got)
	}
}

func storedHealth(t *testing.T, d *proxyDeck) backend.Health {
	t.Helper()
	rec, err := d.stack.store.GetService(context.Background(), d.service.ID)
	if err != nil {
		t.Fatal(err)
	}
	return rec.Health
}

func sha256hex(s string) string {
	sum := sha256.Sum256([]byte(s))
	return hex.EncodeToString(sum[:])
}
