package core

import (
	"context"
	"sort"
	"strings"

	"github.com/agent-deck/agent-deck/backend"
)

// ServiceInput registers a downstream MCP server. Remote (`mcp`) services need URL; local
// (`local-mcp`) ones need LocalCommand. Header values whose names look secret and LocalEnv values
// are encrypted at rest and masked on every read. PinTools defaults to true (tool-definition
// pinning, service_toolpins.go); false needs admin.
type ServiceInput struct {
	Name            string              `json:"name"`
	Type            backend.ServiceType `json:"type"`
	URL             string              `json:"url,omitempty"`
	Transport       backend.Transport   `json:"transport,omitempty"`
	Description     string              `json:"description,omitempty"`
	Headers         map[string]string   `json:"headers,omitempty"`
	CredentialID    string              `json:"credential_id,omitempty"`
	LocalCommand    string              `json:"local_command,omitempty"`
	LocalArgs       []string            `json:"local_args,omitempty"`
	LocalWorkingDir string              `json:"local_working_dir,omitempty"`
	LocalEnv        map[string]string   `json:"local_env,omitempty"`
	TimeoutSeconds  int                 `json:"timeout_seconds,omitempty"`
	PinTools        *bool               `json:"pin_tools,omitempty"`
	// Personal says each person brings their own secret (and sign-in) for the service.
	Personal bool `json:"personal,omitempty"`
}

// ServicePatch changes some fields of a service; nil means unchanged. An empty CredentialID
// unlinks the credential. A header or env value equal to MaskedValue keeps the stored value.
type ServicePatch struct {
	Name            *string            `json:"name,omitempty"`
	URL             *string            `json:"url,omitempty"`
	Transport       *backend.Transport `json:"transport,omitempty"`
	Description     *string            `json:"description,omitempty"`
	Headers         *map[string]string `json:"headers,omitempty"`
	CredentialID    *string            `json:"credential_id,omitempty"`
	LocalCommand    *string            `json:"local_command,omitempty"`
	LocalArgs       *[]string          `json:"local_args,omitempty"`
	LocalWorkingDir *string            `json:"local_working_dir,omitempty"`
	LocalEnv        *map[string]string `json:"local_env,omitempty"`
	TimeoutSeconds  *int               `json:"timeout_seconds,omitempty"`
	PinTools        *bool              `json:"pin_tools,omitempty"`
	// Personal turns "each person brings their own" on or off; admin only.
	Personal *bool `json:"personal,omitempty"`
}

// ListServices returns every service card, masked, by name.
func (s *Hub) ListServices(ctx context.Context) ([]backend.ServiceCard, error) {
	if _, err := backend.RequireRead(ctx, "list services"); err != nil {
		return nil, err
	}
	recs, err := s.store.ListServices(ctx)
	if err != nil {
		return nil, backend.StoreErr("listing services", err)
	}
	out := make([]backend.ServiceCard, len(recs))
	for i, r := range recs {
		out[i] = s.serviceView(r)
	}
	sort.SliceStable(out, func(i, j int) bool {
		return strings.ToLower(out[i].Name) < strings.ToLower(out[j].Name)
	})
	return out, nil
}

// GetService finds a service by id or name, masked.
func (s *Hub) GetService(ctx context.Context, ref string) (backend.ServiceCard, error) {
	if _, err := backend.RequireRead(ctx, "read services"); err != nil {
		return backend.ServiceCard{}, err
	}
	rec, err := backend.ServiceByRef(ctx, s.store, ref)
	if err != nil {
		return backend.ServiceCard{}, err
	}
	return s.serviceView(rec), nil
}

// CreateService registers a service. Linking a credential, or a local command, needs admin
// scope (SPEC §10).
func (s *Hub) CreateService(ctx context.Context, in ServiceInput) (backend.ServiceCard, error) {
	if _, err := backend.RequireWrite(ctx, "register services"); err != nil {
		return backend.ServiceCard{}, err
	}
	if strings.TrimSpace(in.CredentialID) != "" {
		if _, err := backend.RequireAdmin(ctx, "link a credential to a service"); err != nil {
			return backend.ServiceCard{}, err
		}
	}
	if in.Type == backend.ServiceLocal {
		if _, err := backend.RequireAdmin(ctx, "register a local-mcp command"); err != nil {
			return backend.ServiceCard{}, err
		}
	}
	if err := checkPinToolsScope(ctx, true, in.PinTools); err != nil {
		return backend.ServiceCard{}, err
	}
	id, err := backend.NewUUID()
	if err != nil {
		return backend.ServiceCard{}, err
	}
	rec := backend.ServiceRecord{ServiceCard: backend.ServiceCard{ID: id}}
	if err := s.buildService(ctx, in, &rec, true, true); err != nil {
		return backend.ServiceCard{}, err
	}
	rec.CreatedAt, rec.UpdatedAt = s.clock(), s.clock()
	rec.DisabledTools, rec.Health = []string{}, backend.Health{Status: backend.HealthUnknown}
	if err := s.store.CreateService(ctx, &rec); err != nil {
		return backend.ServiceCard{}, backend.NameConflict(err, "service", "name", rec.Name)
	}
	return s.serviceView(rec), nil
}

// UpdateService patches a service. Changing URL or command while a credential is linked, or
// linking a credential, needs admin scope.
func (s *Hub) UpdateService(ctx context.Context, ref string, in ServicePatch) (backend.ServiceCard, error) {
	if _, err := backend.RequireWrite(ctx, "change services"); err != nil {
		return backend.ServiceCard{}, err
	}
	rec, err := backend.ServiceByRef(ctx, s.store, ref)
	if err != nil {
		return backend.ServiceCard{}, err
	}
	if err := changesService(ctx, rec); err != nil {
		return backend.ServiceCard{}, err
	}
	if err := s.checkPatchScope(ctx, rec, in); err != nil {
		return backend.ServiceCard{}, err
	}
	if err := checkPinToolsScope(ctx, rec.PinTools, in.PinTools); err != nil {
		return backend.ServiceCard{}, err
	}
	pinned := rec.PinTools
	if err := s.applyServicePatch(ctx, &rec, in); err != nil {
		return backend.ServiceCard{}, err
	}
	rec.UpdatedAt = s.clock()
	if err := s.saveService(ctx, &rec, pinned); err != nil {
		return backend.ServiceCard{}, backend.NameConflict(err, "service", "name", rec.Name)
	}
	s.forget(rec.ID)
	return s.serviceView(rec), nil
}

// DeleteService removes a service unless a playbook depends on it (PLAYBOOK_DEPENDENCY). Its
// owner or an admin, on a person's own surface.
func (s *Hub) DeleteService(ctx context.Context, ref string) error {
	a, err := backend.RequirePerson(ctx, "delete services")
	if err != nil {
		return err
	}
	id, err := backend.Transact(ctx, s.store, func(tx backend.Store) (string, error) {
		rec, err := backend.ServiceByRef(ctx, tx, ref)
		if err != nil {
			return "", err
		}
		if err := mayManage(a, "service", rec.Name, rec.OwnerID, "delete"); err != nil {
			return "", err
		}
		card := backend.CardInfo{ID: rec.ID, Name: rec.Name}
		if err := refuseIfDepended(ctx, tx, backend.CardService, card); err != nil {
			return "", err
		}
		return rec.ID, backend.StoreErr("deleting a service", tx.DeleteService(ctx, rec.ID))
	})
	if err == nil {
		s.forget(id)
	}
	return err
}
