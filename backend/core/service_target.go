package core

import (
	"context"
	"encoding/base64"
	"net/url"
	"slices"
	"strings"
	"time"

	"github.com/agent-deck/agent-deck/backend"
)

// target builds what the proxy needs to reach a service, with its secret headers, local env and
// linked credential decrypted, and teaches the Redactor its secrets. The result must never be
// logged or returned to a client.
func (s *Hub) target(ctx context.Context, rec backend.ServiceRecord) (backend.Target, error) {
	t, err := s.egressTarget(ctx, rec)
	if err != nil {
		return backend.Target{}, err
	}
	s.cfg.Redactor.Learn(t.ServiceID, t.Secrets)
	return t, nil
}

// egressTarget is target without teaching the Redactor, for a caller that learns the secrets
// under a key of its own (a deck's credential choice, deck_service_settings.go).
func (s *Hub) egressTarget(ctx context.Context, rec backend.ServiceRecord) (backend.Target, error) {
	t, err := s.unsignedTarget(ctx, rec)
	if err != nil {
		return backend.Target{}, err
	}
	if t.PersonalCredential || rec.Personal {
		// Each person brings their own; a remote service's calls take the person's own sign-in
		// (personTarget).
		return t, nil
	}
	if _, err := s.signIn().addOAuthBearer(ctx, rec, "", &t); err != nil {
		return backend.Target{}, err
	}
	return t, nil
}

// unsignedTarget is egressTarget without the service's OAuth token: the stored sign-in's is
// added by egressTarget, a sign-in's new one, before it is stored, by checkSignIn.
func (s *Hub) unsignedTarget(ctx context.Context, rec backend.ServiceRecord) (backend.Target, error) {
	sealedHeaders, err := s.secrets.openMap(backend.FieldServiceHeaders, rec.ID, rec.SealedHeaders)
	if err != nil {
		return backend.Target{}, err
	}
	headers := make(map[string]string, len(sealedHeaders)+len(rec.PlainHeaders))
	for k, v := range sealedHeaders {
		headers[k] = v
	}
	for k, v := range rec.PlainHeaders {
		headers[k] = v
	}
	var userinfo string
	if len(rec.SealedUserinfo) > 0 {
		raw, err := s.secrets.open(backend.FieldServiceURLUserinfo, rec.ID, rec.SealedUserinfo)
		if err != nil {
			return backend.Target{}, err
		}
		userinfo = string(raw)
		if _, set := lookupFold(headers, "Authorization"); !set {
			if headers["Authorization"], err = basicAuthHeader(userinfo); err != nil {
				return backend.Target{}, err
			}
		}
	}
	env, err := s.secrets.openMap(backend.FieldServiceEnv, rec.ID, rec.SealedEnv)
	if err != nil {
		return backend.Target{}, err
	}
	timeout := time.Duration(rec.TimeoutSeconds) * time.Second
	if timeout <= 0 {
		timeout = s.cfg.DefaultServiceTimeout
	}
	t := backend.Target{
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
		TalksBack:       rec.TalksBack,
		Hosts:           s.hostPolicy(rec.URLByAdmin),
	}
	if rec.CredentialID != "" {
		cred, err := s.targetCredential(ctx, rec)
		if err != nil {
			return backend.Target{}, err
		}
		t.Credential, t.PersonalCredential = cred.TargetCredential, cred.personal
		// A rotated secret must reach the live connection: the credential's change time is part
		// of the revision, so the proxy reconnects.
		t.Revision += "|" + cred.ID + "@" + cred.updatedAt
	} else if rec.Personal && rec.Type != backend.ServiceRemote {
		return backend.Target{}, personalWithoutCredential(ctx, rec)
	}
	t.Secrets = targetSecrets(t, sealedHeaders, userinfo)
	// Each person brings their own: the service's one sign-in is nobody's to lend. A remote
	// service takes the person's own sign-in (personTarget).
	t.PersonalSignIn = (t.PersonalCredential || rec.Personal) && rec.Type == backend.ServiceRemote
	return t, nil
}

// personalWithoutCredential refuses a call to a local service that takes each person's own
// secret but links no credential to hold it: there is nothing of the caller's to send, and the
// service's own env is not theirs.
func personalWithoutCredential(ctx context.Context, rec backend.ServiceRecord) error {
	return backend.Errorf(backend.CodeDownstreamAuth,
		"service %s takes each person's own secret, but links no credential to hold it", backend.QuoteClip(rec.Name)).
		WithDetail("service_id", rec.ID).
		WithHint(backend.InWordsOf(ctx,
			"an admin links one: agent-deck credential add LABEL --personal, then agent-deck service edit "+rec.Name+" --credential LABEL; each person then runs agent-deck credential set-mine LABEL",
			"ask your person: an admin links a personal credential to the service, and each person sets theirs with agent-deck credential set-mine"))
}

// targetSecrets lists every value the server holds secret for a service, each also in the form
// it takes on the wire, so a downstream echoing it back (in a result, an error body, its stderr)
// is masked by value wherever it surfaces. A new kind of secret is one more line here.
func targetSecrets(t backend.Target, sealedHeaders map[string]string, userinfo string) []string {
	var out []string
	add := func(vs ...string) {
		for _, v := range vs {
			if v != "" && !slices.Contains(out, v) {
				out = append(out, v)
			}
		}
	}
	if c := t.Credential; c != nil {
		add(c.Secret, base64.StdEncoding.EncodeToString([]byte(c.Secret+":")))
	}
	for _, v := range sealedHeaders {
		add(v)
	}
	for _, v := range t.LocalEnv { // every local_env value is stored sealed
		add(v)
	}
	if userinfo != "" {
		add(urlUserinfo("http://" + userinfo + "@h/")...)
	}
	slices.Sort(out) // a stable order: the proxy fingerprints it, the Redactor compares it
	return out
}

// urlUserinfo returns the password of a URL's user:pass@ part, as written and decoded, and the
// base64 of user:pass that basic auth sends.
func urlUserinfo(raw string) []string {
	u, err := url.Parse(raw)
	if err != nil || u.User == nil {
		return nil
	}
	pass, ok := u.User.Password()
	if !ok {
		return nil
	}
	_, written, _ := strings.Cut(u.User.String(), ":") // a username's own colons are escaped
	basic := base64.StdEncoding.EncodeToString([]byte(u.User.Username() + ":" + pass))
	return []string{pass, written, basic}
}

type targetCredentialWithTime struct {
	*backend.TargetCredential
	updatedAt string
	// personal says the secret is each person's own: the target carries none until the
	// calling person's is filled in (personTarget).
	personal bool
}

func (s *Hub) targetCredential(ctx context.Context, rec backend.ServiceRecord) (targetCredentialWithTime, error) {
	c, err := s.store.GetCredential(ctx, rec.CredentialID)
	if backend.IsNotFound(err) {
		return targetCredentialWithTime{}, backend.Errorf(backend.CodeDownstreamAuth,
			"service %q links credential %q, which no longer exists", rec.Name, rec.CredentialID).
			WithHint("link an existing credential to the service (admin)")
	}
	if err != nil {
		return targetCredentialWithTime{}, backend.StoreErr("reading a credential", err)
	}
	if rec.Personal || c.Personal {
		return targetCredentialWithTime{
			TargetCredential: &backend.TargetCredential{ID: c.ID, Scheme: c.Scheme, HeaderName: c.HeaderName, EnvName: c.EnvName},
			updatedAt:        c.UpdatedAt.UTC().Format(time.RFC3339Nano),
			personal:         true,
		}, nil
	}
	if len(c.SealedSecret) == 0 {
		return targetCredentialWithTime{}, backend.Errorf(backend.CodeDownstreamAuth,
			"credential %q has no secret stored", c.ID).
			WithHint("set it with: agent-deck credential rotate " + c.ID)
	}
	secret, err := s.secrets.open(backend.FieldCredentialSecret, c.ID, c.SealedSecret)
	if err != nil {
		return targetCredentialWithTime{}, err
	}
	return targetCredentialWithTime{
		TargetCredential: &backend.TargetCredential{
			ID: c.ID, Scheme: c.Scheme, HeaderName: c.HeaderName, EnvName: c.EnvName,
			Secret: string(secret),
		},
		updatedAt: c.UpdatedAt.UTC().Format(time.RFC3339Nano),
	}, nil
}
