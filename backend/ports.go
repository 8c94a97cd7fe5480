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
	// Derive is a secret for label derived from the key (HMAC-SHA256): every replica sharing the
	// key derives the same one, and nobody without the key can.
	Derive(label string) []byte
}

// SealedField names one sealed column. With a row id it is the associated data of the column's
// values ("credentials/<id>/secret"), so a value copied to another row or column does not open.
// A new sealed column gets a field here, a case in the Store's SealedValue mapping, and seals
// through Service.seal with its AAD.
type SealedField struct {
	Table  string
	Column string
}

// The sealed columns.
var (
	FieldCredentialSecret = SealedField{Table: "credentials", Column: "secret"}
	FieldServiceHeaders   = SealedField{Table: "services", Column: "headers"}
	FieldServiceEnv       = SealedField{Table: "services", Column: "local_env"}
	// FieldServiceURLUserinfo is the user:password@ taken out of a service URL.
	FieldServiceURLUserinfo = SealedField{Table: "services", Column: "url_userinfo"}
	// FieldPersonalSecret is a person's own secret for a credential; its row id is
	// "<credential id>/<person id>".
	FieldPersonalSecret = SealedField{Table: "credential_person_secrets", Column: "secret"}
)

// AAD is the associated data of this field's value in row id.
func (f SealedField) AAD(id string) []byte {
	return []byte(f.Table + "/" + id + "/" + f.Column)
}

// MarkdownRenderer turns markdown into sanitized HTML for a person's screen (the dashboard's
// previews). Agents are never sent its output: they read the markdown.
type MarkdownRenderer interface {
	RenderHTML(src string) string
}
