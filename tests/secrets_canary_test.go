package tests

import (
	"crypto/sha256"
	"encoding/hex"
	"net/http"
	"strings"
	"testing"

	"github.com/agent-deck/agent-deck/backend"
	"github.com/agent-deck/agent-deck/backend/core"
	"github.com/agent-deck/agent-deck/cli"
)

// TestSecretCanaryHostileDownstream plants one unique secret as a credential value, a secret
// header and local env values, lets it reach a remote (HTTP) and a local (stdio) peer that echo
// it back on purpose (the capture tool, in results and on stderr) and a remote whose error page
// quotes it, and then searches every surface for it: MCP results and errors, REST bodies and
// errors, exports, health, spilled files, logs at debug level, the argv of every process and
// every row of the database. The secret must have reached the downstreams (whoami's sha256)
// and appear nowhere.
func TestSecretCanaryHostileDownstream(t *testing.T) {
	s := startHostileStack(t, func(c *cli.ServeConfig) { c.ResultCap = 512 })
	canary := "canary-" + randHex(16)
	ctx := s.adminCtx()

	deck, err := s.svc.CreateDeck(ctx, core.DeckInput{Name: "vault"})
	must(t, err)
	cred, err := s.svc.CreateCredential(ctx, core.CredentialInput{Label: "Vault", Value: canary})
	must(t, err)
	remote := s.addService(t, core.ServiceInput{Name: "remote", Type: backend.ServiceRemote, URL: startHTTPPeer(t),
		Headers: map[string]string{"X-Api-Key": canary, "X-Team": "core"}, CredentialID: cred.ID})
	leaky := s.addService(t, core.ServiceInput{Name: "leaky", Type: backend.ServiceRemote,
		URL: startHTTPPeer(t, "PEER_FAIL_CALLS_ECHOING_HEADERS=1"), Headers: map[string]string{"X-Api-Key": canary}})
	local := s.addService(t, localPeer(t, "local", map[string]string{"VAULT_TOKEN": canary, "DATABASE_URL": canary}))
	for _, c := range []core.CardRef{{CardType: backend.CardService, CardID: remote.ID},
		{CardType: backend.CardService, CardID: leaky.ID}, {CardType: backend.CardService, CardID: local.ID},
		{CardType: backend.CardCredential, CardID: cred.ID}} {
		c.Deck = deck.ID
		_, err := s.svc.LinkCard(ctx, core.LinkCardInput{CardRef: c})
		must(t, err)
	}

	texts := map[string]string{}
	var mcpSeen strings.Builder
	agent := s.connect(t, s.token(backend.ScopeAgent), nil, "")
	agent.ok("bind_workspace", map[string]any{"workspaceRoot": "/vault", "deckId": "vault"}, nil)
	for _, call := range []struct {
		tool string
		args map[string]any
	}{
		{"get_bound_deck", nil},
		{"get_session_binding", nil},
		{"list_collection", nil},
		{"list_service_tools", map[string]any{"serviceId": "remote"}},
		{"list_service_tools", map[string]any{"serviceId": "local"}},
		{"list_service_tools", map[string]any{"serviceId": "leaky"}},
		{"call_service_tool", map[string]any{"serviceId": "remote", "toolName": "whoami",
			"arguments": map[string]any{"headers": []string{"X-Api-Key"}}}},
		{"call_service_tool", map[string]any{"serviceId": "local", "toolName": "whoami",
			"arguments": map[string]any{"env": []string{"VAULT_TOKEN"}}}},
		{"call_service_tool", map[string]any{"serviceId": "remote", "toolName": "capture"}},
		{"call_service_tool", map[string]any{"serviceId": "local", "toolName": "capture"}},
		{"call_service_tool", map[string]any{"serviceId": "leaky", "toolName": "echo",
			"arguments": map[string]any{"message": "hi"}}},
	} {
		res := agent.call(call.tool, call.args)
		mcpSeen.WriteString(mcpText(res))
		if res.StructuredContent != nil {
			mcpSeen.WriteString(toJSON(t, res.StructuredContent))
		}
	}
	texts["MCP results and errors"] = mcpSeen.String()

	var restSeen strings.Builder
	for _, id := range []string{remote.ID, local.ID, leaky.ID} {
		for _, tool := range []string{"capture", "no_such_tool"} {
			_, body := s.restCallTool(t, id, tool, nil)
			restSeen.Write(body)
		}
		_, body := s.rest(t, http.MethodPost, "/api/v1/services/"+id+"/check", nil)
		restSeen.Write(body)
	}
	for _, path := range []string{"/api/v1/services", "/api/v1/services/" + remote.ID, "/api/v1/services/" + local.ID,
		"/api/v1/services/" + leaky.ID, "/api/v1/services/" + local.ID + "/tools", "/api/v1/credentials",
		"/api/v1/credentials/" + cred.ID, "/api/v1/decks/vault/snapshot", "/api/v1/export", "/api/v1/export?deck=vault", "/api/v1/sessions"} {
		_, body := s.rest(t, http.MethodGet, path, nil)
		restSeen.Write(body)
	}
	texts["REST bodies and errors, exports"] = restSeen.String()
	texts["health"] = s.waitStderr(t, local.ID, "peer: captured")
	if !strings.Contains(texts["health"], "VAULT_TOKEN") {
		t.Fatalf("the local peer's capture never reached its stderr tail: %q", texts["health"])
	}
	spilled := s.spilledFiles(t)
	if len(spilled) == 0 {
		t.Fatal("no result was spilled, so spill files were not searched")
	}
	for name, content := range spilled {
		texts["spill file "+name] = content
	}

	// The secret did reach the downstreams: whoami reports the sha256 of what arrived.
	sum := sha256.Sum256([]byte(canary))
	all := texts["MCP results and errors"]
	for name, content := range spilled {
		all += name + content
	}
	if n := strings.Count(all, hex.EncodeToString(sum[:])); n < 2 {
		t.Errorf("the secret reached %d of the 2 downstreams asked; results:\n%s", n, all)
	}

	texts["logs"] = s.logs.String()
	if !strings.Contains(texts["logs"], "level=DEBUG") || !strings.Contains(texts["logs"], "peer exploded") {
		t.Fatalf("the logs lack debug lines or the echoed error body, so they prove nothing:\n%s", texts["logs"])
	}
	texts["argv of every process"] = processArgv(t)
	texts["database"] = s.databaseDump(t)
	if where := leakSearch(canary, texts); len(where) > 0 {
		t.Errorf("the secret is readable in %v", where)
	}
}
