package core_test

import (
	"context"
	"strings"
	"testing"

	"github.com/agent-deck/agent-deck/backend"
	"github.com/agent-deck/agent-deck/backend/core"
	"github.com/agent-deck/agent-deck/backend/secret"
	"github.com/agent-deck/agent-deck/backend/secret/secrettest"
)

// TestCheckSecretKeyFingerprint: the first start records the key's fingerprint; the same key
// starts again, another key is refused and changes nothing.
func TestCheckSecretKeyFingerprint(t *testing.T) {
	f := newCoreFixture(t)
	ctx := context.Background()
	coreMust[backend.Credential](t)(f.svc.CreateCredential(f.admin, core.CredentialInput{
		Label: "A", EnvName: "A_KEY", Value: "sk-canary-fp"}))
	if err := f.svc.CheckSecretKey(ctx); err != nil {
		t.Fatalf("first check: %v", err)
	}
	if err := f.svc.CheckSecretKey(ctx); err != nil {
		t.Fatalf("second check with the same key: %v", err)
	}
	other := core.NewHub(f.store, nil, newTestSealer(t), nil, nil, core.Config{})
	err := other.CheckSecretKey(ctx)
	if !core.IsKeyMismatch(err) {
		t.Fatalf("check with another key = %v, want the key-mismatch error", err)
	}
	if msg := backend.AsError(err).Message; !strings.Contains(msg, "fingerprint") {
		t.Errorf("message %q does not say the fingerprint differs", msg)
	}
	if err := f.svc.CheckSecretKey(ctx); err != nil {
		t.Fatalf("the right key after a refusal: %v", err)
	}
}

// TestCheckSecretKeyRebindsLegacyValues: values sealed without associated data (before secrets
// were bound to their row) are re-sealed at the first check; afterwards they open only in their
// own row, and the old format is refused.
func TestCheckSecretKeyRebindsLegacyValues(t *testing.T) {
	f := newCoreFixture(t)
	ctx := context.Background()
	cred := backend.CredentialRecord{Credential: backend.Credential{ID: "cred_legacy", Label: "Legacy",
		EnvName: "LEGACY_KEY", Scheme: backend.SchemeBearer},
		SealedSecret: secrettest.SealUnbound(t, f.key, []byte("sk-canary-legacy-cred"))}
	if err := f.store.CreateCredential(ctx, &cred); err != nil {
		t.Fatal(err)
	}
	svcRec := backend.ServiceRecord{ServiceCard: backend.ServiceCard{Name: "legacy", Type: backend.ServiceRemote,
		URL: "https://legacy.test", CredentialID: cred.ID},
		SealedHeaders: secrettest.SealUnbound(t, f.key, []byte(`{"X-Api-Key":"sk-canary-legacy-header"}`))}
	if err := f.store.CreateService(ctx, &svcRec); err != nil {
		t.Fatal(err)
	}
	if _, err := f.svc.TargetForTest(f.admin, svcRec.ID); !secret.IsSecretsUnreadable(err) {
		t.Fatalf("target before the re-seal = %v, want the old format refused", err)
	}

	// Another key cannot take over a database whose secrets it does not open.
	other := core.NewHub(f.store, nil, newTestSealer(t), nil, nil, core.Config{})
	if err := other.CheckSecretKey(ctx); !core.IsKeyMismatch(err) {
		t.Fatalf("check with another key = %v, want the key-mismatch error", err)
	}
	if got, _ := f.store.GetCredential(ctx, cred.ID); string(got.SealedSecret) != string(cred.SealedSecret) {
		t.Fatal("a refused check changed a stored value")
	}

	if err := f.svc.CheckSecretKey(ctx); err != nil {
		t.Fatalf("check with the right key: %v", err)
	}
	target, err := f.svc.TargetForTest(f.admin, svcRec.ID)
	if err != nil {
		t.Fatalf("target after the re-seal: %v", err)
	}
	if target.Headers["X-Api-Key"] != "sk-canary-legacy-header" || target.Credential == nil ||
		target.Credential.Secret != "sk-canary-legacy-cred" {
		t.Errorf("re-sealed values do not open to the originals")
	}

	// The old-format value put back is refused: there is no legacy fallback.
	got, _ := f.store.GetCredential(ctx, cred.ID)
	got.SealedSecret = cred.SealedSecret
	if err := f.store.UpdateCredential(ctx, &got); err != nil {
		t.Fatal(err)
	}
	if _, err := f.svc.TargetForTest(f.admin, svcRec.ID); !secret.IsSecretsUnreadable(err) {
		t.Errorf("target with an old-format value after the re-seal = %v, want refused", err)
	}
}

// TestMovedCiphertextRefused: a sealed value copied into another row does not open there.
func TestMovedCiphertextRefused(t *testing.T) {
	f := newCoreFixture(t)
	ctx := context.Background()
	a := coreMust[backend.ServiceCard](t)(f.svc.CreateService(f.admin, core.ServiceInput{
		Name: "A", Type: backend.ServiceRemote, URL: "https://a.test",
		Headers: map[string]string{"Authorization": "Bearer sk-canary-moved"}}))
	b := coreMust[backend.ServiceCard](t)(f.svc.CreateService(f.admin, core.ServiceInput{
		Name: "B", Type: backend.ServiceRemote, URL: "https://b.test",
		Headers: map[string]string{"Authorization": "Bearer other"}}))
	ra, _ := f.store.GetService(ctx, a.ID)
	rb, _ := f.store.GetService(ctx, b.ID)
	rb.SealedHeaders = ra.SealedHeaders
	if err := f.store.UpdateService(ctx, &rb); err != nil {
		t.Fatal(err)
	}
	_, err := f.svc.TargetForTest(f.admin, b.ID)
	if !secret.IsSecretsUnreadable(err) {
		t.Fatalf("target with a moved value = %v, want the secrets-unreadable error", err)
	}
	if msg := backend.AsError(err).Message; !strings.Contains(msg, "services/"+b.ID+"/headers") ||
		strings.Contains(err.Error(), "sk-canary-moved") {
		t.Errorf("message %q does not name the value, or leaks it", msg)
	}
}
