package backend

import (
	"context"
	"time"
)

// target builds what the proxy needs to reach a service, with its secret headers, local env and
// linked credential decrypted. The result must never be logged or returned to a client.
func (s *Service) target(ctx context.Context, rec ServiceRecord) (Target, error) {
	headers, err := s.openMap(FieldServiceHeaders, rec.ID, rec.SealedHeaders)
	if err != nil {
		return Target{}, err
	}
	for k, v := range rec.PlainHeaders {
		headers[k] = v
	}
	env, err := s.openMap(FieldServiceEnv, rec.ID, rec.SealedEnv)
	if err != nil {
		return Target{}, err
	}
	timeout := time.Duration(rec.TimeoutSeconds) * time.Second
	if timeout <= 0 {
		timeout = s.cfg.DefaultServiceTimeout
	}
	t := Target{
		ServiceID:       rec.ID,
		ServiceName:     rec.Name,
		Type:            rec.Type,
		URL:             rec.URL,
		Transport:       rec.Transport,
		Headers:         headers,
		LocalCommand:    rec.LocalCommand,
		LocalArgs:       append([]string(nil), rec.LocalArgs...),
		LocalWorkingDir: rec.LocalWorkingDir,
		LocalEnv:        env,
		DisabledTools:   append([]string(nil), rec.DisabledTools...),
		Timeout:         timeout,
		Revision:        rec.UpdatedAt.UTC().Format(time.RFC3339Nano) + "|" + rec.ID,
	}
	if rec.CredentialID == "" {
		return t, nil
	}
	cred, err := s.targetCredential(ctx, rec)
	if err != nil {
		return Target{}, err
	}
	t.Credential = cred.TargetCredential
	// A rotated secret must reach the live connection: the credential's change time is part of
	// the revision, so the proxy reconnects.
	t.Revision += "|" + cred.ID + "@" + cred.updatedAt
	return t, nil
}

type targetCredentialWithTime struct {
	*TargetCredential
	updatedAt string
}

func (s *Service) targetCredential(ctx context.Context, rec ServiceRecord) (targetCredentialWithTime, error) {
	c, err := s.store.GetCredential(ctx, rec.CredentialID)
	if isNotFound(err) {
		return targetCredentialWithTime{}, Errorf(CodeDownstreamAuth,
			"service %q links credential %q, which no longer exists", rec.Name, rec.CredentialID).
			WithHint("link an existing credential to the service (admin)")
	}
	if err != nil {
		return targetCredentialWithTime{}, storeErr("reading a credential", err)
	}
	if len(c.SealedSecret) == 0 {
		return targetCredentialWithTime{}, Errorf(CodeDownstreamAuth,
			"credential %q has no secret stored", c.ID).
			WithHint("set it with: agent-deck credential rotate " + c.ID)
	}
	secret, err := s.open(FieldCredentialSecret, c.ID, c.SealedSecret)
	if err != nil {
		return targetCredentialWithTime{}, err
	}
	return targetCredentialWithTime{
		TargetCredential: &TargetCredential{
			ID: c.ID, Scheme: c.Scheme, HeaderName: c.HeaderName, EnvName: c.EnvName,
			Secret: string(secret),
		},
		updatedAt: c.UpdatedAt.UTC().Format(time.RFC3339Nano),
	}, nil
}
