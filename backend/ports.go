package backend

import "time"

// Clock lets tests control time; the real one is time.Now.
type Clock func() time.Time

// Sealer encrypts and decrypts secrets at rest (AES-256-GCM, see NewSealer). aad is the
// associated data a value is bound to (SealedField.AAD): Open with any other aad fails.
type Sealer interface {
	Seal(plaintext, aad []byte) ([]byte, error)
	Open(sealed, aad []byte) ([]byte, error)
	// OpenUnbound reads the format used before values were bound to their row; only the
	// start-up re-encryption (CheckSecretKey) calls it.
	OpenUnbound(sealed []byte) ([]byte, error)
	// Fingerprint identifies the key without revealing it (truncated HMAC-SHA256).
	Fingerprint() []byte
}
