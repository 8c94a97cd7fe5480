package core

import (
	"context"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/base64"
	"strings"
	"time"

	"github.com/agent-deck/agent-deck/backend"
)

// Dashboard sign-in lifetimes: a code is for the browser that `agent-deck dashboard` opens
// right away; a session lasts a working day.
const (
	SignInCodeTTL       = 2 * time.Minute
	DashboardSessionTTL = 12 * time.Hour
)

// SignInCodePrefix starts every one-time sign-in code.
const SignInCodePrefix = "adc_"

// signInCodeLen is the length of every code: the prefix and 32 random bytes in base64url (43).
const signInCodeLen = len(SignInCodePrefix) + 43

// SignInCode is a one-time code that a browser exchanges for a dashboard session.
type SignInCode struct {
	Code      string    `json:"code"`
	ExpiresAt time.Time `json:"expires_at"`
	// Person is the name of the person the code signs in.
	Person string `json:"person,omitempty"`
}

// DashboardSession is a fresh dashboard session: Secret goes into an HttpOnly cookie and is
// never shown; CSRF is what the page sends back in a header on every state-changing request.
type DashboardSession struct {
	backend.Token
	Secret string `json:"-"`
	CSRF   string `json:"csrf_token"`
	// Role is the role of the session's person.
	Role backend.Role `json:"role"`
}

// CreateSignInCode makes a one-time dashboard sign-in code for the caller's own person.
func (s *Hub) CreateSignInCode(ctx context.Context) (SignInCode, error) {
	return s.CreateSignInCodeFor(ctx, "")
}

// CreateSignInCodeFor makes a one-time dashboard sign-in code that signs in a person (name or
// id; the caller when empty). A person makes codes for themselves; an admin makes one for
// anyone, to hand to someone without a sign-in of their own.
func (s *Hub) CreateSignInCodeFor(ctx context.Context, person string) (SignInCode, error) {
	a, err := backend.RequirePerson(ctx, "sign in to the dashboard")
	if err != nil {
		return SignInCode{}, err
	}
	p, err := s.tokenPerson(ctx, a, person)
	if err != nil {
		return SignInCode{}, err
	}
	code, err := backend.RandomSecret(SignInCodePrefix)
	if err != nil {
		return SignInCode{}, err
	}
	now := s.clock()
	exp := now.Add(SignInCodeTTL)
	if err := s.store.CreateSignInCode(ctx, backend.HashToken(code), p.ID, now, exp); err != nil {
		return SignInCode{}, backend.StoreErr("creating a sign-in code", err)
	}
	return SignInCode{Code: code, ExpiresAt: exp, Person: p.Name}, nil
}

// StartDashboardSession exchanges a one-time sign-in code for a short-lived session of the
// person the code was made for. A code works once and only before it expires.
func (s *Hub) StartDashboardSession(ctx context.Context, code string) (DashboardSession, error) {
	code = strings.TrimSpace(code)
	if code == "" {
		return DashboardSession{}, backend.Invalid("code", "a sign-in code is required").
			WithHint("run agent-deck dashboard, or paste an admin token on the sign-in page")
	}
	now := s.clock()
	// Only a well-formed code costs a database query; anything else is answered like an unknown one.
	var err error = backend.Errorf(backend.CodeNotFound, "not a sign-in code")
	var personID string
	if strings.HasPrefix(code, SignInCodePrefix) && len(code) == signInCodeLen {
		personID, err = s.store.ConsumeSignInCode(ctx, backend.HashToken(code), now)
	}
	var p backend.Person
	if err == nil {
		p, err = s.store.GetPerson(ctx, personID)
	}
	if backend.IsNotFound(err) {
		return DashboardSession{}, backend.Errorf(backend.CodeUnauthenticated, "the sign-in code is not valid: it is unknown, used or expired").
			WithHint("run agent-deck dashboard again for a new one")
	}
	if err != nil {
		return DashboardSession{}, backend.StoreErr("checking a sign-in code", err)
	}
	return s.startDashboardSession(ctx, p)
}

// startDashboardSession opens a dashboard session for a person: a token row of kind dashboard,
// with the admin scope of a person's own surfaces (what it reaches is the person's role's).
func (s *Hub) startDashboardSession(ctx context.Context, p backend.Person) (DashboardSession, error) {
	secret, err := backend.RandomSecret(backend.TokenPrefix)
	if err != nil {
		return DashboardSession{}, err
	}
	now := s.clock()
	exp := now.Add(DashboardSessionTTL)
	rec := backend.TokenRecord{
		Token: backend.Token{Name: "dashboard session", Scope: backend.ScopeAdmin, CreatedAt: now,
			Kind: backend.TokenKindDashboard, ExpiresAt: &exp, PersonID: p.ID, Person: p.Name},
		Hash: backend.HashToken(secret),
	}
	if err := s.store.CreateToken(ctx, &rec); err != nil {
		return DashboardSession{}, backend.StoreErr("starting a dashboard session", err)
	}
	return DashboardSession{Token: rec.Token, Secret: secret, CSRF: DashboardCSRF(secret), Role: p.Role}, nil
}

// AuthenticateDashboard turns a dashboard session cookie into its Actor; API tokens are not
// accepted here, nor sessions past their expiry.
func (s *Hub) AuthenticateDashboard(ctx context.Context, secret string) (backend.Actor, error) {
	return s.authenticate(ctx, secret, backend.ActorUser, backend.TokenKindDashboard)
}

// DashboardCSRF is the CSRF token of the dashboard session with this secret: derived from the
// secret, so it is per session and needs no storage, and it reveals nothing of the secret.
func DashboardCSRF(secret string) string {
	sum := sha256.Sum256([]byte("agent-deck dashboard csrf\x00" + secret))
	return base64.RawURLEncoding.EncodeToString(sum[:])
}

// CheckDashboardCSRF refuses a state-changing request of a dashboard session whose CSRF header
// is missing or wrong.
func CheckDashboardCSRF(secret, header string) error {
	want := DashboardCSRF(secret)
	if subtle.ConstantTimeCompare([]byte(want), []byte(strings.TrimSpace(header))) == 1 {
		return nil
	}
	return backend.Errorf(backend.CodeForbidden, "the request lacks the dashboard session's CSRF token").
		WithHint("send the csrf_token of GET /api/v1/dashboard/session in the " + HeaderCSRF + " header")
}

// HeaderCSRF carries a dashboard session's CSRF token on state-changing requests.
const HeaderCSRF = "X-Agent-Deck-CSRF"
