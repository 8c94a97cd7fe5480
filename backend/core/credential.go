package core

import (
	"context"
	"sort"
	"strings"

	"github.com/agent-deck/agent-deck/backend"
)

// CredentialInput creates a credential with its secret. ID defaults to cred_<slug of label>,
// EnvName to <LABEL>_API_KEY, Scheme to bearer.
type CredentialInput struct {
	Label      string             `json:"label"`
	Value      string             `json:"value"`
	Scheme     backend.AuthScheme `json:"scheme,omitempty"`
	HeaderName string             `json:"header_name,omitempty"`
	EnvName    string             `json:"env_name,omitempty"`
	ID         string             `json:"id,omitempty"`
	Tags       []string           `json:"tags,omitempty"`
	DocsURL    string             `json:"docs_url,omitempty"`
	// Personal says each person brings their own secret; Value (a shared one) is then optional
	// and never sent.
	Personal bool `json:"personal,omitempty"`
}

// CredentialPatch changes a credential's metadata; the secret changes only by rotation.
type CredentialPatch struct {
	Label      *string             `json:"label,omitempty"`
	Scheme     *backend.AuthScheme `json:"scheme,omitempty"`
	HeaderName *string             `json:"header_name,omitempty"`
	EnvName    *string             `json:"env_name,omitempty"`
	Tags       *[]string           `json:"tags,omitempty"`
	DocsURL    *string             `json:"docs_url,omitempty"`
	Personal   *bool               `json:"personal,omitempty"`
}

// ListCredentials returns every credential's metadata, by label.
func (s *Hub) ListCredentials(ctx context.Context) ([]backend.Credential, error) {
	if _, err := backend.RequireRead(ctx, "list credentials"); err != nil {
		return nil, err
	}
	recs, err := s.store.ListCredentials(ctx)
	if err != nil {
		return nil, backend.StoreErr("listing credentials", err)
	}
	out := make([]backend.Credential, len(recs))
	for i, r := range recs {
		out[i] = credentialView(r)
	}
	sort.SliceStable(out, func(i, j int) bool {
		return strings.ToLower(out[i].Label) < strings.ToLower(out[j].Label)
	})
	if err := s.ownSecrets(ctx, out); err != nil {
		return nil, err
	}
	return out, nil
}

// GetCredential finds a credential by id or label.
func (s *Hub) GetCredential(ctx context.Context, ref string) (backend.Credential, error) {
	if _, err := backend.RequireRead(ctx, "read credentials"); err != nil {
		return backend.Credential{}, err
	}
	rec, err := backend.CredentialByRef(ctx, s.store, ref)
	if err != nil {
		return backend.Credential{}, err
	}
	out := []backend.Credential{credentialView(rec)}
	err = s.ownSecrets(ctx, out)
	return out[0], err
}

// CreateCredential stores a credential and its encrypted secret. Admin only.
func (s *Hub) CreateCredential(ctx context.Context, in CredentialInput) (backend.Credential, error) {
	if _, err := backend.RequireAdmin(ctx, "create credentials"); err != nil {
		return backend.Credential{}, err
	}
	rec, err := newCredentialRecord(in)
	if err != nil {
		return backend.Credential{}, err
	}
	rec.Personal = in.Personal
	value := ""
	if !in.Personal || strings.TrimSpace(in.Value) != "" {
		if value, err = cleanSecret(in.Value); err != nil {
			return backend.Credential{}, err
		}
	}
	rec.CreatedAt, rec.UpdatedAt = s.clock(), s.clock()
	rec.ID, err = pickID(ctx, rec.ID, backend.DeriveCredentialID(rec.Label), "id", func(id string) (bool, error) {
		c, err := s.store.GetCredential(ctx, id)
		return c.ID == id, err
	})
	if err != nil {
		return backend.Credential{}, err
	}
	// Sealed once the id is known: the secret is bound to its row.
	if value != "" {
		if rec.SealedSecret, err = s.secrets.seal(backend.FieldCredentialSecret, rec.ID, []byte(value)); err != nil {
			return backend.Credential{}, err
		}
		rec.HasSecret = true
	}
	if err := s.store.CreateCredential(ctx, &rec); err != nil {
		return backend.Credential{}, backend.NameConflict(err, "credential", "label", rec.Label)
	}
	return credentialView(rec), nil
}

// UpdateCredential changes metadata. Admin only.
func (s *Hub) UpdateCredential(ctx context.Context, ref string, in CredentialPatch) (backend.Credential, error) {
	if _, err := backend.RequireAdmin(ctx, "change credentials"); err != nil {
		return backend.Credential{}, err
	}
	rec, err := backend.CredentialByRef(ctx, s.store, ref)
	if err != nil {
		return backend.Credential{}, err
	}
	if err := applyCredentialPatch(&rec, in); err != nil {
		return backend.Credential{}, err
	}
	rec.UpdatedAt = s.clock()
	if err := s.store.UpdateCredential(ctx, &rec); err != nil {
		return backend.Credential{}, backend.NameConflict(err, "credential", "label", rec.Label)
	}
	return credentialView(rec), nil
}

// RotateCredential replaces the secret. Admin only.
func (s *Hub) RotateCredential(ctx context.Context, ref string, value string) (backend.Credential, error) {
	if _, err := backend.RequireAdmin(ctx, "rotate credential secrets"); err != nil {
		return backend.Credential{}, err
	}
	value, err := cleanSecret(value)
	if err != nil {
		return backend.Credential{}, err
	}
	rec, err := backend.CredentialByRef(ctx, s.store, ref)
	if err != nil {
		return backend.Credential{}, err
	}
	if rec.SealedSecret, err = s.secrets.seal(backend.FieldCredentialSecret, rec.ID, []byte(value)); err != nil {
		return backend.Credential{}, err
	}
	rec.HasSecret, rec.UpdatedAt = true, s.clock()
	if err := s.store.UpdateCredential(ctx, &rec); err != nil {
		return backend.Credential{}, backend.StoreErr("rotating a credential", err)
	}
	return credentialView(rec), nil
}

// DeleteCredential removes a credential unless a playbook depends on it (PLAYBOOK_DEPENDENCY).
// Admin only.
func (s *Hub) DeleteCredential(ctx context.Context, ref string) (CredentialDeletion, error) {
	if _, err := backend.RequireAdmin(ctx, "delete credentials"); err != nil {
		return CredentialDeletion{}, err
	}
	var users []string
	del, err := backend.Transact(ctx, s.store, func(tx backend.Store) (CredentialDeletion, error) {
		rec, err := backend.CredentialByRef(ctx, tx, ref)
		if err != nil {
			return CredentialDeletion{}, err
		}
		if err := refuseIfDepended(ctx, tx, backend.CardCredential, backend.CardInfo{ID: rec.ID, Name: rec.Label}); err != nil {
			return CredentialDeletion{}, err
		}
		if users, err = servicesUsing(ctx, tx, rec.ID); err != nil {
			return CredentialDeletion{}, err
		}
		del, err := credentialDeletion(ctx, tx, rec, users)
		if err != nil {
			return CredentialDeletion{}, err
		}
		return del, backend.StoreErr("deleting a credential", tx.DeleteCredential(ctx, rec.ID))
	})
	if err == nil {
		// Services that authenticated with it are left without auth; drop their connections.
		for _, id := range users {
			s.forget(id)
		}
	}
	return del, err
}
