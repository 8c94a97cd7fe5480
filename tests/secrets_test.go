package tests

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/agent-deck/agent-deck/backend"
)

// TestSecretCanaryAcrossSurfaces plants one unique secret as a credential value, a secret
// header and a local env value, drives every surface that shows those cards (MCP tools as an
// agent, REST reads and the export as an admin, a proxied call that delivers the secret
// downstream), and proves the secret reached the downstream but appears in no response and no
// log line.
func TestSecretCanaryAcrossSurfaces(t *testing.T) {
	s := startMCPStack(t, mcpStackOptions{})
	peer := startHTTPPeer(t)
	canary := "canary-" + randHex(16)
	ctx := s.adminCtx()

	deck, err := s.svc.CreateDeck(ctx, backend.DeckInput{Name: "vault"})
	must(t, err)
	cred, err := s.svc.CreateCredential(ctx, backend.CredentialInput{Label: "Vault", Value: canary})
	must(t, err)
	remote, err := s.svc.CreateService(ctx, backend.ServiceInput{Name: "remote", Type: backend.ServiceRemote, URL: peer,
		Headers: map[string]string{"X-Api-Key": canary, "X-Team": "core"}, CredentialID: cred.ID})
	must(t, err)
	local, err := s.svc.CreateService(ctx, backend.ServiceInput{Name: "local", Type: backend.ServiceLocal,
		LocalCommand: mcpPeerBinary(t), LocalArgs: []string{"-transport", "stdio"},
		LocalEnv: map[string]string{"VAULT_TOKEN": canary}})
	must(t, err)
	for _, c := range []backend.CardRef{{CardType: backend.CardService, CardID: remote.ID},
		{CardType: backend.CardService, CardID: local.ID}, {CardType: backend.CardCredential, CardID: cred.ID}} {
		c.Deck = deck.ID
		_, err := s.svc.LinkCard(ctx, backend.LinkCardInput{CardRef: c})
		must(t, err)
	}

	var seen strings.Builder
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
		{"call_service_tool", map[string]any{"serviceId": "remote", "toolName": "whoami",
			"arguments": map[string]any{"headers": []string{"Authorization", "X-Api-Key"}}}},
		{"call_service_tool", map[string]any{"serviceId": "local", "toolName": "whoami",
			"arguments": map[string]any{"env": []string{"VAULT_TOKEN", "VAULT_API_KEY"}}}},
		{"call_service_tool", map[string]any{"serviceId": "remote", "toolName": "echo",
			"arguments": map[string]any{"message": "hello"}}},
	} {
		res := agent.call(call.tool, call.args)
		seen.WriteString(mcpText(res))
		if res.StructuredContent != nil {
			seen.WriteString(toJSON(t, res.StructuredContent))
		}
	}
	// The secret did reach the downstream: whoami reports the sha256 of what arrived.
	sum := sha256.Sum256([]byte(canary))
	if !strings.Contains(seen.String(), hex.EncodeToString(sum[:])) {
		t.Errorf("the downstream never received the secret; whoami said:\n%s", seen.String())
	}

	for _, path := range []string{"/api/v1/services", "/api/v1/services/" + remote.ID, "/api/v1/services/" + local.ID,
		"/api/v1/credentials", "/api/v1/credentials/" + cred.ID, "/api/v1/decks/vault/snapshot",
		"/api/v1/export", "/api/v1/export?deck=vault", "/api/v1/sessions"} {
		seen.WriteString(restGet(t, s.URL+path, s.AdminToken))
	}

	for where, text := range map[string]string{"responses": seen.String(), "logs": s.logs.String()} {
		if strings.Contains(text, canary) {
			t.Errorf("the secret appears in %s", where)
		}
	}
}

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

func restGet(t *testing.T, url, token string) string {
	t.Helper()
	req, err := http.NewRequest(http.MethodGet, url, nil)
	must(t, err)
	req.Header.Set("Authorization", "Bearer "+token)
	resp, err := http.DefaultClient.Do(req)
	must(t, err)
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	must(t, err)
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("GET %s: %d %s", url, resp.StatusCode, body)
	}
	return string(body)
}

func toJSON(t *testing.T, v any) string {
	t.Helper()
	b, err := json.Marshal(v)
	must(t, err)
	return string(b)
}
