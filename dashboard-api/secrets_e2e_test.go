package dashboardapi

import (
	"bytes"
	"crypto/rand"
	"encoding/json"
	"net/http"
	"strings"
	"testing"

	"github.com/agent-deck/agent-deck/backend"
	"github.com/agent-deck/agent-deck/backend/core"
	"github.com/agent-deck/agent-deck/tests/resttest"
)

// TestSecretsNeverLeak plants unique secrets in a credential, a secret header and a local env
// value, then drives every read and a set of failing writes, and searches every response body
// and every log line for them. The one route whose purpose is to hand a secret to the admin CLI,
// POST /exec, is checked separately: it must return the secret, and nothing else may.
func TestSecretsNeverLeak(t *testing.T) {
	s := newTestServer(t, Options{})
	canary := func(kind string) string { return "CANARY-" + kind + "-" + rand.Text() }
	cred, cred2, header, env := canary("CRED"), canary("ROTATED"), canary("HEADER"), canary("ENV")
	canaries := []string{cred, cred2, header, env}

	s.must(t, http.StatusCreated, "POST", "/api/v1/decks", map[string]any{"name": "Ops"}, nil)
	s.must(t, http.StatusCreated, "POST", "/api/v1/credentials",
		map[string]any{"label": "Vault", "value": cred, "tags": []string{"ops"}}, nil)
	s.must(t, http.StatusCreated, "POST", "/api/v1/services", map[string]any{
		"name": "Remote", "type": "mcp", "url": "http://127.0.0.1:9/mcp", "credential_id": "cred_vault",
		"headers": map[string]string{"Authorization": "Bearer " + header, "X-Team": "ops"},
	}, nil)
	s.must(t, http.StatusCreated, "POST", "/api/v1/services", map[string]any{
		"name": "Local", "type": "local-mcp", "local_command": "/bin/true",
		"local_env": map[string]string{"API_TOKEN": env, "MODE": "test"},
	}, nil)
	s.must(t, http.StatusCreated, "POST", "/api/v1/playbooks",
		map[string]any{"title": "Rotate", "body": "Use VAULT_API_KEY with Remote."}, nil)
	for _, c := range []map[string]any{
		{"card_type": "service", "card_id": "Remote"}, {"card_type": "service", "card_id": "Local"},
		{"card_type": "credential", "card_id": "cred_vault"}, {"card_type": "playbook", "card_id": "pb_rotate"},
	} {
		s.must(t, http.StatusOK, "POST", "/api/v1/decks/Ops/cards", c, nil)
	}
	s.must(t, http.StatusOK, "POST", "/api/v1/credentials/cred_vault/rotate", map[string]any{"value": cred2}, nil)
	// Sending the masked value back keeps the stored one.
	s.must(t, http.StatusOK, "PATCH", "/api/v1/services/Remote", map[string]any{
		"headers": map[string]string{"Authorization": backend.MaskedValue, "X-Team": "ops2"}}, nil)
	s.must(t, http.StatusOK, "PATCH", "/api/v1/services/Local", map[string]any{
		"local_env": map[string]string{"API_TOKEN": backend.MaskedValue, "MODE": "prod"}}, nil)

	for _, p := range []string{
		"/api/v1/decks", "/api/v1/decks/Ops", "/api/v1/decks/Ops/snapshot",
		"/api/v1/services", "/api/v1/services/Remote", "/api/v1/services/Local",
		"/api/v1/services/Remote/tools", "/api/v1/credentials", "/api/v1/credentials/cred_vault",
		"/api/v1/playbooks", "/api/v1/playbooks/pb_rotate", "/api/v1/playbooks/pb_rotate/versions",
		"/api/v1/dependents?card_type=credential&card_id=cred_vault", "/api/v1/sessions",
		"/api/v1/display?workspace=/srv", "/api/v1/export", "/api/v1/export?deck=Ops", "/api/v1/tokens",
	} {
		s.do(t, s.admin, "GET", p, nil)
	}
	s.do(t, s.admin, "POST", "/api/v1/services/Remote/check", nil)
	s.do(t, s.admin, "POST", "/api/v1/services/Remote/call", map[string]any{"tool_name": "whoami"})

	// Failing writes that carry a secret must not echo it.
	for _, f := range []struct{ method, path string }{
		{"POST", "/api/v1/credentials"}, {"PATCH", "/api/v1/services/Remote"}, {"POST", "/api/v1/services"},
	} {
		s.do(t, s.admin, f.method, f.path, map[string]any{"label": "Vault", "value": cred})
	}
	s.do(t, s.admin, "POST", "/api/v1/credentials", map[string]any{"label": "vault", "value": cred})
	s.do(t, s.admin, "POST", "/api/v1/credentials", map[string]any{"label": "Bad", "value": cred, "env_name": "no good"})
	s.do(t, s.admin, "PATCH", "/api/v1/services/Local", map[string]any{"local_env": map[string]string{"bad key": env}})
	s.do(t, s.admin, "PATCH", "/api/v1/services/Remote", map[string]any{"headers": map[string]string{"Bad Header": header}})

	checkExecHandsOutOnlyToExec(t, s, cred2)
	s.do(t, s.admin, "GET", "/api/v1/exec", nil)

	for _, c := range canaries {
		for i, body := range s.api.Bodies() {
			if bytes.Contains(body, []byte(c)) {
				t.Errorf("response %d contains the secret %s: %s", i, c[:14], body)
			}
		}
		if strings.Contains(s.logs.String(), c) {
			t.Errorf("the log contains the secret %s", c[:14])
		}
	}
	if strings.Contains(s.logs.String(), s.admin) {
		t.Errorf("the log contains the admin token")
	}
	if !strings.Contains(s.logs.String(), `"route":"/api/v1/exec"`) {
		t.Errorf("the exec request is missing from the log")
	}
}

// checkExecHandsOutOnlyToExec calls POST /exec outside the recorded responses: it exists to
// return the secret to the admin CLI.
func checkExecHandsOutOnlyToExec(t *testing.T, s *testServer, secret string) {
	t.Helper()
	unrecorded := &resttest.Client{URL: s.url, HTTP: s.api.HTTP}
	a := unrecorded.Do(t, s.admin, "POST", "/api/v1/exec",
		map[string]any{"credential_ids": []string{"cred_vault"}, "command": []string{"deploy", "--now"}})
	var grant core.ExecGrant
	if a.Status != http.StatusCreated || json.Unmarshal(a.Body, &grant) != nil || grant.Env["VAULT_API_KEY"] != secret {
		t.Errorf("POST /exec: status %d, the grant does not carry the credential", a.Status)
	}
}
