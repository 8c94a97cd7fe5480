package secret

import (
	"bytes"
	"crypto/aes"
	"crypto/cipher"
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"errors"
	"fmt"
	"strings"

	"github.com/agent-deck/agent-deck/backend"
)

// KeySize is the length of the secret key: AES-256 needs 32 bytes.
const KeySize = 32

// ErrSecretsUnreadable is in the chain of every error caused by a stored secret that does not
// open with the current key, so callers can test for it with errors.Is.
var ErrSecretsUnreadable = errors.New("stored secrets are unreadable with this secret key")

// sealedV1 is the first byte of every value sealed with its row as associated data. Values
// sealed before it (nonce || ciphertext, no associated data) are read only by the start-up
// re-encryption (OpenUnbound) and refused everywhere else.
const sealedV1 byte = 1

// fingerprintSize is how many bytes of the key's HMAC fingerprint the database records.
const fingerprintSize = 16

// gcmSealer seals with AES-256-GCM; each sealed value is version || nonce || ciphertext+tag.
type gcmSealer struct {
	aead        cipher.AEAD
	fingerprint []byte
	derivation  []byte // the key, for Derive's HMAC
}

// NewSealer returns the Sealer that protects every secret at rest. The key is the 32 bytes from
// AGENT_DECK_SECRET_KEY or the secret.key file; a fresh random nonce is used for every seal, so
// sealing one value twice gives two different blobs.
func NewSealer(key []byte) (backend.Sealer, error) {
	if len(key) != KeySize {
		return nil, backend.Errorf(backend.CodeInvalidArgument,
			"the secret key must be exactly %d bytes, got %d", KeySize, len(key)).
			WithHint("set AGENT_DECK_SECRET_KEY to base64 of 32 random bytes (openssl rand -base64 32)")
	}
	block, err := aes.NewCipher(key)
	if err != nil {
		return nil, backend.Internal("creating the secret cipher", err)
	}
	aead, err := cipher.NewGCM(block)
	if err != nil {
		return nil, backend.Internal("creating the secret cipher", err)
	}
	return &gcmSealer{aead: aead, fingerprint: keyFingerprint(key), derivation: bytes.Clone(key)}, nil
}

// keyFingerprint identifies a key without revealing it: HMAC-SHA256 keyed by the key itself
// over a fixed label, truncated. Checking a guess needs the guessed key, as opening a secret does.
func keyFingerprint(key []byte) []byte {
	m := hmac.New(sha256.New, key)
	m.Write([]byte("agent-deck key fingerprint"))
	return m.Sum(nil)[:fingerprintSize]
}

// Fingerprint is the key's fingerprint, recorded in the database at first start.
func (g *gcmSealer) Fingerprint() []byte { return append([]byte(nil), g.fingerprint...) }

// Derive is HMAC-SHA256 keyed by the key over a label of its own kind (never the fingerprint's),
// so a derived secret says nothing about the key or about another label's secret.
func (g *gcmSealer) Derive(label string) []byte {
	m := hmac.New(sha256.New, g.derivation)
	m.Write([]byte("agent-deck derived secret: " + label))
	return m.Sum(nil)
}

// Seal encrypts plaintext under a new random nonce, bound to aad (the row and column it is
// stored in): it opens only with the same aad.
func (g *gcmSealer) Seal(plaintext, aad []byte) ([]byte, error) {
	ns := g.aead.NonceSize()
	out := make([]byte, 1+ns, 1+ns+len(plaintext)+g.aead.Overhead())
	out[0] = sealedV1
	if _, err := rand.Read(out[1:]); err != nil {
		return nil, backend.Internal("sealing a secret", err)
	}
	return g.aead.Seal(out, out[1:], plaintext, aad), nil
}

// Open decrypts a value sealed by Seal with the same aad. A value sealed under another key, for
// another row or column, in the old unbound format, or damaged gives the secrets-unreadable
// error, which says plainly how to recover.
func (g *gcmSealer) Open(sealed, aad []byte) ([]byte, error) {
	ns := g.aead.NonceSize()
	if len(sealed) < 1+ns+g.aead.Overhead() || sealed[0] != sealedV1 {
		return nil, Unreadable(string(aad), errors.New("not a sealed value of the current format"))
	}
	plain, err := g.aead.Open(nil, sealed[1:1+ns], sealed[1+ns:], aad)
	if err != nil {
		return nil, Unreadable(string(aad), err)
	}
	return plain, nil
}

// OpenUnbound decrypts a value in the format used before values were bound to their row
// (nonce || ciphertext, no associated data). Only the start-up re-encryption calls it.
func (g *gcmSealer) OpenUnbound(sealed []byte) ([]byte, error) {
	ns := g.aead.NonceSize()
	if len(sealed) < ns+g.aead.Overhead() {
		return nil, Unreadable("", errors.New("sealed value too short"))
	}
	plain, err := g.aead.Open(nil, sealed[:ns], sealed[ns:], nil)
	if err != nil {
		return nil, Unreadable("", err)
	}
	return plain, nil
}

// errSecretsUnreadable is what every caller sees when a stored secret does not open: the key in
// use is not the one it was sealed with, or the value was copied from another row or column, or
// it is damaged. where names the value (e.g. credentials/cred_x/secret), never its bytes.
func Unreadable(where string, cause error) *backend.Error {
	msg := "stored secrets are unreadable with this secret key: it is not the key they were encrypted with"
	if where != "" {
		msg = "stored secret " + where + " is unreadable: it was sealed with another secret key, " +
			"or for another row or column (copied or damaged)"
	}
	return &backend.Error{
		Code:    backend.CodeUnavailable,
		Message: msg,
		Hint: "restore the original AGENT_DECK_SECRET_KEY or $AGENT_DECK_HOME/secret.key and " +
			"restart; otherwise set the secrets again (agent-deck credential rotate, service headers/env)",
		Err: fmt.Errorf("%w: %w", ErrSecretsUnreadable, cause),
	}
}

// IsSecretsUnreadable reports whether err says stored secrets cannot be opened with the
// current key, so a front end can surface it prominently (e.g. at start-up).
func IsSecretsUnreadable(err error) bool {
	return errors.Is(err, ErrSecretsUnreadable)
}

// DecodeKey parses the base64 text of AGENT_DECK_SECRET_KEY or the key file. Standard and
// URL-safe alphabets, with or without padding, are accepted; surrounding whitespace is ignored.
// The error never repeats the key.
func DecodeKey(text string) ([]byte, error) {
	text = strings.TrimSpace(text)
	if text == "" {
		return nil, backend.Errorf(backend.CodeInvalidArgument, "the secret key is empty").
			WithHint("set AGENT_DECK_SECRET_KEY to base64 of 32 random bytes (openssl rand -base64 32)")
	}
	for _, enc := range []*base64.Encoding{
		base64.StdEncoding, base64.RawStdEncoding, base64.URLEncoding, base64.RawURLEncoding,
	} {
		key, err := enc.DecodeString(text)
		if err != nil {
			continue
		}
		if len(key) != KeySize {
			return nil, backend.Errorf(backend.CodeInvalidArgument,
				"the secret key must decode to exactly %d bytes, it decodes to %d", KeySize, len(key)).
				WithHint("set AGENT_DECK_SECRET_KEY to base64 of 32 random bytes (openssl rand -base64 32)")
		}
		return key, nil
	}
	return nil, backend.Errorf(backend.CodeInvalidArgument, "the secret key is not valid base64").
		WithHint("set AGENT_DECK_SECRET_KEY to base64 of 32 random bytes (openssl rand -base64 32)")
}

// GenerateKey returns a new random key for a fresh data home.
func GenerateKey() ([]byte, error) {
	key := make([]byte, KeySize)
	if _, err := rand.Read(key); err != nil {
		return nil, fmt.Errorf("generate secret key: %w", err)
	}
	return key, nil
}

// EncodeKey is the text form of a key, as written to the key file and read by DecodeKey.
func EncodeKey(key []byte) string {
	return base64.StdEncoding.EncodeToString(key)
}
