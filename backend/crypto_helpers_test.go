package backend_test

import (
	"crypto/aes"
	"crypto/cipher"
	"crypto/rand"
	"testing"
)

// sealUnbound seals in the format of releases before secrets were bound to their row:
// nonce || ciphertext+tag, no associated data.
func sealUnbound(tb testing.TB, key, plain []byte) []byte {
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
