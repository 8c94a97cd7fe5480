package backend

import (
	"crypto/aes"
	"crypto/cipher"
	"crypto/rand"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
)

// KeySize is the length of the secret key: AES-256 needs 32 bytes.
const KeySize = 32

// ErrSecretsUnreadable is in the chain of every error caused by a stored secret that does not
// open with the current key, so callers can test for it with errors.Is.
var ErrSecretsUnreadable = errors.New("stored secrets are unreadable with this secret key")

// gcmSealer seals with AES-256-GCM; each sealed value is nonce || ciphertext+tag.
type gcmSealer struct {
	aead cipher.AEAD
}

// NewSealer returns the Sealer that protects every secret at rest. The key is the 32 bytes from
// AGENT_DECK_SECRET_KEY or the secret.key file; a fresh random nonce is used for every seal, so
// sealing one value twice gives two different blobs.
func NewSealer(key []byte) (Sealer, error) {
	if len(key) != KeySize {
		return nil, Errorf(CodeInvalidArgument,
			"the secret key must be exactly %d bytes, got %d", KeySize, len(key)).
			WithHint("set AGENT_DECK_SECRET_KEY to base64 of 32 random bytes (openssl rand -base64 32)")
	}
	block, err := aes.NewCipher(key)
	if err != nil {
		return nil, Internal("creating the secret cipher", err)
	}
	aead, err := cipher.NewGCM(block)
	if err != nil {
		return nil, Internal("creating the secret cipher", err)
	}
	return &gcmSealer{aead: aead}, nil
}

// Seal encrypts plaintext under a new random nonce.
func (g *gcmSealer) Seal(plaintext []byte) ([]byte, error) {
	nonce := make([]byte, g.aead.NonceSize(), g.aead.NonceSize()+len(plaintext)+g.aead.Overhead())
	if _, err := rand.Read(nonce); err != nil {
		return nil, Internal("sealing a secret", err)
	}
	return g.aead.Seal(nonce, nonce, plaintext, nil), nil
}

// Open decrypts a sealed value. A value sealed under another key (or damaged) gives the
// secrets-unreadable error, which says plainly how to recover.
func (g *gcmSealer) Open(sealed []byte) ([]byte, error) {
	ns := g.aead.NonceSize()
	if len(sealed) < ns+g.aead.Overhead() {
		return nil, errSecretsUnreadable(errors.New("sealed value too short"))
	}
	plain, err := g.aead.Open(nil, sealed[:ns], sealed[ns:], nil)
	if err != nil {
		return nil, errSecretsUnreadable(err)
	}
	return plain, nil
}

// errSecretsUnreadable is what every caller sees when a stored secret does not open: the key in
// use is not the one the secrets were sealed with. The cause never includes the sealed bytes.
func errSecretsUnreadable(cause error) *Error {
	return &Error{
		Code: CodeUnavailable,
		Message: "stored secrets are unreadable with this secret key: it is not the key they " +
			"were encrypted with",
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
		return nil, Errorf(CodeInvalidArgument, "the secret key is empty").
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
			return nil, Errorf(CodeInvalidArgument,
				"the secret key must decode to exactly %d bytes, it decodes to %d", KeySize, len(key)).
				WithHint("set AGENT_DECK_SECRET_KEY to base64 of 32 random bytes (openssl rand -base64 32)")
		}
		return key, nil
	}
	return nil, Errorf(CodeInvalidArgument, "the secret key is not valid base64").
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

// sealMap seals a string map as JSON; an empty map seals to nil (nothing stored).
func (s *Service) sealMap(m map[string]string) ([]byte, error) {
	if len(m) == 0 {
		return nil, nil
	}
	plain, err := json.Marshal(m)
	if err != nil {
		return nil, Internal("encoding secrets", err)
	}
	return s.seal(plain)
}

// openMap opens a map sealed by sealMap; nil opens to an empty map.
func (s *Service) openMap(sealed []byte) (map[string]string, error) {
	m := map[string]string{}
	if len(sealed) == 0 {
		return m, nil
	}
	plain, err := s.open(sealed)
	if err != nil {
		return nil, err
	}
	if err := json.Unmarshal(plain, &m); err != nil {
		return nil, errSecretsUnreadable(errors.New("sealed map is not JSON"))
	}
	return m, nil
}

func (s *Service) seal(plain []byte) ([]byte, error) {
	if s.sealer == nil {
		return nil, Internal("sealing a secret", errors.New("no sealer configured"))
	}
	out, err := s.sealer.Seal(plain)
	if err != nil {
		return nil, storeErr("sealing a secret", err)
	}
	return out, nil
}

func (s *Service) open(sealed []byte) ([]byte, error) {
	if s.sealer == nil {
		return nil, Internal("opening a secret", errors.New("no sealer configured"))
	}
	out, err := s.sealer.Open(sealed)
	if err != nil {
		var e *Error
		if errors.As(err, &e) {
			return nil, e
		}
		return nil, errSecretsUnreadable(err)
	}
	return out, nil
}
