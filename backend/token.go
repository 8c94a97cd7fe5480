package backend

import (
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
)

// TokenKind tells API tokens from dashboard sign-in sessions; both are rows of the token list,
// so a person revokes a browser's session where they revoke a token.
type TokenKind string

// Token kinds.
const (
	TokenKindAPI       TokenKind = "token"
	TokenKindDashboard TokenKind = "dashboard"
)

// TokenPrefix starts every token secret, so a leaked one is recognisable (and greppable).
const TokenPrefix = "adk_"

// hashToken is what is stored for a token secret.
func HashToken(secret string) []byte {
	sum := sha256.Sum256([]byte(secret))
	return sum[:]
}

// randomSecret returns prefix + 32 random bytes, base64url.
func RandomSecret(prefix string) (string, error) {
	raw := make([]byte, 32)
	if _, err := rand.Read(raw); err != nil {
		return "", Internal("generating a secret", err)
	}
	return prefix + base64.RawURLEncoding.EncodeToString(raw), nil
}
