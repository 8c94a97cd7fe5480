package backend

import (
	"context"
	"fmt"
	"strings"
	"unicode/utf8"
)

var schemes = []AuthScheme{SchemeBearer, SchemeHeader, SchemeHTTPBasicUser}

// credentialView is a credential's metadata as every read shows it: never the secret.
func credentialView(r CredentialRecord) Credential {
	c := r.Credential
	c.HasSecret = c.HasSecret || len(r.SealedSecret) > 0
	c.Tags = orEmpty(c.Tags)
	return c
}

// cleanSecret trims surrounding whitespace (a pasted or piped newline) and requires one line.
func cleanSecret(v string) (string, error) {
	v = strings.TrimSpace(v)
	switch {
	case v == "":
		return "", invalid("value", "the secret value is required and must not be empty")
	case len(v) > maxValueBytes:
		return "", invalid("value", "the secret value must be at most %d bytes", maxValueBytes)
	case !utf8.ValidString(v) || strings.ContainsRune(v, 0):
		return "", invalid("value", "the secret value must be UTF-8 text without NUL")
	case strings.ContainsAny(v, "\r\n"):
		// It would be sent in an HTTP header, where a line break cannot go: every call would
		// fail later as "could not connect".
		return "", invalid("value", "the secret value must be one line: it contains a line break (CR or LF)").
			WithHint("send the key alone, without line breaks inside it")
	}
	return v, nil
}

// newCredentialRecord validates a create request and derives the env name; the id is picked
// later, once it is known to be free.
func newCredentialRecord(in CredentialInput) (CredentialRecord, error) {
	var rec CredentialRecord
	var err error
	if rec.Label, err = cleanName("label", in.Label); err != nil {
		return rec, err
	}
	if rec.ID = strings.TrimSpace(in.ID); rec.ID != "" {
		if err := checkCredentialID(rec.ID); err != nil {
			return rec, err
		}
	}
	rec.Scheme, rec.HeaderName = in.Scheme, strings.TrimSpace(in.HeaderName)
	if rec.Scheme == "" {
		rec.Scheme = SchemeBearer
	}
	if rec.EnvName = strings.TrimSpace(in.EnvName); rec.EnvName == "" {
		rec.EnvName = DeriveEnvName(rec.Label)
	}
	if rec.Tags, err = cleanTags(in.Tags); err != nil {
		return rec, err
	}
	rec.DocsURL = strings.TrimSpace(in.DocsURL)
	return rec, checkCredentialFields(&rec.Credential)
}

// checkCredentialFields validates the fields that a create and a patch share.
func checkCredentialFields(c *Credential) error {
	if !validScheme(c.Scheme) {
		return invalidEnum("scheme", c.Scheme, schemes)
	}
	if c.Scheme == SchemeHeader {
		if c.HeaderName == "" {
			return invalid("header_name", "is required with scheme header: the header the secret is sent in, e.g. X-Api-Key")
		}
		if err := checkHeaderName("header_name", c.HeaderName); err != nil {
			return err
		}
	} else if c.HeaderName != "" {
		return invalid("header_name", "applies only to scheme header (scheme is %s)", c.Scheme)
	}
	if err := checkEnvName("env_name", c.EnvName); err != nil {
		return err
	}
	if c.DocsURL != "" {
		u, err := checkHTTPURL("docs_url", c.DocsURL)
		if err != nil {
			return err
		}
		c.DocsURL = u
	}
	return nil
}

func validScheme(s AuthScheme) bool {
	for _, x := range schemes {
		if s == x {
			return true
		}
	}
	return false
}

// applyCredentialPatch applies and validates a metadata patch. Moving away from scheme header
// drops the header name unless the patch sets one (which is then an error).
func applyCredentialPatch(rec *CredentialRecord, in CredentialPatch) error {
	var err error
	if in.Label != nil {
		if rec.Label, err = cleanName("label", *in.Label); err != nil {
			return err
		}
	}
	if in.Scheme != nil {
		rec.Scheme = *in.Scheme
		if rec.Scheme != SchemeHeader && in.HeaderName == nil {
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
		if rec.Tags, err = cleanTags(*in.Tags); err != nil {
			return err
		}
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
		if isNotFound(err) {
			return false, nil
		}
		return t, storeErr("checking an id", err)
	}
	if explicit != "" {
		t, err := isTaken(explicit)
		if err == nil && t {
			err = Errorf(CodeConflict, "%s %q is already taken", field, explicit).
				WithHint("choose another id, or leave it out to derive one").WithDetail("field", field)
		}
		return explicit, err
	}
	for attempt := 0; attempt < 100; attempt++ {
		id := withSuffix(derived, attempt)
		t, err := isTaken(id)
		if err != nil || !t {
			return id, err
		}
	}
	return "", Errorf(CodeConflict, "%s: every id derived from %q is taken", field, derived).
		WithHint("give an explicit id").WithDetail("field", field)
}

// refuseIfDepended is the PLAYBOOK_DEPENDENCY refusal of a delete, naming the playbooks.
func refuseIfDepended(ctx context.Context, st Store, t CardType, card cardInfo) error {
	deps, err := st.PlaybooksDependingOn(ctx, t, card.ID)
	if err != nil {
		return storeErr("finding dependent playbooks", err)
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
	return Errorf(CodePlaybookDependency, "cannot delete %s %s: playbooks depend on it: %s",
		t, card, strings.Join(names, ", ")).
		WithHint("remove the dependency from those playbooks (or delete them) first").
		WithDetail("playbooks", list)
}

// servicesUsing returns the ids of the services that authenticate with a credential.
func servicesUsing(ctx context.Context, st Store, credentialID string) ([]string, error) {
	svcs, err := st.ListServices(ctx)
	if err != nil {
		return nil, storeErr("listing services", err)
	}
	var ids []string
	for _, sv := range svcs {
		if sv.CredentialID == credentialID {
			ids = append(ids, sv.ID)
		}
	}
	return ids, nil
}
