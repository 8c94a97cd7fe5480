package core

import (
	"context"
	"slices"
	"strings"

	"github.com/agent-deck/agent-deck/backend"
)

// checkPatchScope enforces SPEC §10 on a service patch. On a service that carries any secret
// (sealed headers, sealed env, URL userinfo, a linked credential, or a credential a deck chose
// for it) only an admin may change where
// or how it is reached: an agent may change its description (and, elsewhere, its tool settings),
// nothing else, so no agent can send a stored secret to a URL or command of its choosing. The
// stored record decides, not the patched one: unlinking the credential and moving the URL in one
// call is still a change of a service that carries a secret. A service without secrets may be
// repointed by an agent (any secret it adds in the same call is its own); linking a credential
// and changing what a local-mcp service runs stay admin-only everywhere.
func (s *Hub) checkPatchScope(ctx context.Context, rec backend.ServiceRecord, p ServicePatch) error {
	if a, ok := backend.ActorFrom(ctx); ok && a.IsAdmin() {
		return nil
	}
	if p.Personal != nil && *p.Personal != rec.Personal {
		if _, err := backend.RequireAdmin(ctx, "change whether each person brings their own secret for a service"); err != nil {
			return err
		}
	}
	if p.CredentialID != nil {
		if cred := strings.TrimSpace(*p.CredentialID); cred != "" && cred != rec.CredentialID {
			if _, err := backend.RequireAdmin(ctx, "link a credential to a service"); err != nil {
				return err
			}
		}
	}
	secret := carriesSecret(rec)
	if !secret {
		// A deck may present its own credential to the service (deck_service_settings.go).
		var err error
		if secret, err = s.store.DeckChoosesCredential(ctx, rec.ID); err != nil {
			return backend.StoreErr("reading the decks' credentials for a service", err)
		}
	}
	if !secret {
		return checkLocalPatch(ctx, rec, p)
	}
	var stored storedSecrets
	var err error
	if stored.headers, err = s.secrets.openMap(backend.FieldServiceHeaders, rec.ID, rec.SealedHeaders); err != nil {
		return err
	}
	if stored.env, err = s.secrets.openMap(backend.FieldServiceEnv, rec.ID, rec.SealedEnv); err != nil {
		return err
	}
	if fields := patchedFields(rec, stored, p); len(fields) > 0 {
		_, err := backend.RequireAdmin(ctx, "change "+strings.Join(fields, ", ")+" of a service that carries a secret")
		return withSecretHint(err, rec, fields)
	}
	return checkLocalPatch(ctx, rec, p)
}

// checkLocalPatch keeps what a local-mcp service runs an admin decision, secrets or not.
func checkLocalPatch(ctx context.Context, rec backend.ServiceRecord, p ServicePatch) error {
	cmdChanged := p.LocalCommand != nil && strings.TrimSpace(*p.LocalCommand) != rec.LocalCommand ||
		p.LocalArgs != nil && !slices.Equal(*p.LocalArgs, rec.LocalArgs)
	dirChanged := p.LocalWorkingDir != nil && strings.TrimSpace(*p.LocalWorkingDir) != rec.LocalWorkingDir
	if rec.Type == backend.ServiceLocal && (cmdChanged || dirChanged || p.LocalEnv != nil) {
		if _, err := backend.RequireAdmin(ctx, "change what a local-mcp service runs"); err != nil {
			return err
		}
	}
	return nil
}

// carriesSecret reports whether a stored service holds anything secret that a change of its
// target could send elsewhere.
func carriesSecret(rec backend.ServiceRecord) bool {
	return len(rec.SealedHeaders) > 0 || len(rec.SealedEnv) > 0 || len(rec.SealedUserinfo) > 0 ||
		rec.CredentialID != "" || rec.Personal
}

// patchedFields names the fields a patch really changes, other than the description. A field
// sent with its stored value (or a secret sent back masked) is no change.
func patchedFields(rec backend.ServiceRecord, stored storedSecrets, p ServicePatch) []string {
	var out []string
	add := func(changed bool, field string) {
		if changed {
			out = append(out, field)
		}
	}
	add(p.Name != nil && strings.TrimSpace(*p.Name) != rec.Name, "name")
	add(p.URL != nil && strings.TrimSpace(*p.URL) != maskedURL(rec), "url")
	add(p.Transport != nil && orAuto(*p.Transport) != orAuto(rec.Transport), "transport")
	add(p.Headers != nil && !sameSecrets(rec.PlainHeaders, stored.headers, *p.Headers), "headers")
	add(p.CredentialID != nil && strings.TrimSpace(*p.CredentialID) != rec.CredentialID, "credential_id")
	add(p.LocalCommand != nil && strings.TrimSpace(*p.LocalCommand) != rec.LocalCommand, "local_command")
	add(p.LocalArgs != nil && !slices.Equal(*p.LocalArgs, rec.LocalArgs), "local_args")
	add(p.LocalWorkingDir != nil && strings.TrimSpace(*p.LocalWorkingDir) != rec.LocalWorkingDir, "local_working_dir")
	add(p.LocalEnv != nil && !sameSecrets(nil, stored.env, *p.LocalEnv), "local_env")
	add(p.TimeoutSeconds != nil && *p.TimeoutSeconds != rec.TimeoutSeconds, "timeout_seconds")
	return out
}

// storedSecrets are a service's sealed headers and env, opened.
type storedSecrets struct{ headers, env map[string]string }

// sameSecrets reports whether a headers or env patch leaves them as stored: the same names
// (case-insensitively), plain values unchanged, sealed ones sent back masked.
func sameSecrets(plain, sealed, patch map[string]string) bool {
	if len(patch) != len(plain)+len(sealed) {
		return false
	}
	for k, v := range patch {
		if old, ok := lookupFold(plain, k); ok && old == v {
			continue
		}
		if _, ok := lookupFold(sealed, k); ok && v == backend.MaskedValue {
			continue
		}
		return false
	}
	return true
}

func lookupFold(m map[string]string, key string) (string, bool) {
	for k, v := range m {
		if strings.EqualFold(k, key) {
			return v, true
		}
	}
	return "", false
}

// orAuto reads an empty transport as auto, as buildRemote stores it.
func orAuto(t backend.Transport) backend.Transport {
	if t == "" {
		return backend.TransportAuto
	}
	return t
}

// withSecretHint tells an agent refused by checkPatchScope what it may still do.
func withSecretHint(err error, rec backend.ServiceRecord, fields []string) error {
	if err == nil {
		return nil
	}
	e := backend.AsError(err)
	e.Hint = "an agent may change only the description and tool settings of a service that carries a " +
		"secret (secret headers or env, URL userinfo, a linked credential); ask an admin, or register a new service"
	return e.WithDetail("service_id", rec.ID).WithDetail("fields", fields)
}

// applyServicePatch merges a patch into rec and validates the result as a whole, exactly as a
// create would. Header and env values equal to MaskedValue keep their stored values.
func (s *Hub) applyServicePatch(ctx context.Context, rec *backend.ServiceRecord, p ServicePatch) error {
	in := ServiceInput{
		Name: rec.Name, Type: rec.Type, URL: maskedURL(*rec), Transport: rec.Transport,
		Description: rec.Description, CredentialID: rec.CredentialID,
		LocalCommand: rec.LocalCommand, LocalArgs: rec.LocalArgs,
		LocalWorkingDir: rec.LocalWorkingDir, TimeoutSeconds: rec.TimeoutSeconds, PinTools: &rec.PinTools,
		Personal: rec.Personal,
	}
	setIf(&in.Name, p.Name)
	setIf(&in.URL, p.URL)
	setIf(&in.Transport, p.Transport)
	setIf(&in.Description, p.Description)
	setIf(&in.CredentialID, p.CredentialID)
	setIf(&in.LocalCommand, p.LocalCommand)
	setIf(&in.LocalArgs, p.LocalArgs)
	setIf(&in.LocalWorkingDir, p.LocalWorkingDir)
	setIf(&in.TimeoutSeconds, p.TimeoutSeconds)
	if p.PinTools != nil {
		in.PinTools = p.PinTools
	}
	setIf(&in.Personal, p.Personal)
	var err error
	if p.Headers != nil {
		if in.Headers, err = s.patchedSecrets("headers", *p.Headers, rec.PlainHeaders, s.openerOf(backend.FieldServiceHeaders, rec.ID, rec.SealedHeaders)); err != nil {
			return err
		}
	}
	if p.LocalEnv != nil {
		if in.LocalEnv, err = s.patchedSecrets("local_env", *p.LocalEnv, nil, s.openerOf(backend.FieldServiceEnv, rec.ID, rec.SealedEnv)); err != nil {
			return err
		}
	}
	next := *rec
	if err := s.buildService(ctx, in, &next, p.Headers != nil, p.LocalEnv != nil); err != nil {
		return err
	}
	if p.URL != nil && actorIsAdmin(ctx) {
		next.URLByAdmin = true // an admin who sends the URL, changed or not, takes it on
	}
	*rec = next
	return nil
}

// patchedSecrets resolves masked values in a patch map against the stored plain and sealed
// values. The sealed ones are opened only when the patch keeps one of them.
func (s *Hub) patchedSecrets(field string, patch, plain map[string]string, sealed func() (map[string]string, error)) (map[string]string, error) {
	keeps := false
	for _, v := range patch {
		keeps = keeps || v == backend.MaskedValue
	}
	if !keeps {
		return patch, nil
	}
	stored, err := sealed()
	if err != nil {
		return nil, err
	}
	for k, v := range plain {
		stored[k] = v
	}
	return keepMasked(field, patch, stored)
}

// openerOf defers opening a sealed map until it is needed.
func (s *Hub) openerOf(f backend.SealedField, id string, sealed []byte) func() (map[string]string, error) {
	return func() (map[string]string, error) { return s.secrets.openMap(f, id, sealed) }
}

func setIf[T any](dst *T, v *T) {
	if v != nil {
		*dst = *v
	}
}
