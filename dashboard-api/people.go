package dashboardapi

import (
	"net/http"

	"github.com/gin-gonic/gin"

	"github.com/agent-deck/agent-deck/backend"
	"github.com/agent-deck/agent-deck/backend/core"
)

// peopleRoutes are the people of the hub: who tokens, decks and cards belong to.
func (a *api) peopleRoutes() []route {
	return []route{
		noBody(http.MethodGet, v1+"/me", "The person the token acts for, with their role", a.me),
		list(v1+"/people", "The people, by name (members see names and roles only); admin", a.listPeople, "id").
			withQuery(queryParam{name: "removed", boolean: true, description: "include removed people (admin)"}).adminOnly(),
		withBody(http.MethodPost, v1+"/people", "Add a person (admin or member); admin", http.StatusCreated, a.addPerson).adminOnly(),
		withBody(http.MethodPatch, v1+"/people/:person", "Change a person's role, e-mail or OpenID Connect subject; admin", http.StatusOK, a.updatePerson).adminOnly(),
		noBody(http.MethodDelete, v1+"/people/:person", "Remove a person: their tokens are revoked and their MCP sessions end at once; admin", a.removePerson).adminOnly(),
		withBody(http.MethodPut, v1+"/credentials/:credential/mine", "Set your own secret for a credential (used where each person brings their own; write-only); admin", http.StatusOK, a.setOwnSecret).adminOnly(),
		noContent(http.MethodDelete, v1+"/credentials/:credential/mine", "Forget your own secret for a credential; admin", a.deleteOwnSecret).adminOnly(),
		withBody(http.MethodPut, v1+"/decks/:deck/sharing", "Share a deck with everyone or named people, make it private, or hand it on (its owner or the admin role); admin", http.StatusOK, a.shareDeck).adminOnly(),
	}
}

func (a *api) setOwnSecret(c *gin.Context, in core.OwnSecretInput) (backend.Credential, error) {
	return a.svc.SetOwnCredentialSecret(ctx(c), c.Param("credential"), in)
}

func (a *api) deleteOwnSecret(c *gin.Context) error {
	return a.svc.DeleteOwnCredentialSecret(ctx(c), c.Param("credential"))
}

func (a *api) shareDeck(c *gin.Context, in core.DeckSharingInput) (backend.Deck, error) {
	return a.svc.ShareDeck(ctx(c), c.Param("deck"), in)
}

func (a *api) me(c *gin.Context) (backend.Person, error) {
	return a.svc.Me(ctx(c))
}

func (a *api) listPeople(c *gin.Context) ([]backend.Person, error) {
	return a.svc.ListPeople(ctx(c), c.Query("removed") == "true")
}

func (a *api) addPerson(c *gin.Context, in core.PersonInput) (backend.Person, error) {
	return a.svc.AddPerson(ctx(c), in)
}

func (a *api) updatePerson(c *gin.Context, in core.PersonPatch) (backend.Person, error) {
	return a.svc.UpdatePerson(ctx(c), c.Param("person"), in)
}

func (a *api) removePerson(c *gin.Context) (backend.PersonRemoval, error) {
	return a.svc.RemovePerson(ctx(c), c.Param("person"))
}

// peopleFieldDocs describe the people's request fields in the OpenAPI document.
var peopleFieldDocs = map[string]string{
	"role":         "admin (everything) or member (their own decks and cards and those shared with them)",
	"email":        "E-mail an OpenID Connect sign-in maps to this person (verified by the provider)",
	"oidc_subject": "OpenID Connect subject (sub) that maps to this person",
	"person":       "A person's name: whom a token or session acts for, whose agent made a call or proposal; in a request, the person (name or id) it is for (empty: the caller; only an admin names someone else)",
	"sharing":      "private (the owner only), everyone, or people (the owner and those in shared_with)",
	"shared_with":  "People (names or ids) a deck with sharing people is shared with",
	"owner":        "The person a deck belongs to; in a sharing change, the person (name or id) it is handed to",
	"personal":     "Each person brings their own secret (and sign-in): a call uses the caller's own",
}

func init() {
	for k, v := range peopleFieldDocs {
		if _, taken := fieldDocs[k]; !taken {
			fieldDocs[k] = v
		}
	}
}
