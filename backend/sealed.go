package backend

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
)

// AAD is the associated data of this field's value in row id.
func (f SealedField) AAD(id string) []byte {
	return []byte(f.Table + "/" + id + "/" + f.Column)
}
