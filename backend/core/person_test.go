package core_test

import (
	"context"
	"testing"

	"github.com/agent-deck/agent-deck/backend"
	"github.com/agent-deck/agent-deck/backend/core"
)

// personCtx signs in as a person with a fresh token of the given scope, the way a request
// would: through Authenticate.
func personCtx(t *testing.T, f *coreFixture, person string, scope backend.Scope) context.Context {
	t.Helper()
	tok := coreMust[core.NewToken](t)(f.svc.CreateToken(f.admin, core.TokenInput{Name: person + " " + string(scope), Scope: scope, Person: person}))
	kind := backend.ActorUser
	if scope != backend.ScopeAdmin {
		kind = backend.ActorAgent
	}
	a := coreMust[backend.Actor](t)(f.svc.Authenticate(context.Background(), tok.Secret, kind))
	return backend.WithActor(context.Background(), a)
}

// TestPeople: admins add, change and remove people; a member manages only their own tokens and
// never server settings; the last admin stays.
func TestPeople(t *testing.T) {
	f := newCoreFixture(t)
	founder := coreMust[backend.Person](t)(f.svc.Me(f.admin))
	if !founder.Founder || founder.Role != backend.RoleAdmin {
		t.Fatalf("first admin = %+v", founder)
	}
	_, err := f.svc.AddPerson(f.admin, core.PersonInput{Name: "alice", Role: "root"})
	wantCode(t, err, backend.CodeInvalidArgument)
	_, err = f.svc.AddPerson(f.admin, core.PersonInput{Name: "alice", Email: "not an address"})
	wantCode(t, err, backend.CodeInvalidArgument)
	alice := coreMust[backend.Person](t)(f.svc.AddPerson(f.admin, core.PersonInput{Name: "alice", Email: "alice@example.com"}))
	if alice.Role != backend.RoleMember {
		t.Errorf("default role = %q, want member", alice.Role)
	}
	_, err = f.svc.AddPerson(f.admin, core.PersonInput{Name: "ALICE"})
	wantCode(t, err, backend.CodeConflict)
	_, err = f.svc.AddPerson(f.admin, core.PersonInput{Name: "alias", Email: "Alice@example.com"})
	wantCode(t, err, backend.CodeConflict)
	coreMust[backend.Person](t)(f.svc.AddPerson(f.admin, core.PersonInput{Name: "bob"}))

	asAlice := personCtx(t, f, "alice", backend.ScopeAdmin)
	me := coreMust[backend.Person](t)(f.svc.Me(asAlice))
	if me.ID != alice.ID {
		t.Errorf("me = %+v, want alice", me)
	}
	for name, err := range map[string]error{
		"add a person":          second(f.svc.AddPerson(asAlice, core.PersonInput{Name: "mallory", Role: backend.RoleAdmin})),
		"make herself an admin": second(f.svc.UpdatePerson(asAlice, "alice", core.PersonPatch{Role: ptr(backend.RoleAdmin)})),
		"remove bob":            second(f.svc.RemovePerson(asAlice, "bob")),
		"token for bob":         second(f.svc.CreateToken(asAlice, core.TokenInput{Name: "x", Scope: backend.ScopeAgent, Person: "bob"})),
		"sign-in code for bob":  second(f.svc.CreateSignInCodeFor(asAlice, "bob")),
		"export":                second(f.svc.Export(asAlice, core.ExportInput{})),
	} {
		if e := backend.AsError(err); e == nil || e.Code != backend.CodeForbidden {
			t.Errorf("alice may %s: %v", name, err)
		}
	}
	own := coreMust[core.NewToken](t)(f.svc.CreateToken(asAlice, core.TokenInput{Name: "laptop", Scope: backend.ScopeAgent}))
	if own.PersonID != alice.ID || own.Person != "alice" {
		t.Errorf("alice's token = %+v", own.Token)
	}
	coreMust[core.NewToken](t)(f.svc.CreateToken(f.admin, core.TokenInput{Name: "bob's", Scope: backend.ScopeAgent, Person: "bob"}))
	mine := coreMust[[]backend.Token](t)(f.svc.ListTokens(asAlice))
	for _, tok := range mine {
		if tok.PersonID != alice.ID {
			t.Errorf("alice lists %s's token %q", tok.Person, tok.Name)
		}
	}
	all := coreMust[[]backend.Token](t)(f.svc.ListTokens(f.admin))
	if len(all) <= len(mine) {
		t.Errorf("the admin lists %d tokens, alice %d", len(all), len(mine))
	}
	for _, tok := range all {
		if tok.PersonID != alice.ID {
			wantCode(t, f.svc.RevokeToken(asAlice, tok.ID), backend.CodeNotFound)
			break
		}
	}
	people := coreMust[[]backend.Person](t)(f.svc.ListPeople(asAlice, true))
	for _, p := range people {
		if p.ID != alice.ID && p.Email != "" {
			t.Errorf("alice reads %s's e-mail", p.Name)
		}
	}

	wantCode(t, second(f.svc.RemovePerson(f.admin, founder.ID)), backend.CodeConflict)
	wantCode(t, second(f.svc.UpdatePerson(f.admin, founder.Name, core.PersonPatch{Role: ptr(backend.RoleMember)})), backend.CodeConflict)
}

// TestRemovePersonEndsEverything: removing a person revokes each of their tokens and ends their
// MCP sessions at once; a sign-in code made for them stops working.
func TestRemovePersonEndsEverything(t *testing.T) {
	f := newCoreFixture(t)
	coreMust[backend.Person](t)(f.svc.AddPerson(f.admin, core.PersonInput{Name: "bob"}))
	tok := coreMust[core.NewToken](t)(f.svc.CreateToken(f.admin, core.TokenInput{Name: "bob's agent", Scope: backend.ScopeAgent, Person: "bob"}))
	a := coreMust[backend.Actor](t)(f.svc.Authenticate(context.Background(), tok.Secret, backend.ActorAgent))
	asBob := backend.WithActor(context.Background(), a)
	sess := coreMust[backend.MCPSession](t)(f.svc.OpenSession(asBob, core.OpenSessionInput{Profile: "standard"}))
	code := coreMust[core.SignInCode](t)(f.svc.CreateSignInCodeFor(f.admin, "bob"))
	if code.Person != "bob" {
		t.Errorf("code for %q, want bob", code.Person)
	}

	r := coreMust[backend.PersonRemoval](t)(f.svc.RemovePerson(f.admin, "BOB"))
	if r.RevokedTokens != 1 || len(r.EndedSessions) != 1 || r.EndedSessions[0] != sess.ID {
		t.Errorf("removal = %+v, want 1 token and session %s", r, sess.ID)
	}
	_, err := f.svc.Authenticate(context.Background(), tok.Secret, backend.ActorAgent)
	wantCode(t, err, backend.CodeUnauthenticated)
	_, err = f.svc.LookupSession(asBob, sess.ID)
	wantCode(t, err, backend.CodeNotFound)
	_, err = f.svc.StartDashboardSession(context.Background(), code.Code)
	wantCode(t, err, backend.CodeUnauthenticated)
	// The name is free again; the removed row stays for the audit trail.
	coreMust[backend.Person](t)(f.svc.AddPerson(f.admin, core.PersonInput{Name: "bob"}))
	if ps := coreMust[[]backend.Person](t)(f.svc.ListPeople(f.admin, true)); len(ps) != 3 {
		t.Errorf("people with the removed = %d, want 3", len(ps))
	}
}

// TestSignInCodeForAPerson: an admin's code signs in the person it was made for, with their role.
func TestSignInCodeForAPerson(t *testing.T) {
	f := newCoreFixture(t)
	coreMust[backend.Person](t)(f.svc.AddPerson(f.admin, core.PersonInput{Name: "carol"}))
	code := coreMust[core.SignInCode](t)(f.svc.CreateSignInCodeFor(f.admin, "carol"))
	s := coreMust[core.DashboardSession](t)(f.svc.StartDashboardSession(context.Background(), code.Code))
	a := coreMust[backend.Actor](t)(f.svc.AuthenticateDashboard(context.Background(), s.Secret))
	if a.PersonName != "carol" || a.Role != backend.RoleMember || a.Scope != backend.ScopeAdmin {
		t.Errorf("dashboard actor = %+v, want carol as a member", a)
	}
}

func second[T any](_ T, err error) error { return err }

// TestOIDCSessionMapsVerifiedIdentity: an OpenID Connect sign-in opens a session for the person
// whose subject it is, or whose e-mail it is when the provider verified it; an unverified or
// unknown e-mail opens nothing.
func TestOIDCSessionMapsVerifiedIdentity(t *testing.T) {
	f := newCoreFixture(t)
	coreMust[backend.Person](t)(f.svc.AddPerson(f.admin, core.PersonInput{Name: "alice", Email: "alice@example.com"}))
	coreMust[backend.Person](t)(f.svc.AddPerson(f.admin, core.PersonInput{Name: "bob", OIDCSubject: "sub-bob"}))
	ctx := context.Background()
	for name, c := range map[string]struct {
		id   core.OIDCIdentity
		want string
	}{
		"verified e-mail":          {core.OIDCIdentity{Subject: "s1", Email: "ALICE@example.com", EmailVerified: true}, "alice"},
		"subject":                  {core.OIDCIdentity{Subject: "sub-bob", Email: "other@example.com"}, "bob"},
		"subject wins over e-mail": {core.OIDCIdentity{Subject: "sub-bob", Email: "alice@example.com", EmailVerified: true}, "bob"},
		"unverified e-mail":        {core.OIDCIdentity{Subject: "s2", Email: "alice@example.com"}, ""},
		"unknown e-mail":           {core.OIDCIdentity{Subject: "s3", Email: "mallory@example.com", EmailVerified: true}, ""},
		"no subject":               {core.OIDCIdentity{Email: "alice@example.com", EmailVerified: true}, ""},
	} {
		s, err := f.svc.StartOIDCSession(ctx, c.id)
		if c.want == "" {
			if backend.ErrorCode(err) != backend.CodeUnauthenticated {
				t.Errorf("%s: session %+v, err %v; want UNAUTHENTICATED", name, s.Token, err)
			}
			continue
		}
		if err != nil || s.Person != c.want {
			t.Errorf("%s: session for %q (%v), want %s", name, s.Person, err, c.want)
		}
	}
}
