package core_test

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/agent-deck/agent-deck/backend"
	"github.com/agent-deck/agent-deck/backend/core"
	"github.com/agent-deck/agent-deck/backend/secret"
)

func TestServiceValidation(t *testing.T) {
	f := newCoreFixture(t)
	remote := func(mod func(*core.ServiceInput)) core.ServiceInput {
		in := core.ServiceInput{Name: "Svc", Type: backend.ServiceRemote, URL: "https://x.test/mcp"}
		mod(&in)
		return in
	}
	local := func(mod func(*core.ServiceInput)) core.ServiceInput {
		in := core.ServiceInput{Name: "Loc", Type: backend.ServiceLocal, LocalCommand: "npx"}
		mod(&in)
		return in
	}
	tests := []struct {
		name, field string
		in          core.ServiceInput
		accepted    []string
	}{
		{"empty name", "name", remote(func(i *core.ServiceInput) { i.Name = " " }), nil},
		{"long name", "name", remote(func(i *core.ServiceInput) { i.Name = strings.Repeat("n", 101) }), nil},
		{"bad type", "type", remote(func(i *core.ServiceInput) { i.Type = "http" }), []string{"mcp", "local-mcp"}},
		{"no url", "url", remote(func(i *core.ServiceInput) { i.URL = "" }), nil},
		{"ftp url", "url", remote(func(i *core.ServiceInput) { i.URL = "ftp://x.test" }), nil},
		{"relative url", "url", remote(func(i *core.ServiceInput) { i.URL = "/mcp" }), nil},
		{"bad transport", "transport", remote(func(i *core.ServiceInput) { i.Transport = "websocket" }),
			[]string{"auto", "streamable_http", "sse"}},
		{"bad header name", "headers", remote(func(i *core.ServiceInput) { i.Headers = map[string]string{"Bad Header": "v"} }), nil},
		{"header value newline", "headers", remote(func(i *core.ServiceInput) { i.Headers = map[string]string{"X-A": "a\r\nb"} }), nil},
		{"timeout zero is default, negative is not", "timeout_seconds", remote(func(i *core.ServiceInput) { i.TimeoutSeconds = -1 }), nil},
		{"timeout too long", "timeout_seconds", remote(func(i *core.ServiceInput) { i.TimeoutSeconds = 601 }), nil},
		{"remote with command", "local_command", remote(func(i *core.ServiceInput) { i.LocalCommand = "npx" }), nil},
		{"unknown credential", "credential_id", remote(func(i *core.ServiceInput) { i.CredentialID = "cred_nope" }), nil},
		{"local without command", "local_command", local(func(i *core.ServiceInput) { i.LocalCommand = " " }), nil},
		{"local with url", "url", local(func(i *core.ServiceInput) { i.URL = "https://x.test" }), nil},
		{"local bad env name", "local_env", local(func(i *core.ServiceInput) { i.LocalEnv = map[string]string{"lower": "v"} }), nil},
		{"local with headers", "headers", local(func(i *core.ServiceInput) { i.Headers = map[string]string{"X-A": "v"} }), nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := f.svc.CreateService(f.admin, tt.in)
			e := backend.AsError(err)
			if err == nil || e.Details["field"] != tt.field {
				t.Fatalf("error = %v (details %v), want one naming field %s", err, e.Details, tt.field)
			}
			if !strings.Contains(e.Message, tt.field) {
				t.Errorf("message %q does not name the field", e.Message)
			}
			if tt.accepted != nil {
				if diff := cmp.Diff(tt.accepted, e.Details["accepted"]); diff != "" {
					t.Errorf("accepted (-want +got):\n%s", diff)
				}
			}
		})
	}
	if got := coreMust[[]backend.ServiceCard](t)(f.svc.ListServices(f.admin)); len(got) != 0 {
		t.Errorf("refused creates left services: %v", got)
	}
	ok := coreMust[backend.ServiceCard](t)(f.svc.CreateService(f.admin, remote(func(*core.ServiceInput) {})))
	if ok.Transport != backend.TransportAuto || ok.TimeoutSeconds != 60 || ok.Health.Status != backend.HealthUnknown {
		t.Errorf("defaults = transport %q timeout %d health %q", ok.Transport, ok.TimeoutSeconds, ok.Health.Status)
	}
	_, err := f.svc.CreateService(f.admin, remote(func(i *core.ServiceInput) { i.Name = "SVC" }))
	wantCode(t, err, backend.CodeConflict)
	loc := coreMust[backend.ServiceCard](t)(f.svc.CreateService(f.admin, local(func(*core.ServiceInput) {})))
	if loc.Transport != "" || loc.URL != "" {
		t.Errorf("local service shows transport %q url %q", loc.Transport, loc.URL)
	}
}

func TestServiceScopes(t *testing.T) {
	f := newCoreFixture(t)
	cred := f.credential(t, "Key", "v")
	plain := f.service(t, "Plain")
	linked := coreMust[backend.ServiceCard](t)(f.svc.CreateService(f.admin, core.ServiceInput{
		Name: "Linked", Type: backend.ServiceRemote, URL: "https://a.test", CredentialID: cred.ID}))
	loc := coreMust[backend.ServiceCard](t)(f.svc.CreateService(f.admin, core.ServiceInput{
		Name: "Local", Type: backend.ServiceLocal, LocalCommand: "server"}))
	remote := core.ServiceInput{Name: "New", Type: backend.ServiceRemote, URL: "https://n.test"}
	withCred := remote
	withCred.CredentialID = cred.ID
	tests := []struct {
		name string
		call func() error
		code backend.Code
	}{
		{"no token cannot read", func() error { _, err := f.svc.ListServices(f.anon); return err }, backend.CodeUnauthenticated},
		{"reader cannot create", func() error { _, err := f.svc.CreateService(f.reader, remote); return err }, backend.CodeForbidden},
		{"agent cannot link a credential on create", func() error { _, err := f.svc.CreateService(f.agent, withCred); return err }, backend.CodeForbidden},
		{"agent cannot register a local command", func() error {
			_, err := f.svc.CreateService(f.agent, core.ServiceInput{Name: "L2", Type: backend.ServiceLocal, LocalCommand: "sh"})
			return err
		}, backend.CodeForbidden},
		{"agent cannot link a credential on update", func() error {
			_, err := f.svc.UpdateService(f.agent, plain.ID, core.ServicePatch{CredentialID: ptr(cred.ID)})
			return err
		}, backend.CodeForbidden},
		{"agent cannot move a linked service's url", func() error {
			_, err := f.svc.UpdateService(f.agent, linked.ID, core.ServicePatch{URL: ptr("https://evil.test")})
			return err
		}, backend.CodeForbidden},
		{"agent cannot unlink a credential and move the url in one call", func() error {
			_, err := f.svc.UpdateService(f.agent, linked.ID, core.ServicePatch{CredentialID: ptr(""), URL: ptr("https://c.test")})
			return err
		}, backend.CodeForbidden},
		{"agent cannot rename a service that carries a secret", func() error {
			_, err := f.svc.UpdateService(f.agent, linked.ID, core.ServicePatch{CredentialID: ptr(cred.ID), Name: ptr("Linked2")})
			return err
		}, backend.CodeForbidden},
		{"agent cannot change a local command", func() error {
			_, err := f.svc.UpdateService(f.agent, loc.ID, core.ServicePatch{LocalArgs: ptr([]string{"-c", "x"})})
			return err
		}, backend.CodeForbidden},
		{"agent cannot delete", func() error { return f.svc.DeleteService(f.agent, plain.ID) }, backend.CodeForbidden},
		{"reader cannot update", func() error {
			_, err := f.svc.UpdateService(f.reader, plain.ID, core.ServicePatch{Description: ptr("x")})
			return err
		}, backend.CodeForbidden},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) { wantCode(t, tt.call(), tt.code) })
	}
	allowed := []struct {
		name string
		call func() error
	}{
		{"reader reads", func() error { _, err := f.svc.GetService(f.reader, "plain"); return err }},
		{"agent creates a remote service", func() error { _, err := f.svc.CreateService(f.agent, remote); return err }},
		{"agent moves an unlinked service", func() error {
			_, err := f.svc.UpdateService(f.agent, plain.ID, core.ServicePatch{URL: ptr("https://b.test")})
			return err
		}},
		{"agent describes a linked service", func() error {
			_, err := f.svc.UpdateService(f.agent, linked.ID, core.ServicePatch{Description: ptr("d")})
			return err
		}},
		{"agent keeps the same credential and url", func() error {
			_, err := f.svc.UpdateService(f.agent, linked.ID, core.ServicePatch{CredentialID: ptr(cred.ID),
				URL: ptr("https://a.test"), Description: ptr("d2")})
			return err
		}},
		{"admin deletes", func() error { return f.svc.DeleteService(f.admin, "New") }},
	}
	for _, tt := range allowed {
		t.Run(tt.name, func(t *testing.T) {
			if err := tt.call(); err != nil {
				t.Fatal(err)
			}
		})
	}
}

func TestServiceSecrets(t *testing.T) {
	f := newCoreFixture(t)
	const credCanary, headerCanary, envCanary = "sk-canary-cred-9f1", "hdr-canary-7c2", "env-canary-3b8"
	cred := f.credential(t, "Upstream Key", credCanary)
	remote := coreMust[backend.ServiceCard](t)(f.svc.CreateService(f.admin, core.ServiceInput{
		Name: "Remote", Type: backend.ServiceRemote, URL: "https://r.test/mcp", CredentialID: "upstream key",
		Headers: map[string]string{"Authorization": "Bearer " + headerCanary, "X-Api-Key": headerCanary, "X-Tenant": "acme"},
	}))
	local := coreMust[backend.ServiceCard](t)(f.svc.CreateService(f.admin, core.ServiceInput{
		Name: "Local", Type: backend.ServiceLocal, LocalCommand: "srv", LocalArgs: []string{"--stdio"},
		LocalEnv: map[string]string{"TOKEN": envCanary, "MODE": "dev"},
	}))
	wantHeaders := map[string]string{"Authorization": backend.MaskedValue, "X-Api-Key": backend.MaskedValue, "X-Tenant": "acme"}
	if diff := cmp.Diff(wantHeaders, remote.Headers); diff != "" {
		t.Errorf("returned headers (-want +got):\n%s", diff)
	}
	if remote.CredentialID != cred.ID {
		t.Errorf("credential ref by label resolved to %q, want %q", remote.CredentialID, cred.ID)
	}
	wantEnv := map[string]string{"TOKEN": backend.MaskedValue, "MODE": backend.MaskedValue}
	if diff := cmp.Diff(wantEnv, local.LocalEnv); diff != "" {
		t.Errorf("returned env (-want +got):\n%s", diff)
	}
	d := f.deck(t, "D")
	f.link(t, d.ID, backend.CardService, remote.ID)
	f.link(t, d.ID, backend.CardService, local.ID)
	f.link(t, d.ID, backend.CardCredential, cred.ID)
	reads := map[string]any{
		"create remote": remote, "create local": local, "credential": cred,
		"list services": coreMust[[]backend.ServiceCard](t)(f.svc.ListServices(f.reader)),
		"get service":   coreMust[backend.ServiceCard](t)(f.svc.GetService(f.reader, "remote")),
		"credentials":   coreMust[[]backend.Credential](t)(f.svc.ListCredentials(f.reader)),
		"snapshot":      coreMust[core.DeckSnapshot](t)(f.svc.DeckSnapshot(f.reader, d.ID)),
		"update": coreMust[backend.ServiceCard](t)(f.svc.UpdateService(f.admin, remote.ID,
			core.ServicePatch{Description: ptr("d")})),
		"rotate": coreMust[backend.Credential](t)(f.svc.RotateCredential(f.admin, cred.ID, credCanary+"-2")),
	}
	for what, v := range reads {
		for _, canary := range []string{credCanary, headerCanary, envCanary} {
			noCanary(t, what, v, canary)
		}
	}
	for _, r := range coreMust[[]backend.ServiceRecord](t)(f.store.ListServices(f.admin)) {
		for _, canary := range []string{headerCanary, envCanary} {
			if strings.Contains(string(r.SealedHeaders)+string(r.SealedEnv), canary) ||
				strings.Contains(fmt.Sprint(r.PlainHeaders), canary) {
				t.Errorf("service %s stores %s in plaintext", r.Name, canary)
			}
		}
	}
	tg := coreMust[backend.Target](t)(f.svc.TargetForTest(f.admin, remote.ID))
	if tg.Headers["Authorization"] != "Bearer "+headerCanary || tg.Headers["X-Tenant"] != "acme" {
		t.Errorf("target headers not decrypted: %v", len(tg.Headers))
	}
	if tg.Credential == nil || tg.Credential.Secret != credCanary+"-2" || tg.Credential.EnvName != "UPSTREAM_API_KEY" {
		t.Errorf("target credential not decrypted or wrong env (present %v)", tg.Credential != nil)
	}
	tl := coreMust[backend.Target](t)(f.svc.TargetForTest(f.admin, local.ID))
	if tl.LocalEnv["TOKEN"] != envCanary || tl.Timeout.Seconds() != 60 || !strings.Contains(tl.Revision, local.ID) {
		t.Errorf("local target env/timeout/revision wrong: timeout %v revision %q", tl.Timeout, tl.Revision)
	}
}

func TestServicePatchKeepsMaskedValues(t *testing.T) {
	f := newCoreFixture(t)
	s := coreMust[backend.ServiceCard](t)(f.svc.CreateService(f.admin, core.ServiceInput{
		Name: "S", Type: backend.ServiceRemote, URL: "https://s.test",
		Headers: map[string]string{"Authorization": "Bearer keep-me", "X-Secret-Old": "drop-me"},
	}))
	before := coreMust[backend.Target](t)(f.svc.TargetForTest(f.admin, s.ID))
	// Headers of a service that carries a secret are an admin's to change (SPEC §10).
	got := coreMust[backend.ServiceCard](t)(f.svc.UpdateService(f.admin, s.ID, core.ServicePatch{
		Headers: ptr(map[string]string{"authorization": backend.MaskedValue, "X-Plain": "p"}),
	}))
	if diff := cmp.Diff(map[string]string{"authorization": backend.MaskedValue, "X-Plain": "p"}, got.Headers); diff != "" {
		t.Errorf("headers after patch (-want +got):\n%s", diff)
	}
	tg := coreMust[backend.Target](t)(f.svc.TargetForTest(f.admin, s.ID))
	if diff := cmp.Diff(map[string]string{"authorization": "Bearer keep-me", "X-Plain": "p"}, tg.Headers); diff != "" {
		t.Errorf("decrypted headers after patch (-want +got):\n%s", diff)
	}
	if tg.Revision == before.Revision {
		t.Errorf("revision did not change after an update")
	}
	if !f.ds.forgotten(s.ID) {
		t.Errorf("update did not make the proxy forget the service")
	}
	_, err := f.svc.UpdateService(f.admin, s.ID, core.ServicePatch{
		Headers: ptr(map[string]string{"X-Token-New": backend.MaskedValue})})
	wantCode(t, err, backend.CodeInvalidArgument)
}

func TestSecretsUnreadableWithAnotherKey(t *testing.T) {
	f := newCoreFixture(t)
	s := coreMust[backend.ServiceCard](t)(f.svc.CreateService(f.admin, core.ServiceInput{
		Name: "S", Type: backend.ServiceRemote, URL: "https://s.test",
		Headers: map[string]string{"Authorization": "Bearer sk-canary-lost"}}))
	other, _ := secret.GenerateKey()
	sealer, _ := secret.NewSealer(other)
	svc2 := core.NewHub(f.store, nil, sealer, nil, nil, core.Config{})
	_, err := svc2.TargetForTest(f.admin, s.ID)
	if !secret.IsSecretsUnreadable(err) {
		t.Fatalf("target with another key: %v, want the secrets-unreadable error", err)
	}
	e := backend.AsError(err)
	if !strings.Contains(e.Message+e.Hint, "AGENT_DECK_SECRET_KEY") || strings.Contains(err.Error(), "sk-canary-lost") {
		t.Errorf("error = %q / %q", e.Message, e.Hint)
	}
	// Reads still work, so the person can see and fix the service.
	if _, err := svc2.GetService(f.admin, s.ID); err != nil {
		t.Errorf("GetService with another key: %v", err)
	}
}

// TestHintsInEachSurfacesWords: a hint shared by REST and MCP points each at what its own
// surface offers (a route or a tool), never at the other's.
func TestHintsInEachSurfacesWords(t *testing.T) {
	f := newCoreFixture(t)
	d := f.deck(t, "D")
	s := f.service(t, "Svc")
	f.link(t, d.ID, backend.CardService, s.ID)
	mcp := backend.WithActor(context.Background(), backend.Actor{Scope: backend.ScopeAdmin, Kind: backend.ActorAgent})
	sess := coreMust[backend.MCPSession](t)(f.svc.OpenSession(mcp, core.OpenSessionInput{Profile: "standard", Deck: d.ID}))
	tests := []struct {
		name, hint, notHint string
		call                func() error
	}{
		{"REST", "GET /api/v1/services/{service}/tools", "list_service_tools", func() error {
			_, err := f.svc.CallServiceTool(f.admin, s.ID, core.CallInput{ToolName: " "})
			return err
		}},
		{"MCP", "list_service_tools", "/api/v1", func() error {
			_, err := f.svc.CallBoundServiceTool(mcp, sess.ID, s.Name, core.CallInput{ToolName: " "})
			return err
		}},
		{"REST unknown card", "GET /api/v1/services", "list_collection", func() error {
			_, err := f.svc.GetService(f.admin, "nope")
			return err
		}},
		{"MCP unknown card", "list_collection", "/api/v1", func() error {
			_, err := f.svc.UpdateService(mcp, "nope", core.ServicePatch{Description: ptr("d")})
			return err
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e := backend.AsError(tt.call())
			if e == nil {
				t.Fatal("the call succeeded")
			}
			if !strings.Contains(e.Hint, tt.hint) || strings.Contains(e.Hint, tt.notHint) {
				t.Errorf("hint = %q, want it to name %q and not %q", e.Hint, tt.hint, tt.notHint)
			}
		})
	}
}
