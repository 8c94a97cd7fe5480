package dashboardapi

import (
	"testing"

	"github.com/agent-deck/agent-deck/backend"
)

// peopleSteps add, change, list and remove a person as the admin.
func peopleSteps(ok, created []int) []step {
	return []step{
		{"sign-in options", "GET", "/api/v1/dashboard/signin-options", nil, ok, func(t *testing.T, r response, _ map[string]string) {
			if string(r.body) != `{"oidc":false}` {
				t.Errorf("sign-in options without a provider: %s", r.body)
			}
		}},
		{"me", "GET", "/api/v1/me", nil, ok, func(t *testing.T, r response, _ map[string]string) {
			if p := decode[backend.Person](t, r); p.Role != backend.RoleAdmin || !p.Founder {
				t.Errorf("me = %+v, want the first admin", p)
			}
		}},
		{"add person", "POST", "/api/v1/people", map[string]any{"name": "Bob", "role": "member", "email": "bob@example.com"}, created,
			func(t *testing.T, r response, vars map[string]string) {
				p := decode[backend.Person](t, r)
				if p.Name != "Bob" || p.Role != backend.RoleMember || p.ID == "" {
					t.Errorf("person %+v", p)
				}
				vars["person_id"] = p.ID
			}},
		{"change person", "PATCH", "/api/v1/people/bob", map[string]any{"oidc_subject": "sub-bob"}, ok,
			func(t *testing.T, r response, _ map[string]string) {
				if p := decode[backend.Person](t, r); p.OIDCSubject != "sub-bob" || p.Email != "bob@example.com" {
					t.Errorf("person %+v", p)
				}
			}},
		{"list people", "GET", "/api/v1/people", nil, ok, func(t *testing.T, r response, _ map[string]string) {
			if ps := decode[[]backend.Person](t, r); len(ps) != 2 {
				t.Errorf("people %+v", ps)
			}
		}},
		{"create a deck to share", "POST", "/api/v1/decks", map[string]any{"name": "Team"}, created, nil},
		{"share deck", "PUT", "/api/v1/decks/Team/sharing", map[string]any{"sharing": "people", "shared_with": []string{"bob"}}, ok,
			func(t *testing.T, r response, _ map[string]string) {
				if d := decode[backend.Deck](t, r); d.Sharing != backend.SharePeople || len(d.SharedWith) != 1 || d.Owner != "admin" {
					t.Errorf("deck %+v", d)
				}
			}},
		{"create a personal credential", "POST", "/api/v1/credentials", map[string]any{"label": "Mine", "value": "", "personal": true}, created, nil},
		{"set my own secret", "PUT", "/api/v1/credentials/Mine/mine", map[string]any{"value": "my-own-secret"}, ok,
			func(t *testing.T, r response, _ map[string]string) {
				if c := decode[backend.Credential](t, r); !c.Personal || !c.HasOwnSecret || c.HasSecret {
					t.Errorf("credential %+v", c)
				}
			}},
		{"forget my own secret", "DELETE", "/api/v1/credentials/Mine/mine", nil, []int{204}, nil},
		{"remove person", "DELETE", "/api/v1/people/{person_id}", nil, ok, func(t *testing.T, r response, _ map[string]string) {
			if rm := decode[backend.PersonRemoval](t, r); rm.Person.Name != "Bob" || rm.Person.RemovedAt == nil {
				t.Errorf("removal %+v", rm)
			}
		}},
		{"list people with the removed", "GET", "/api/v1/people?removed=true", nil, ok, func(t *testing.T, r response, _ map[string]string) {
			if ps := decode[[]backend.Person](t, r); len(ps) != 2 || ps[1].RemovedAt == nil {
				t.Errorf("people %+v", ps)
			}
		}},
	}
}
