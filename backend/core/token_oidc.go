package core

import (
	"context"
	"strings"

	"github.com/agent-deck/agent-deck/backend"
)

// OIDCIdentity is who an OpenID Connect provider says signed in, read from an ID token (and its
// user info) that the dashboard adapter has verified: signature, issuer, audience, expiry and
// nonce. EmailVerified is the provider's email_verified claim.
type OIDCIdentity struct {
	Issuer        string
	Subject       string
	Email         string
	EmailVerified bool
}

// StartOIDCSession opens a dashboard session for the person an OpenID Connect sign-in maps to:
// the person whose OIDC subject it is, else the person with that e-mail when the provider
// verified it. Anyone else is refused, naming the e-mail an admin would add.
func (s *Hub) StartOIDCSession(ctx context.Context, id OIDCIdentity) (DashboardSession, error) {
	sub := strings.TrimSpace(id.Subject)
	if sub == "" {
		return DashboardSession{}, backend.Errorf(backend.CodeUnauthenticated, "the provider's answer names nobody (no subject)")
	}
	email := ""
	if id.EmailVerified {
		email = strings.TrimSpace(id.Email)
	}
	p, err := s.store.PersonBySignIn(ctx, sub, email)
	if backend.IsNotFound(err) {
		who := "subject " + backend.QuoteClip(sub)
		hint := "ask an admin to add you: agent-deck person add NAME --oidc-subject " + sub
		switch {
		case email != "":
			who, hint = backend.QuoteClip(email), "ask an admin to add you: agent-deck person add NAME --email "+email
		case strings.TrimSpace(id.Email) != "":
			who = backend.QuoteClip(id.Email) + " (not verified by the provider)"
		}
		return DashboardSession{}, backend.Errorf(backend.CodeUnauthenticated, "%s is not a person of this hub", who).WithHint(hint)
	}
	if err != nil {
		return DashboardSession{}, backend.StoreErr("finding who signed in", err)
	}
	return s.startDashboardSession(ctx, p)
}
