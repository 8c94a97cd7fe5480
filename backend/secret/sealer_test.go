package secret_test

import (
	"bytes"
	"crypto/sha256"
	"strings"
	"testing"

	"github.com/agent-deck/agent-deck/backend"
	"github.com/agent-deck/agent-deck/backend/secret"
	"github.com/agent-deck/agent-deck/backend/secret/secrettest"
)

func newKey(t *testing.T) []byte {
	t.Helper()
	key, err := secret.GenerateKey()
	if err != nil {
		t.Fatalf("GenerateKey: %v", err)
	}
	return key
}

func TestSealerRoundTrip(t *testing.T) {
	s, err := secret.NewSealer(newKey(t))
	if err != nil {
		t.Fatalf("NewSealer: %v", err)
	}
	for _, plain := range []string{"", "x", "sk-canary-" + strings.Repeat("z", 5000)} {
		aad := backend.FieldCredentialSecret.AAD("cred_x")
		a, err := s.Seal([]byte(plain), aad)
		if err != nil {
			t.Fatalf("Seal: %v", err)
		}
		b, _ := s.Seal([]byte(plain), aad)
		if bytes.Equal(a, b) {
			t.Errorf("sealing %d bytes twice gave the same blob; nonces must be random", len(plain))
		}
		if len(plain) >= 8 && bytes.Contains(a, []byte(plain)) {
			t.Errorf("sealed blob contains the plaintext")
		}
		got, err := s.Open(a, aad)
		if err != nil || string(got) != plain {
			t.Errorf("Open(Seal(%d bytes)) = %d bytes, %v", len(plain), len(got), err)
		}
	}
}

func TestSealerWrongKey(t *testing.T) {
	s1, _ := secret.NewSealer(newKey(t))
	s2, _ := secret.NewSealer(newKey(t))
	aad := backend.FieldServiceHeaders.AAD("11111111-1111-4111-8111-111111111111")
	sealed, err := s1.Seal([]byte("sk-canary-wrong-key"), aad)
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name string
		blob []byte
	}{
		{"other key", sealed},
		{"truncated", sealed[:5]},
		{"tampered", append(append([]byte{}, sealed[:len(sealed)-1]...), sealed[len(sealed)-1]^1)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			opener := s2
			if tt.name != "other key" {
				opener = s1
			}
			_, err := opener.Open(tt.blob, aad)
			if err == nil {
				t.Fatal("Open succeeded, want an error")
			}
			e := backend.AsError(err)
			if !secret.IsSecretsUnreadable(err) {
				t.Errorf("error %v is not the secrets-unreadable error", err)
			}
			for _, want := range []string{"unreadable", "AGENT_DECK_SECRET_KEY", "secret.key"} {
				if !strings.Contains(e.Message+" "+e.Hint, want) {
					t.Errorf("message+hint %q does not mention %q", e.Message+" "+e.Hint, want)
				}
			}
			if strings.Contains(err.Error(), string(sealed)) || strings.Contains(err.Error(), "canary") {
				t.Errorf("error leaks sealed or plain bytes: %q", err.Error())
			}
		})
	}
}

// TestSealerBindsRow: a value opens only with the row and column it was sealed for, and the
// unbound format of earlier releases is refused by Open (only OpenUnbound, used once at start-up
// to re-seal, reads it).
func TestSealerBindsRow(t *testing.T) {
	key := newKey(t)
	s, _ := secret.NewSealer(key)
	const id = "cred_a"
	sealed, err := s.Seal([]byte("sk-canary-bound"), backend.FieldCredentialSecret.AAD(id))
	if err != nil {
		t.Fatal(err)
	}
	for _, aad := range [][]byte{
		backend.FieldCredentialSecret.AAD("cred_b"),
		backend.FieldServiceHeaders.AAD(id),
		nil,
	} {
		_, err := s.Open(sealed, aad)
		if !secret.IsSecretsUnreadable(err) {
			t.Errorf("Open with aad %q = %v, want the secrets-unreadable error", aad, err)
		}
		if err != nil && !strings.Contains(backend.AsError(err).Message, string(aad)) {
			t.Errorf("message %q does not name the value %q", backend.AsError(err).Message, aad)
		}
	}
	legacy := secrettest.SealUnbound(t, key, []byte("sk-canary-legacy"))
	if _, err := s.Open(legacy, backend.FieldCredentialSecret.AAD(id)); !secret.IsSecretsUnreadable(err) {
		t.Errorf("Open(unbound format) = %v, want refused", err)
	}
	if got, err := s.OpenUnbound(legacy); err != nil || string(got) != "sk-canary-legacy" {
		t.Errorf("OpenUnbound = %q, %v", got, err)
	}
	if _, err := s.OpenUnbound(sealed); err == nil {
		t.Error("OpenUnbound opened a bound value")
	}
}

func TestSealerFingerprint(t *testing.T) {
	k1, k2 := newKey(t), newKey(t)
	a, _ := secret.NewSealer(k1)
	a2, _ := secret.NewSealer(k1)
	b, _ := secret.NewSealer(k2)
	if !bytes.Equal(a.Fingerprint(), a2.Fingerprint()) || len(a.Fingerprint()) != 16 {
		t.Errorf("fingerprint not stable or not 16 bytes: %x %x", a.Fingerprint(), a2.Fingerprint())
	}
	if bytes.Equal(a.Fingerprint(), b.Fingerprint()) {
		t.Error("two keys share a fingerprint")
	}
	sum := sha256.Sum256(k1)
	if bytes.Contains(sum[:], a.Fingerprint()) || bytes.Contains(k1, a.Fingerprint()[:8]) {
		t.Error("fingerprint is a plain hash or a slice of the key")
	}
}

func TestDecodeKey(t *testing.T) {
	key := newKey(t)
	good := secret.EncodeKey(key)
	tests := []struct {
		name    string
		in      string
		wantErr bool
	}{
		{"standard", good, false},
		{"surrounding whitespace", "  " + good + "\n", false},
		{"unpadded", strings.TrimRight(good, "="), false},
		{"empty", "", true},
		{"not base64", "!!!not-base64!!!", true},
		{"too short", secret.EncodeKey(key[:16]), true},
		{"too long", secret.EncodeKey(append(key, 1)), true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := secret.DecodeKey(tt.in)
			if tt.wantErr {
				if err == nil {
					t.Fatalf("DecodeKey(%q) succeeded", tt.in)
				}
				if tt.in != "" && strings.Contains(err.Error(), tt.in) {
					t.Errorf("error repeats the key text: %v", err)
				}
				return
			}
			if err != nil || !bytes.Equal(got, key) {
				t.Errorf("DecodeKey = %x, %v; want the key", got, err)
			}
		})
	}
	if _, err := secret.NewSealer(key[:31]); backend.ErrorCode(err) != backend.CodeInvalidArgument {
		t.Errorf("NewSealer(31 bytes) error = %v, want INVALID_ARGUMENT", err)
	}
}

// TestSealerDerive: a derived secret is the same for the same key and label (every replica
// derives one admin token), differs by label and by key, is not the key, and is not the
// fingerprint's HMAC.
func TestSealerDerive(t *testing.T) {
	key := newKey(t)
	a, _ := secret.NewSealer(key)
	b, _ := secret.NewSealer(bytes.Clone(key))
	other, _ := secret.NewSealer(newKey(t))
	one := a.Derive("serve admin token, generation 0")
	if len(one) != sha256.Size || !bytes.Equal(one, b.Derive("serve admin token, generation 0")) {
		t.Errorf("the same key and label derived different secrets")
	}
	for name, x := range map[string][]byte{
		"another label": a.Derive("serve admin token, generation 1"),
		"another key":   other.Derive("serve admin token, generation 0"),
		"the key":       key,
	} {
		if bytes.Equal(one, x) {
			t.Errorf("the derived secret equals %s", name)
		}
	}
	if bytes.HasPrefix(one, a.Fingerprint()) {
		t.Error("the derived secret starts with the key's fingerprint")
	}
}
