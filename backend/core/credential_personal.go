package core

import (
	"context"
	"encoding/base64"
	"maps"
	"slices"
	"time"

	"github.com/agent-deck/agent-deck/backend"
)

// A credential or a service may say "each person brings their own": a call then presents the
// calling person's own secret, set with SetOwnCredentialSecret, and never anyone else's. Their
// plans and targets are per person: a target with the person's secret gets a connection key of
// its own, so no connection carrying one person's secret serves another's call.

// OwnSecretInput is a person's own secret for a credential.
type OwnSecretInput struct {
	Value string `json:"value"`
}

// SetOwnCredentialSecret stores the caller's own secret for a credential they may see; write
// only, like every secret. Any person, on their own surface.
func (s *Hub) SetOwnCredentialSecret(ctx context.Context, ref string, in OwnSecretInput) (backend.Credential, error) {
	a, err := backend.RequirePerson(ctx, "set your own secret")
	if err != nil {
		return backend.Credential{}, err
	}
	value, err := cleanSecret(in.Value)
	if err != nil {
		return backend.Credential{}, err
	}
	if a.PersonID == "" {
		return backend.Credential{}, backend.Errorf(backend.CodeForbidden, "this token acts for no person").
			WithHint("use a token of your own: agent-deck token create NAME --scope admin")
	}
	rec, err := backend.CredentialByRef(ctx, s.store, ref)
	if err != nil {
		return backend.Credential{}, err
	}
	sealed, err := s.secrets.seal(backend.FieldPersonalSecret, personalSecretRow(rec.ID, a.PersonID), []byte(value))
	if err != nil {
		return backend.Credential{}, err
	}
	if err := s.store.SetPersonalSecret(ctx, rec.ID, a.PersonID, sealed, s.clock()); err != nil {
		return backend.Credential{}, backend.StoreErr("storing your secret", err)
	}
	s.forgetUsersOf(ctx, rec.ID)
	c := credentialView(rec)
	c.HasOwnSecret = true
	return c, nil
}

// DeleteOwnCredentialSecret forgets the caller's own secret for a credential.
func (s *Hub) DeleteOwnCredentialSecret(ctx context.Context, ref string) error {
	a, err := backend.RequirePerson(ctx, "delete your own secret")
	if err != nil {
		return err
	}
	rec, err := backend.CredentialByRef(ctx, s.store, ref)
	if err != nil {
		return err
	}
	err = s.store.SetPersonalSecret(ctx, rec.ID, a.PersonID, nil, s.clock())
	if backend.IsNotFound(err) {
		return backend.Errorf(backend.CodeNotFound, "you have no secret of your own for %s", backend.QuoteClip(rec.Label))
	}
	if err == nil {
		s.forgetUsersOf(ctx, rec.ID)
	}
	return backend.StoreErr("deleting your secret", err)
}

// forgetUsersOf closes the connections of the services that present the credential, so a
// changed secret reaches the next call.
func (s *Hub) forgetUsersOf(ctx context.Context, credentialID string) {
	users, err := servicesUsing(ctx, s.rawStore, credentialID)
	if err != nil {
		return
	}
	for _, id := range users {
		s.forget(id)
	}
}

// ownSecrets marks, for the caller, which personal credentials hold a secret of their own.
func (s *Hub) ownSecrets(ctx context.Context, cs []backend.Credential) error {
	a, ok := backend.ActorFrom(ctx)
	if !ok || a.PersonID == "" || !slices.ContainsFunc(cs, func(c backend.Credential) bool { return c.Personal }) {
		return nil
	}
	mine, err := s.store.PersonalSecretIDs(ctx, a.PersonID)
	if err != nil {
		return backend.StoreErr("reading your secrets", err)
	}
	for i := range cs {
		cs[i].HasOwnSecret = mine[cs[i].ID]
	}
	return nil
}

func personalSecretRow(credentialID, personID string) string { return credentialID + "/" + personID }

// personTarget fills in the calling person's own secret, or else their own downstream sign-in,
// on a target that takes each person's own, under a connection key of that person's. A person
// without either gets CREDENTIAL_MISSING (a service with a personal credential) or
// DOWNSTREAM_AUTH (a service that takes a sign-in) with the command to run: never another
// person's secret or sign-in, never the shared one.
func (s *Hub) personTarget(ctx context.Context, a backend.Actor, rec backend.ServiceRecord, t backend.Target) (backend.Target, error) {
	if a.PersonID == "" {
		if t.PersonalCredential {
			return backend.Target{}, credentialMissing(ctx, rec, t.Credential.ID, "the caller acts for no person")
		}
		return backend.Target{}, ownSignInMissing(ctx, rec, "the caller acts for no person")
	}
	key := t.ConnKey
	if key == "" {
		key = rec.ID
	}
	key += "|person:" + a.PersonID
	if _, ct, ok := s.cachedServiceTarget(key); ok && !(backend.OAuthToken{ExpiresAt: ct.OauthExpires}).NeedsRefresh(s.clock()) {
		s.cfg.Redactor.Learn(key, ct.Secrets)
		return ct, nil
	}
	gen, _ := s.cache.generation()
	var err error
	if t, err = s.ownSecretOrSignIn(ctx, a, rec, t); err != nil {
		return backend.Target{}, err
	}
	t.ConnKey = key
	slices.Sort(t.Secrets)
	s.cfg.Redactor.Learn(key, t.Secrets)
	cachePut(s.cache, serviceMap, gen, key, serviceEntry{rec: rec, target: t})
	return t, nil
}

// ownSecretOrSignIn puts the person's own secret on t, when the target's credential takes one
// and they have set it; else the person's own sign-in, when the service is remote and they have
// one.
func (s *Hub) ownSecretOrSignIn(ctx context.Context, a backend.Actor, rec backend.ServiceRecord, t backend.Target) (backend.Target, error) {
	if t.PersonalCredential {
		cred := *t.Credential
		sealed, at, err := s.store.PersonalSecret(ctx, cred.ID, a.PersonID)
		switch {
		case err == nil:
			secret, err := s.secrets.open(backend.FieldPersonalSecret, personalSecretRow(cred.ID, a.PersonID), sealed)
			if err != nil {
				return backend.Target{}, err
			}
			cred.Secret = string(secret)
			t.Credential = &cred
			t.Revision += "|" + a.PersonID + "@" + at.UTC().Format(time.RFC3339Nano)
			t.Secrets = append(slices.Clone(t.Secrets), cred.Secret, base64.StdEncoding.EncodeToString([]byte(cred.Secret+":")))
			return t, nil
		case !backend.IsNotFound(err):
			return backend.Target{}, backend.StoreErr("reading your secret", err)
		}
	}
	missing := func() error {
		if t.PersonalCredential {
			return credentialMissing(ctx, rec, t.Credential.ID, backend.QuoteClip(a.PersonName)+" has not set theirs")
		}
		return ownSignInMissing(ctx, rec, backend.QuoteClip(a.PersonName)+" has not signed in")
	}
	if !t.PersonalSignIn {
		return backend.Target{}, missing()
	}
	signed := t
	signed.Headers = maps.Clone(t.Headers)
	if signed.Headers == nil {
		signed.Headers = map[string]string{}
	}
	ok, err := s.signIn().addOAuthBearer(ctx, rec, a.PersonID, &signed)
	if err != nil {
		return backend.Target{}, err
	}
	if !ok {
		return backend.Target{}, missing()
	}
	// The person's sign-in stands in for the secret they did not set: no credential goes out.
	signed.Credential, signed.PersonalCredential = nil, false
	signed.Revision += "|" + a.PersonID + "@sign-in"
	return signed, nil
}

// credentialMissing is the refusal of a call that needs the caller's own secret.
func credentialMissing(ctx context.Context, rec backend.ServiceRecord, credentialID, why string) error {
	return backend.Errorf(backend.CodeCredentialMissing, "service %s takes each person's own secret for credential %s, and %s",
		backend.QuoteClip(rec.Name), credentialID, why).
		WithDetail("service_id", rec.ID).WithDetail("credential_id", credentialID).
		WithHint(backend.InWordsOf(ctx, "set yours with: agent-deck credential set-mine "+credentialID+orConnect(rec, "or sign in with your own account"),
			"ask your person to set theirs with: agent-deck credential set-mine "+credentialID+orConnect(rec, "or to sign in with their own account")))
}

// orConnect offers a remote service's own sign-in as the other way to bring one's own.
func orConnect(rec backend.ServiceRecord, words string) string {
	if rec.Type != backend.ServiceRemote {
		return ""
	}
	return ", " + words + ": agent-deck service connect " + rec.Name
}
