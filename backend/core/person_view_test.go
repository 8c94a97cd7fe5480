package core_test

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/agent-deck/agent-deck/backend"
	"github.com/agent-deck/agent-deck/backend/core"
)

// TestMembersSeeTheirOwnAndShared (issue 26, item 2): a member's agent sees, binds and edits
// only the decks their person may use, and of the collection only their own cards and those on
// such decks; the names of everything else appear in no answer, not even a teaching error.
func TestMembersSeeTheirOwnAndShared(t *testing.T) {
	f := newCoreFixture(t)
	for _, name := range []string{"alice", "bob"} {
		coreMust[backend.Person](t)(f.svc.AddPerson(f.admin, core.PersonInput{Name: name}))
	}
	f.deck(t, "admin-only")
	adminPb := f.playbook(t, backend.PlaybookInput{Title: "Admin secret runbook", Body: "x"})
	f.link(t, "admin-only", backend.CardPlaybook, adminPb.ID)
	f.deck(t, "team")
	teamPb := f.playbook(t, backend.PlaybookInput{Title: "Team runbook", Body: "x"})
	f.link(t, "team", backend.CardPlaybook, teamPb.ID)
	coreMust[backend.Deck](t)(f.svc.ShareDeck(f.admin, "team", core.DeckSharingInput{Sharing: backend.ShareEveryone}))

	alice := personCtx(t, f, "alice", backend.ScopeAgent)
	alicePerson := personCtx(t, f, "alice", backend.ScopeAdmin)
	bob := personCtx(t, f, "bob", backend.ScopeAgent)
	ad := coreMust[backend.Deck](t)(f.svc.CreateDeck(alice, core.DeckInput{Name: "alice-private"}))
	if ad.Owner != "alice" || ad.Sharing != backend.SharePrivate {
		t.Errorf("alice's deck = %+v, want hers and private", ad)
	}
	alicePb := coreMust[core.PlaybookResult](t)(f.svc.CreatePlaybook(alice, backend.PlaybookInput{Title: "Alice private runbook", Body: "y"}))
	coreMust[core.CardsResult](t)(f.svc.LinkCard(alice, core.LinkCardInput{CardRef: core.CardRef{Deck: "alice-private",
		CardType: backend.CardPlaybook, CardID: alicePb.ID}}))

	decks := names(coreMust[[]backend.Deck](t)(f.svc.ListDecks(bob)))
	if strings.Join(decks, ",") != "team" {
		t.Errorf("bob lists decks %v, want team only", decks)
	}
	decks = names(coreMust[[]backend.Deck](t)(f.svc.ListDecks(alice)))
	if strings.Join(decks, ",") != "alice-private,team" {
		t.Errorf("alice lists decks %v", decks)
	}
	if all := coreMust[[]backend.Deck](t)(f.svc.ListDecks(f.admin)); len(all) != 3 {
		t.Errorf("the admin lists %d decks, want 3", len(all))
	}
	pbs := coreMust[[]backend.Playbook](t)(f.svc.ListPlaybooks(bob))
	if len(pbs) != 1 || pbs[0].ID != teamPb.ID {
		t.Errorf("bob lists playbooks %+v, want the team's only", pbs)
	}
	coll := coreMust[core.Collection](t)(f.svc.ListCollection(alice, ""))
	if got := len(*coll.Playbooks); got != 2 {
		t.Errorf("alice's collection holds %d playbooks, want her own and the team's", got)
	}

	sess := coreMust[backend.MCPSession](t)(f.svc.OpenSession(bob, core.OpenSessionInput{Profile: "standard"}))
	bobSess := core.WithSession(bob, sess)
	var answers []any
	for name, call := range map[string]func() (any, error){
		"get alice's deck":       func() (any, error) { return f.svc.GetDeck(bob, "alice-private") },
		"get alice's deck by id": func() (any, error) { return f.svc.GetDeck(bob, ad.ID) },
		"get the admin's deck":   func() (any, error) { return f.svc.GetDeck(bob, "Admin-Only") },
		"snapshot":               func() (any, error) { return f.svc.DeckSnapshot(bob, "alice-private") },
		"get alice's playbook":   func() (any, error) { return f.svc.GetPlaybook(bob, alicePb.ID) },
		"bind alice's deck": func() (any, error) {
			return f.svc.BindWorkspace(bobSess, sess.ID, core.BindInput{WorkspaceRoot: "/w", Deck: "alice-private"})
		},
		"rename alice's deck": func() (any, error) {
			return f.svc.RenameDeck(bob, "alice-private", core.DeckInput{Name: "mine"})
		},
		"link alice's playbook to team": func() (any, error) {
			return f.svc.LinkCard(bob, core.LinkCardInput{CardRef: core.CardRef{Deck: "team", CardType: backend.CardPlaybook, CardID: alicePb.ID}})
		},
		"change alice's playbook": func() (any, error) {
			return f.svc.UpdatePlaybook(bob, alicePb.ID, core.PlaybookPatch{Body: ptr("z")})
		},
		"delete alice's deck": func() (any, error) {
			return nil, f.svc.DeleteDeck(personCtx(t, f, "bob", backend.ScopeAdmin), "alice-private")
		},
	} {
		v, err := call()
		wantCode(t, err, backend.CodeNotFound)
		answers = append(answers, v, backend.Public(err, "r"))
		_ = name
	}
	raw, _ := json.Marshal(answers)
	// Bob's own words come back to him; nothing else of alice's or the admin's does.
	for _, secret := range []string{"Alice private runbook", "admin-only", "Admin secret runbook", alicePb.Title} {
		if strings.Contains(string(raw), secret) {
			t.Errorf("bob's answers name %q: %s", secret, raw)
		}
	}

	b := coreMust[core.Binding](t)(f.svc.BindWorkspace(bobSess, sess.ID, core.BindInput{WorkspaceRoot: "/w", Deck: "team"}))
	if !b.Bound {
		t.Fatalf("bob could not bind the shared deck: %+v", b)
	}
	// Only its owner (or an admin) shares or deletes a deck, even one shared with everyone.
	bobPerson := personCtx(t, f, "bob", backend.ScopeAdmin)
	wantCode(t, f.svc.DeleteDeck(bobPerson, "team"), backend.CodeForbidden)
	_, err := f.svc.ShareDeck(bobPerson, "team", core.DeckSharingInput{Sharing: backend.SharePrivate})
	wantCode(t, err, backend.CodeForbidden)

	// Alice shares her deck with bob by name: he sees it and its playbook; unshared, his
	// session bound to it reads as unbound.
	coreMust[backend.Deck](t)(f.svc.ShareDeck(alicePerson, "alice-private", core.DeckSharingInput{Sharing: backend.SharePeople, SharedWith: []string{"bob"}}))
	coreMust[backend.Playbook](t)(f.svc.GetPlaybook(bob, alicePb.ID))
	coreMust[core.Binding](t)(f.svc.BindWorkspace(bobSess, sess.ID, core.BindInput{WorkspaceRoot: "/w", Deck: "alice-private"}))
	coreMust[core.BoundDeck](t)(f.svc.BoundDeck(bob, sess.ID, core.DeckPageInput{}))
	coreMust[backend.Deck](t)(f.svc.ShareDeck(alicePerson, "alice-private", core.DeckSharingInput{Sharing: backend.SharePrivate}))
	_, err = f.svc.BoundDeck(bob, sess.ID, core.DeckPageInput{})
	wantCode(t, err, backend.CodeNotBound)
	_, err = f.svc.GetPlaybook(bob, alicePb.ID)
	wantCode(t, err, backend.CodeNotFound)
}

func names(ds []backend.Deck) []string {
	out := make([]string, len(ds))
	for i, d := range ds {
		out[i] = d.Name
	}
	return out
}

var _ = context.Background
