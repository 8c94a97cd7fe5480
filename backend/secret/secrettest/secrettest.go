// Package secrettest holds test helpers for sealed values that no production path may produce.
package secrettest

import (
	"crypto/aes"
	"crypto/cipher"
	"crypto/rand"
	"testing"
)

// SealUnbound seals in the format of releases before secrets were bound to their row:
// nonce || ciphertext+tag, no associated data. Only the start-up re-encryption reads it.
func SealUnbound(tb testing.TB, key, plain []byte) []byte {
	tb.Helper()
	block, err := aes.NewCipher(key)
	if err != nil {
		tb.Fatal(err)
	}
	aead, err := cipher.NewGCM(block)
	if err != nil {
		tb.Fatal(err)
	}
	nonce := make([]byte, aead.NonceSize())
	if _, err := rand.Read(nonce); err != nil {
		tb.Fatal(err)
	}
	return aead.Seal(nonce, nonce, plain, nil)
}
