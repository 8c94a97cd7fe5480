package backend_test

import (
	"bytes"
	"strings"
	"testing"

	"github.com/agent-deck/agent-deck/backend"
)

func newKey(t *testing.T) []byte {
	t.Helper()
	key, err := backend.GenerateKey()
	if err != nil {
		t.Fatalf("GenerateKey: %v", err)
	}
	return key
}

func TestSealerRoundTrip(t *testing.T) {
	s, err := backend.NewSealer(newKey(t))
	if err != nil {
		t.Fatalf("NewSealer: %v", err)
	}
	for _, plain := range []string{"", "x", "sk-canary-" + strings.Repeat("z", 5000)} {
		a, err := s.Seal([]byte(plain))
		if err != nil {
			t.Fatalf("Seal: %v", err)
		}
		b, _ := s.Seal([]byte(plain))
		if bytes.Equal(a, b) {
			t.Errorf("sealing %d bytes twice gave the same blob; nonces must be random", len(plain))
		}
		if len(plain) >= 8 && bytes.Contains(a, []byte(plain)) {
			t.Errorf("sealed blob contains the plaintext")
		}
		got, err := s.Open(a)
		if err != nil || string(got) != plain {
			t.Errorf("Open(Seal(%d bytes)) = %d bytes, %v", len(plain), len(got), err)
		}
	}
}

func TestSealerWrongKey(t *testing.T) {
	s1, _ := backend.NewSealer(newKey(t))
	s2, _ := backend.NewSealer(newKey(t))
	sealed, err := s1.Seal([]byte("sk-canary-wrong-key"))
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
			_, err := opener.Open(tt.blob)
			if err == nil {
				t.Fatal("Open succeeded, want an error")
			}
			e := backend.AsError(err)
			if !backend.IsSecretsUnreadable(err) {
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

func TestDecodeKey(t *testing.T) {
	key := newKey(t)
	good := backend.EncodeKey(key)
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
		{"too short", backend.EncodeKey(key[:16]), true},
		{"too long", backend.EncodeKey(append(key, 1)), true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := backend.DecodeKey(tt.in)
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
	if _, err := backend.NewSealer(key[:31]); backend.ErrorCode(err) != backend.CodeInvalidArgument {
		t.Errorf("NewSealer(31 bytes) error = %v, want INVALID_ARGUMENT", err)
	}
}
