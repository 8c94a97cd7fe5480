package backend

import (
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
)

// TokenPrefix starts every token secret, so a leaked one is recognisable (and greppable).
const TokenPrefix = "adk_"

// hashToken is what is stored for a token secret.
func hashToken(secret string) []byte {
	sum := sha256.Sum256([]byte(secret))
	return sum[:]
}

// randomSecret returns prefix + 32 random bytes, base64url.
func randomSecret(prefix string) (string, error) {
	raw := make([]byte, 32)
	if _, err := rand.Read(raw); err != nil {
		return "", Internal("generating a secret", err)
	}
	return prefix + base64.RawURLEncoding.EncodeToString(raw), nil
}
