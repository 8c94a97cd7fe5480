package core

import (
	"context"
	"encoding/base64"
	"errors"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/agent-deck/agent-deck/backend"
)

// touchInterval bounds how often a token's last-used time is written.
const touchInterval = time.Minute

var scopes = []backend.Scope{backend.ScopeAdmin, backend.ScopeAgent, backend.ScopeAgentRead}

// TokenInput creates an API token. Person (name or id) is whom it acts for: the caller's own
// person when empty; only an admin makes tokens for someone else.
type TokenInput struct {
	Name   string        `json:"name"`
	Scope  backend.Scope `json:"scope"`
	Person string        `json:"person,omitempty"`
}

// NewToken is a freshly created token; Secret is shown once and never stored.
type NewToken struct {
	backend.Token
	Secret string `json:"secret"`
}

// CreateToken makes a token for a person and returns its secret once. A person makes their
// own tokens (a member's admin-scope token reaches only what the member may); an admin makes
// anyone's.
func (s *Hub) CreateToken(ctx context.Context, in TokenInput) (NewToken, error) {
	a, err := backend.RequirePerson(ctx, "create tokens")
	if err != nil {
		return NewToken{}, err
	}
	person, err := s.tokenPerson(ctx, a, in.Person)
	if err != nil {
		return NewToken{}, err
	}
	name, err := backend.CleanName("name", in.Name)
	if err != nil {
		return NewToken{}, err
	}
	if !in.Scope.Valid() {
		return NewToken{}, backend.InvalidEnum("scope", in.Scope, scopes)
	}
	secret, err := backend.RandomSecret(backend.TokenPrefix)
	if err != nil {
		return NewToken{}, err
	}
	id, err := backend.NewUUID()
	if err != nil {
		return NewToken{}, err
	}
	rec := backend.TokenRecord{
		Token: backend.Token{ID: id, Name: name, Scope: in.Scope, CreatedAt: s.clock(), Kind: backend.TokenKindAPI,
			PersonID: person.ID, Person: person.Name},
		Hash: backend.HashToken(secret),
	}
	if err := s.store.CreateToken(ctx, &rec); err != nil {
		return NewToken{}, backend.StoreErr("creating a token", err)
	}
	return NewToken{Token: rec.Token, Secret: secret}, nil
}

// ServeAdminTokenName names the admin token serve keeps in the data home for the CLI.
const ServeAdminTokenName = "admin (created by serve)"

// maxServeTokenGenerations bounds the search for the current serve admin token; each revoke of
// it moves to the next generation.
const maxServeTokenGenerations = 1000

// ServeAdminToken returns the secret of the admin token serve writes into its data home, making
// the token on first use. Its secret is derived from the secret key, so every replica of a
// cluster (they share the key) computes the same token and the database holds one row for it,
// however many replicas start, at once or with fresh homes. Revoking it does not bring it
// back: the next start derives the next generation's. The derivation needs the key, so the
// token is no easier to get than the secrets the key seals. System use only (serve's start).
func (s *Hub) ServeAdminToken(ctx context.Context) (string, error) {
	if s.sealer == nil {
		return "", backend.Internal("deriving the admin token", errors.New("no sealer configured"))
	}
	for gen := 0; gen < maxServeTokenGenerations; gen++ {
		secret := backend.TokenPrefix + base64.RawURLEncoding.EncodeToString(
			s.sealer.Derive("serve admin token, generation "+strconv.Itoa(gen)))
		for attempt := 0; attempt < 2; attempt++ {
			rec, err := s.store.TokenByHash(ctx, backend.HashToken(secret))
			if err == nil {
				if rec.RevokedAt == nil && rec.Scope == backend.ScopeAdmin && rec.Kind == backend.TokenKindAPI {
					return secret, nil
				}
				break // revoked: the next generation
			}
			if !backend.IsNotFound(err) {
				return "", backend.StoreErr("finding the admin token", err)
			}
			rec = backend.TokenRecord{Token: backend.Token{Name: ServeAdminTokenName, Scope: backend.ScopeAdmin,
				CreatedAt: s.clock(), Kind: backend.TokenKindAPI}, Hash: backend.HashToken(secret)}
			err = s.store.CreateToken(ctx, &rec)
			if err == nil {
				return secret, nil
			}
			if backend.ErrorCode(err) != backend.CodeConflict {
				return "", backend.StoreErr("creating the admin token", err)
			}
			// Another replica made it at the same moment: read it again.
		}
	}
	return "", backend.Errorf(backend.CodeConflict, "the serve admin token was revoked %d times", maxServeTokenGenerations).
		WithHint("create an admin token with agent-deck token create --scope admin and pass it with --token")
}

// tokenPerson is the person a new token acts for: the caller's own unless an admin names
// another. A caller without a person (the composition root) makes the first admin's.
func (s *Hub) tokenPerson(ctx context.Context, a backend.Actor, ref string) (backend.Person, error) {
	ref = strings.TrimSpace(ref)
	switch {
	case ref == "" && a.PersonID == "":
		p, err := s.store.FounderAdmin(ctx)
		return p, backend.StoreErr("reading the first admin", err)
	case ref == "":
		return backend.Person{ID: a.PersonID, Name: a.PersonName, Role: a.Role}, nil
	}
	p, err := s.personByRef(ctx, s.store, ref)
	if err != nil {
		return backend.Person{}, err
	}
	if p.ID != a.PersonID && !a.SeesAll() {
		return backend.Person{}, backend.Errorf(backend.CodeForbidden, "a member makes tokens for themselves only, not for %s", backend.QuoteClip(p.Name)).
			WithHint("leave --person out, or ask an admin")
	}
	return p, nil
}

// ListTokens returns token metadata: an admin sees every token, a member their own.
func (s *Hub) ListTokens(ctx context.Context) ([]backend.Token, error) {
	a, err := backend.RequirePerson(ctx, "list tokens")
	if err != nil {
		return nil, err
	}
	ts, err := s.store.ListTokens(ctx)
	if err != nil {
		return nil, backend.StoreErr("listing tokens", err)
	}
	if !a.SeesAll() {
		ts = slices.DeleteFunc(ts, func(t backend.Token) bool { return t.PersonID != a.PersonID })
	}
	sort.SliceStable(ts, func(i, j int) bool { return ts[i].CreatedAt.Before(ts[j].CreatedAt) })
	return backend.OrEmpty(ts), nil
}

// RevokeToken stops a token from working on its next request: a person's own tokens, or any
// token for an admin. Another person's token is NOT_FOUND to a member.
func (s *Hub) RevokeToken(ctx context.Context, id string) error {
	a, err := backend.RequirePerson(ctx, "revoke tokens")
	if err != nil {
		return err
	}
	id = strings.TrimSpace(id)
	if id == "" {
		return backend.Invalid("id", "a token id is required")
	}
	if !a.SeesAll() {
		mine, err := s.ListTokens(ctx)
		if err != nil {
			return err
		}
		full, err := ownTokenID(mine, id)
		if err != nil {
			return err
		}
		id = full
	}
	err = s.store.RevokeToken(ctx, id, s.clock())
	if backend.IsNotFound(err) {
		full, perr := backend.ResolveIDPrefix(ctx, s.store, backend.IDToken, id)
		if perr != nil {
			return perr
		}
		if full != "" {
			err = s.store.RevokeToken(ctx, full, s.clock())
		}
	}
	if backend.IsNotFound(err) {
		return backend.Errorf(backend.CodeNotFound, "no token %q", backend.Clip(id, 80)).
			WithHint("list tokens with: agent-deck token list")
	}
	return backend.StoreErr("revoking a token", err)
}

// Authenticate turns a bearer secret into the Actor it stands for; UNAUTHENTICATED when the
// token is unknown or revoked. Dashboard sessions are not bearer tokens: they work only as the
// dashboard's cookie (AuthenticateDashboard), where the CSRF check applies.
func (s *Hub) Authenticate(ctx context.Context, secret string, kind backend.ActorKind) (backend.Actor, error) {
	return s.authenticate(ctx, secret, kind, backend.TokenKindAPI)
}

func (s *Hub) authenticate(ctx context.Context, secret string, kind backend.ActorKind, tokenKind backend.TokenKind) (backend.Actor, error) {
	secret = strings.TrimSpace(secret)
	if secret == "" {
		return backend.Actor{}, backend.Errorf(backend.CodeUnauthenticated, "a token is required").
			WithHint("send Authorization: Bearer <token>")
	}
	hash := backend.HashToken(secret)
	rec, err := s.tokenByHash(ctx, hash)
	// An OAuth grant's access token is bound to /mcp (its audience): it works for agents only.
	oauthAgent := err == nil && rec.Kind == backend.TokenKindOAuth && tokenKind == backend.TokenKindAPI && kind == backend.ActorAgent
	if backend.IsNotFound(err) || err == nil && rec.Kind != tokenKind && !oauthAgent {
		return backend.Actor{}, backend.Errorf(backend.CodeUnauthenticated, "the token is not valid").
			WithHint("create one with: agent-deck token create")
	}
	if err != nil {
		return backend.Actor{}, backend.StoreErr("checking a token", err)
	}
	if rec.RevokedAt != nil || rec.PersonRemoved {
		return backend.Actor{}, backend.Errorf(backend.CodeUnauthenticated, "the token was revoked").
			WithHint("create a new one with: agent-deck token create")
	}
	now := s.clock()
	if rec.ExpiresAt != nil && !now.Before(*rec.ExpiresAt) && rec.Kind == backend.TokenKindOAuth {
		return backend.Actor{}, backend.Errorf(backend.CodeUnauthenticated, "the access token has expired").
			WithHint("get a new one with the refresh token (the client does this by itself)")
	}
	if rec.ExpiresAt != nil && !now.Before(*rec.ExpiresAt) {
		return backend.Actor{}, backend.Errorf(backend.CodeUnauthenticated, "the dashboard session has expired").
			WithHint("sign in again with: agent-deck dashboard")
	}
	if rec.LastUsedAt == nil || now.Sub(*rec.LastUsedAt) >= touchInterval {
		if err := s.store.TouchToken(ctx, rec.ID, now); err != nil {
			s.log.Warn("recording token use failed", "token_id", rec.ID, "error", err)
		} else {
			s.cache.touchToken(string(hash), now)
		}
	}
	if kind != backend.ActorAgent {
		kind = backend.ActorUser
	}
	if !rec.PersonRole.Valid() {
		return backend.Actor{}, backend.Errorf(backend.CodeUnauthenticated, "the token belongs to no person").
			WithHint("create a new one with: agent-deck token create")
	}
	return backend.Actor{TokenID: rec.ID, Scope: rec.Scope, Kind: kind, DeckID: rec.DeckID,
		PersonID: rec.PersonID, PersonName: rec.Person, Role: rec.PersonRole}, nil
}

// ownTokenID resolves a member's reference to one of their own tokens: its id, or the start of
// it as lists print it. Other people's tokens are neither matched nor named.
func ownTokenID(mine []backend.Token, ref string) (string, error) {
	var ids []string
	for _, t := range mine {
		switch {
		case t.ID == ref:
			return t.ID, nil
		case len(ref) >= backend.MinIDPrefix && strings.HasPrefix(t.ID, strings.ToLower(ref)):
			ids = append(ids, t.ID)
		}
	}
	switch len(ids) {
	case 0:
		return "", backend.Errorf(backend.CodeNotFound, "no token %q of yours", backend.Clip(ref, 80)).
			WithHint("list your tokens with: agent-deck token list")
	case 1:
		return ids[0], nil
	}
	return "", backend.AmbiguousIDPrefix(backend.IDToken, ref, ids)
}
