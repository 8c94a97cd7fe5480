package core

import (
	"context"
	"net/mail"
	"strings"

	"github.com/agent-deck/agent-deck/backend"
)

// PersonInput adds a person. Email and OIDCSubject map a dashboard sign-in through OpenID
// Connect to the person; both are optional.
type PersonInput struct {
	Name        string       `json:"name"`
	Role        backend.Role `json:"role"`
	Email       string       `json:"email,omitempty"`
	OIDCSubject string       `json:"oidc_subject,omitempty"`
}

// PersonPatch changes a person's role or sign-in; nil fields stay as they are.
type PersonPatch struct {
	Role        *backend.Role `json:"role,omitempty"`
	Email       *string       `json:"email,omitempty"`
	OIDCSubject *string       `json:"oidc_subject,omitempty"`
}

// maxSubjectChars bounds an OpenID Connect subject (the spec allows 255 ASCII characters).
const maxSubjectChars = 255

// AddPerson adds someone to the hub. Admin only.
func (s *Hub) AddPerson(ctx context.Context, in PersonInput) (backend.Person, error) {
	if _, err := backend.RequireAdmin(ctx, "add people"); err != nil {
		return backend.Person{}, err
	}
	name, err := backend.CleanName("name", in.Name)
	if err != nil {
		return backend.Person{}, err
	}
	if in.Role == "" {
		in.Role = backend.RoleMember
	}
	p := backend.Person{Name: name, Role: in.Role, CreatedAt: s.clock()}
	if err := applyPersonPatch(&p, PersonPatch{Role: &in.Role, Email: &in.Email, OIDCSubject: &in.OIDCSubject}); err != nil {
		return backend.Person{}, err
	}
	if err := s.store.CreatePerson(ctx, &p); err != nil {
		return backend.Person{}, personConflict(err, p)
	}
	return p, nil
}

// UpdatePerson changes a person's role, e-mail or OIDC subject. Admin only; the last admin
// stays an admin.
func (s *Hub) UpdatePerson(ctx context.Context, ref string, in PersonPatch) (backend.Person, error) {
	if _, err := backend.RequireAdmin(ctx, "change people"); err != nil {
		return backend.Person{}, err
	}
	return backend.Transact(ctx, s.store, func(tx backend.Store) (backend.Person, error) {
		p, err := s.personByRef(ctx, tx, ref)
		if err != nil {
			return backend.Person{}, err
		}
		wasAdmin := p.Role == backend.RoleAdmin
		if err := applyPersonPatch(&p, in); err != nil {
			return backend.Person{}, err
		}
		if wasAdmin && p.Role != backend.RoleAdmin {
			if err := lastAdminGuard(ctx, tx, p, "make the last admin a member"); err != nil {
				return backend.Person{}, err
			}
		}
		if err := tx.UpdatePerson(ctx, &p); err != nil {
			return backend.Person{}, personConflict(err, p)
		}
		return p, nil
	})
}

// ListPeople lists the people: admins see everything (removed people too, when asked);
// members see the live people's names and roles, to share decks with them.
func (s *Hub) ListPeople(ctx context.Context, removed bool) ([]backend.Person, error) {
	a, err := backend.RequirePerson(ctx, "list people")
	if err != nil {
		return nil, err
	}
	people, err := s.store.ListPeople(ctx, removed && a.SeesAll())
	if err != nil {
		return nil, backend.StoreErr("listing people", err)
	}
	if !a.SeesAll() {
		for i := range people {
			if people[i].ID != a.PersonID {
				people[i] = backend.Person{ID: people[i].ID, Name: people[i].Name, Role: people[i].Role, CreatedAt: people[i].CreatedAt}
			}
		}
	}
	return backend.OrEmpty(people), nil
}

// Me is the person the caller's token acts for.
func (s *Hub) Me(ctx context.Context) (backend.Person, error) {
	a, err := backend.RequireRead(ctx, "say who it acts for")
	if err != nil {
		return backend.Person{}, err
	}
	if a.PersonID == "" {
		return s.store.FounderAdmin(ctx)
	}
	p, err := s.store.GetPerson(ctx, a.PersonID)
	return p, backend.StoreErr("reading a person", err)
}

// RemovePerson removes someone: every token of theirs (API tokens, dashboard sessions, OAuth
// grants) is revoked and every MCP session of theirs ends, at once, on every replica (the
// change feed carries the revocations). Their decks and cards stay, owned by them, for an
// admin to hand on. Admin only; the last admin cannot be removed.
func (s *Hub) RemovePerson(ctx context.Context, ref string) (backend.PersonRemoval, error) {
	a, err := backend.RequireAdmin(ctx, "remove people")
	if err != nil {
		return backend.PersonRemoval{}, err
	}
	return backend.Transact(ctx, s.store, func(tx backend.Store) (backend.PersonRemoval, error) {
		p, err := s.personByRef(ctx, tx, ref)
		if err != nil {
			return backend.PersonRemoval{}, err
		}
		if p.Role == backend.RoleAdmin {
			if err := lastAdminGuard(ctx, tx, p, "remove the last admin"); err != nil {
				return backend.PersonRemoval{}, err
			}
		}
		if p.ID == a.PersonID {
			return backend.PersonRemoval{}, backend.Errorf(backend.CodeForbidden, "you may not remove yourself").
				WithHint("ask another admin to remove you")
		}
		r, err := tx.RemovePerson(ctx, p.ID, s.clock())
		return r, backend.StoreErr("removing a person", err)
	})
}

// personByRef finds a live person by id or name; NOT_FOUND names the people there are.
func (s *Hub) personByRef(ctx context.Context, st backend.Store, ref string) (backend.Person, error) {
	ref = strings.TrimSpace(ref)
	if ref == "" {
		return backend.Person{}, backend.Invalid("person", "a person's name or id is required")
	}
	p, err := st.GetPerson(ctx, ref)
	if err == nil {
		return p, nil
	}
	if !backend.IsNotFound(err) {
		return backend.Person{}, backend.StoreErr("finding a person", err)
	}
	people, lerr := st.ListPeople(ctx, false)
	if lerr != nil {
		return backend.Person{}, backend.StoreErr("listing people", lerr)
	}
	names := make([]string, len(people))
	for i, p := range people {
		names[i] = p.Name
	}
	return backend.Person{}, backend.Errorf(backend.CodeNotFound, "no person %s; people: %s", backend.QuoteClip(ref), backend.KnownList(names)).
		WithHint("add one with: agent-deck person add NAME --role member").WithDetail("known", backend.CapList(names))
}

// lastAdminGuard refuses a change that would leave no live admin.
func lastAdminGuard(ctx context.Context, st backend.Store, p backend.Person, what string) error {
	people, err := st.ListPeople(ctx, false)
	if err != nil {
		return backend.StoreErr("listing people", err)
	}
	for _, o := range people {
		if o.ID != p.ID && o.Role == backend.RoleAdmin {
			return nil
		}
	}
	return backend.Errorf(backend.CodeConflict, "%s is the last admin; you may not %s", backend.QuoteClip(p.Name), what).
		WithHint("make another person an admin first: agent-deck person add NAME --role admin")
}

// applyPersonPatch validates and applies a patch.
func applyPersonPatch(p *backend.Person, in PersonPatch) error {
	if in.Role != nil {
		if !in.Role.Valid() {
			return backend.InvalidEnum("role", *in.Role, backend.Roles)
		}
		p.Role = *in.Role
	}
	if in.Email != nil {
		email, err := cleanEmail(*in.Email)
		if err != nil {
			return err
		}
		p.Email = email
	}
	if in.OIDCSubject != nil {
		sub := strings.TrimSpace(*in.OIDCSubject)
		if len(sub) > maxSubjectChars || backend.HasControl(sub, false) {
			return backend.Invalid("oidc_subject", "must be at most %d characters without control characters", maxSubjectChars)
		}
		p.OIDCSubject = sub
	}
	return nil
}

// cleanEmail accepts a bare address (name@host) or "", the way an OpenID provider reports it.
func cleanEmail(raw string) (string, error) {
	email := strings.TrimSpace(raw)
	if email == "" {
		return "", nil
	}
	addr, err := mail.ParseAddress(email)
	if err != nil || addr.Address != email || len(email) > 254 {
		return "", backend.Invalid("email", "%s is not an e-mail address such as alice@example.com", backend.QuoteClip(email))
	}
	return email, nil
}

// personConflict names the taken field of a person.
func personConflict(err error, p backend.Person) error {
	if backend.ErrorCode(err) != backend.CodeConflict {
		return backend.StoreErr("saving a person", err)
	}
	field, _ := backend.AsError(err).Details["field"].(string)
	switch field {
	case "email":
		return backend.NameConflict(err, "person", "email", p.Email)
	case "oidc_subject":
		return backend.NameConflict(err, "person", "oidc_subject", p.OIDCSubject)
	}
	return backend.NameConflict(err, "person", "name", p.Name)
}
