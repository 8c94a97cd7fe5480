package backend

import (
	"context"
	"slices"
	"strings"
)

// checkPatchScope enforces SPEC §10 on a service patch: an agent may not point a credential at
// a URL or command of its choosing, nor change what a local service runs.
func checkPatchScope(ctx context.Context, rec ServiceRecord, p ServicePatch) error {
	credAfter := rec.CredentialID
	if p.CredentialID != nil {
		credAfter = strings.TrimSpace(*p.CredentialID)
		if credAfter != "" && credAfter != rec.CredentialID {
			if _, err := requireAdmin(ctx, "link a credential to a service"); err != nil {
				return err
			}
		}
	}
	urlChanged := p.URL != nil && strings.TrimSpace(*p.URL) != rec.URL
	cmdChanged := p.LocalCommand != nil && strings.TrimSpace(*p.LocalCommand) != rec.LocalCommand ||
		p.LocalArgs != nil && !slices.Equal(*p.LocalArgs, rec.LocalArgs)
	if credAfter != "" && (urlChanged || cmdChanged) {
		if _, err := requireAdmin(ctx, "change the url or command of a service with a linked credential"); err != nil {
			return err
		}
	}
	dirChanged := p.LocalWorkingDir != nil && strings.TrimSpace(*p.LocalWorkingDir) != rec.LocalWorkingDir
	if rec.Type == ServiceLocal && (cmdChanged || dirChanged || p.LocalEnv != nil) {
		if _, err := requireAdmin(ctx, "change what a local-mcp service runs"); err != nil {
			return err
		}
	}
	return nil
}

// applyServicePatch merges a patch into rec and validates the result as a whole, exactly as a
// create would. Header and env values equal to MaskedValue keep their stored values.
func (s *Service) applyServicePatch(ctx context.Context, rec *ServiceRecord, p ServicePatch) error {
	in := ServiceInput{
		Name: rec.Name, Type: rec.Type, URL: rec.URL, Transport: rec.Transport,
		Description: rec.Description, CredentialID: rec.CredentialID,
		LocalCommand: rec.LocalCommand, LocalArgs: rec.LocalArgs,
		LocalWorkingDir: rec.LocalWorkingDir, TimeoutSeconds: rec.TimeoutSeconds,
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
	var err error
	if p.Headers != nil {
		if in.Headers, err = s.patchedSecrets("headers", *p.Headers, rec.PlainHeaders, s.openerOf(FieldServiceHeaders, rec.ID, rec.SealedHeaders)); err != nil {
			return err
		}
	}
	if p.LocalEnv != nil {
		if in.LocalEnv, err = s.patchedSecrets("local_env", *p.LocalEnv, nil, s.openerOf(FieldServiceEnv, rec.ID, rec.SealedEnv)); err != nil {
			return err
		}
	}
	next := *rec
	if err := s.buildService(ctx, in, &next, p.Headers != nil, p.LocalEnv != nil); err != nil {
		return err
	}
	*rec = next
	return nil
}

// patchedSecrets resolves masked values in a patch map against the stored plain and sealed
// values. The sealed ones are opened only when the patch keeps one of them.
func (s *Service) patchedSecrets(field string, patch, plain map[string]string, sealed func() (map[string]string, error)) (map[string]string, error) {
	keeps := false
	for _, v := range patch {
		keeps = keeps || v == MaskedValue
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
func (s *Service) openerOf(f SealedField, id string, sealed []byte) func() (map[string]string, error) {
	return func() (map[string]string, error) { return s.openMap(f, id, sealed) }
}

func setIf[T any](dst *T, v *T) {
	if v != nil {
		*dst = *v
	}
}
