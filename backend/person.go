package backend

import (
	"context"
	"slices"
	"time"
)

// Role is what a person may do: an admin everything, a member their own decks and cards and
// those shared with them, and no server settings (people, other people's tokens, import and
// export, approvals, the audit trail).
type Role string

// Roles.
const (
	RoleAdmin  Role = "admin"
	RoleMember Role = "member"
)

// Roles lists the roles, for validation and help texts.
var Roles = []Role{RoleAdmin, RoleMember}

// Valid reports whether r is a known role.
func (r Role) Valid() bool { return slices.Contains(Roles, r) }

// Person is someone with their own tokens, decks, cards and sign-in. Email and OIDCSubject map a
// dashboard sign-in through OpenID Connect to the person.
type Person struct {
	ID          string     `json:"id"`
	Name        string     `json:"name"`
	Role        Role       `json:"role"`
	Email       string     `json:"email,omitempty"`
	OIDCSubject string     `json:"oidc_subject,omitempty"`
	CreatedAt   time.Time  `json:"created_at"`
	RemovedAt   *time.Time `json:"removed_at,omitempty"`
	// Founder marks the admin the first start made (one per database).
	Founder bool `json:"founder,omitempty"`
}

// PersonRemoval is what removing a person ended, so the caller can say it.
type PersonRemoval struct {
	Person Person `json:"person"`
	// RevokedTokens counts the person's tokens (API, dashboard, OAuth grants) revoked.
	RevokedTokens int `json:"revoked_tokens"`
	// EndedSessions are the person's MCP sessions that were live and are now terminated.
	EndedSessions []string `json:"ended_sessions"`
}

// Sharing says who besides its owner may use a deck.
type Sharing string

// Sharing modes.
const (
	SharePrivate  Sharing = "private"
	ShareEveryone Sharing = "everyone"
	SharePeople   Sharing = "people"
)

// Sharings lists the sharing modes.
var Sharings = []Sharing{SharePrivate, ShareEveryone, SharePeople}

// PersonCards are the ids of the cards linked to decks a person may use, by card type: with the
// cards the person owns, what a member sees of the collection.
type PersonCards map[CardType]map[string]bool

// Has reports whether the card is linked to a deck the person may use.
func (pc PersonCards) Has(t CardType, id string) bool { return pc[t][id] }

// MayUseDeck reports whether the actor may see, bind and edit the deck: admins every deck,
// members their own, those shared with everyone and those shared with them by name.
func (a Actor) MayUseDeck(d Deck) bool {
	if a.SeesAll() {
		return true
	}
	switch {
	case d.OwnerID == a.PersonID:
		return true
	case d.Sharing == ShareEveryone:
		return true
	case d.Sharing == SharePeople:
		return slices.Contains(d.SharedWithIDs, a.PersonID)
	}
	return false
}

// MayManage reports whether the actor may delete or re-share something owned by ownerID: its
// owner, or an admin.
func (a Actor) MayManage(ownerID string) bool {
	return a.SeesAll() || ownerID != "" && ownerID == a.PersonID
}

// SeesAll reports whether the actor sees every deck and card: an admin, or the composition
// root's own work (no person).
func (a Actor) SeesAll() bool { return a.Role != RoleMember }

// member returns the actor in ctx when it is a member, whose view of decks and cards is narrowed.
func Member(ctx context.Context) (Actor, bool) {
	a, ok := ActorFrom(ctx)
	if !ok || a.SeesAll() {
		return Actor{}, false
	}
	return a, true
}

// IsAdmin reports whether the actor holds the admin scope as an admin person: the one who may
// reach any service without naming a deck, and change what only admins change.
func (a Actor) IsAdmin() bool { return a.Scope == ScopeAdmin && a.SeesAll() }
