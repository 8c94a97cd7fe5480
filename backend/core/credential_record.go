package core

import (
	"context"
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/agent-deck/agent-deck/backend"
)

var schemes = []backend.AuthScheme{backend.SchemeBearer, backend.SchemeHeader, backend.SchemeHTTPBasicUser}

// credentialView is a credential's metadata as every read shows it: never the secret.
func credentialView(r backend.CredentialRecord) backend.Credential {
	c := r.Credential
	c.HasSecret = c.HasSecret || len(r.SealedSecret) > 0
	c.Tags = backend.OrEmpty(c.Tags)
	return c
}

// cleanSecret trims surrounding whitespace (a pasted or piped newline) and requires one line.
func cleanSecret(v string) (string, error) {
	v = strings.TrimSpace(v)
	switch {
	case v == "":
		return "", backend.Invalid("value", "the secret value is required and must not be empty")
	case len(v) > backend.MaxValueBytes:
		return "", backend.Invalid("value", "the secret value must be at most %d bytes", backend.MaxValueBytes)
	case !utf8.ValidString(v) || strings.ContainsRune(v, 0):
		return "", backend.Invalid("value", "the secret value must be UTF-8 text without NUL")
	case strings.ContainsAny(v, "\r\n"):
		// It would be sent in an HTTP header, where a line break cannot go: every call would
		// fail later as "could not connect".
		return "", backend.Invalid("value", "the secret value must be one line: it contains a line break (CR or LF)").
			WithHint("send the key alone, without line breaks inside it")
	}
	return v, nil
}

// newCredentialRecord validates a create request and derives the env name; the id is picked
// later, once it is known to be free.
func newCredentialRecord(in CredentialInput) (backend.CredentialRecord, error) {
	var rec backend.CredentialRecord
	var err error
	if rec.Label, err = backend.CleanName("label", in.Label); err != nil {
		return rec, err
	}
	if rec.ID = strings.TrimSpace(in.ID); rec.ID != "" {
		if err := backend.CheckCredentialID(rec.ID); err != nil {
			return rec, err
		}
	}
	rec.Scheme, rec.HeaderName = in.Scheme, strings.TrimSpace(in.HeaderName)
	if rec.Scheme == "" {
		rec.Scheme = backend.SchemeBearer
	}
	if rec.EnvName = strings.TrimSpace(in.EnvName); rec.EnvName == "" {
		rec.EnvName = backend.DeriveEnvName(rec.Label)
	}
	if rec.Tags, err = backend.CleanTags(in.Tags); err != nil {
		return rec, err
	}
	rec.DocsURL = strings.TrimSpace(in.DocsURL)
	return rec, checkCredentialFields(&rec.Credential)
}

// checkCredentialFields validates the fields that a create and a patch share.
func checkCredentialFields(c *backend.Credential) error {
	if !validScheme(c.Scheme) {
		return backend.InvalidEnum("scheme", c.Scheme, schemes)
	}
	if c.Scheme == backend.SchemeHeader {
		if c.HeaderName == "" {
			return backend.Invalid("header_name", "is required with scheme header: the header the secret is sent in, e.g. X-Api-Key")
		}
		if err := backend.CheckHeaderName("header_name", c.HeaderName); err != nil {
			return err
		}
	} else if c.HeaderName != "" {
		return backend.Invalid("header_name", "applies only to scheme header (scheme is %s)", c.Scheme)
	}
	if err := backend.CheckEnvName("env_name", c.EnvName); err != nil {
		return err
	}
	if c.DocsURL != "" {
		u, err := backend.CheckHTTPURL("docs_url", c.DocsURL)
		if err != nil {
			return err
		}
		c.DocsURL = u
	}
	return nil
}

func validScheme(s backend.AuthScheme) bool {
	for _, x := range schemes {
		if s == x {
			return true
		}
	}
	return false
}

// applyCredentialPatch applies and validates a metadata patch. Moving away from scheme header
// drops the header name unless the patch sets one (which is then an error).
func applyCredentialPatch(rec *backend.CredentialRecord, in CredentialPatch) error {
	var err error
	if in.Label != nil {
		if rec.Label, err = backend.CleanName("label", *in.Label); err != nil {
			return err
		}
	}
	if in.Scheme != nil {
		rec.Scheme = *in.Scheme
		if rec.Scheme != backend.SchemeHeader && in.HeaderName == nil {
			rec.HeaderName = ""
		}
	}
	if in.HeaderName != nil {
		rec.HeaderName = strings.TrimSpace(*in.HeaderName)
	}
	if in.EnvName != nil {
		rec.EnvName = strings.TrimSpace(*in.EnvName)
	}
	if in.Tags != nil {
		if rec.Tags, err = backend.CleanTags(*in.Tags); err != nil {
			return err
		}
	}
	if in.Personal != nil {
		rec.Personal = *in.Personal
	}
	if in.DocsURL != nil {
		rec.DocsURL = strings.TrimSpace(*in.DocsURL)
	}
	return checkCredentialFields(&rec.Credential)
}

// pickID returns the explicit id if it is free (CONFLICT otherwise), or the first free one of
// derived, derived_2, derived_3, …
func pickID(ctx context.Context, explicit, derived, field string, taken func(string) (bool, error)) (string, error) {
	isTaken := func(id string) (bool, error) {
		t, err := taken(id)
		if backend.IsNotFound(err) {
			return false, nil
		}
		return t, backend.StoreErr("checking an id", err)
	}
	if explicit != "" {
		t, err := isTaken(explicit)
		if err == nil && t {
			err = backend.Errorf(backend.CodeConflict, "%s %q is already taken", field, explicit).
				WithHint("choose another id, or leave it out to derive one").WithDetail("field", field)
		}
		return explicit, err
	}
	for attempt := 0; attempt < 100; attempt++ {
		id := backend.WithSuffix(derived, attempt)
		t, err := isTaken(id)
		if err != nil || !t {
			return id, err
		}
	}
	return "", backend.Errorf(backend.CodeConflict, "%s: every id derived from %q is taken", field, derived).
		WithHint("give an explicit id").WithDetail("field", field)
}

// refuseIfDepended is the PLAYBOOK_DEPENDENCY refusal of a delete, naming the playbooks.
func refuseIfDepended(ctx context.Context, st backend.Store, t backend.CardType, card backend.CardInfo) error {
	deps, err := st.PlaybooksDependingOn(ctx, t, card.ID)
	if err != nil {
		return backend.StoreErr("finding dependent playbooks", err)
	}
	if len(deps) == 0 {
		return nil
	}
	names := make([]string, len(deps))
	list := make([]map[string]string, len(deps))
	for i, p := range deps {
		names[i] = fmt.Sprintf("%q (%s)", p.Title, p.ID)
		list[i] = map[string]string{"id": p.ID, "title": p.Title}
	}
	return backend.Errorf(backend.CodePlaybookDependency, "cannot delete %s %s: playbooks depend on it: %s",
		t, card, strings.Join(names, ", ")).
		WithHint("remove the dependency from those playbooks (or delete them) first").
		WithDetail("playbooks", list)
}

// servicesUsing returns the ids of the services that authenticate with a credential.
func servicesUsing(ctx context.Context, st backend.Store, credentialID string) ([]string, error) {
	svcs, err := st.ListServices(ctx)
	if err != nil {
		return nil, backend.StoreErr("listing services", err)
	}
	var ids []string
	for _, sv := range svcs {
		if sv.CredentialID == credentialID {
			ids = append(ids, sv.ID)
		}
	}
	return ids, nil
}

// CredentialDeletion is what deleting a credential changed beyond its card: the decks that had
// chosen it for a service, whose calls present the service's own credential now (or none), and
// the services whose own credential it was, which call without one now.
type CredentialDeletion struct {
	ID    string `json:"id"`
	Label string `json:"label"`
	// Fallbacks are the deck choices the deletion dropped.
	Fallbacks []CredentialFallback `json:"fallbacks"`
	// ServicesWithout names the services that used it as their own credential.
	ServicesWithout []string `json:"services_without_credential"`
}

// CredentialFallback is one deck's choice of the deleted credential for a service.
type CredentialFallback struct {
	Deck    string `json:"deck"`
	Service string `json:"service"`
	// Now is the credential the deck's calls to the service present now: the service's own;
	// "" when it has none.
	Now string `json:"now,omitempty"`
}

// credentialDeletion works out what deleting rec drops, before it is deleted.
func credentialDeletion(ctx context.Context, st backend.Store, rec backend.CredentialRecord, users []string) (CredentialDeletion, error) {
	del := CredentialDeletion{ID: rec.ID, Label: rec.Label, Fallbacks: []CredentialFallback{}, ServicesWithout: []string{}}
	for _, id := range users {
		svc, err := st.GetService(ctx, id)
		if err != nil {
			return del, backend.StoreErr("reading a service", err)
		}
		del.ServicesWithout = append(del.ServicesWithout, svc.Name)
	}
	decks, err := st.ListDecks(ctx)
	if err != nil {
		return del, backend.StoreErr("listing decks", err)
	}
	for _, d := range decks {
		links, err := st.ListLinks(ctx, d.ID)
		if err != nil {
			return del, backend.StoreErr("listing deck cards", err)
		}
		for _, l := range links {
			if l.CardType != backend.CardService || l.Settings == nil || l.Settings.CredentialID != rec.ID {
				continue
			}
			svc, err := st.GetService(ctx, l.CardID)
			if err != nil {
				return del, backend.StoreErr("reading a service", err)
			}
			now := svc.CredentialID
			if now == rec.ID {
				now = ""
			}
			del.Fallbacks = append(del.Fallbacks, CredentialFallback{Deck: d.Name, Service: svc.Name, Now: now})
		}
	}
	return del, nil
}
