package core

import (
	"context"
	"encoding/base64"
	"errors"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/agent-deck/agent-deck/backend"
)

// touchInterval bounds how often a token's last-used time is written.
const touchInterval = time.Minute

var scopes = []backend.Scope{backend.ScopeAdmin, backend.ScopeAgent, backend.ScopeAgentRead}

// TokenInput creates an API token.
type TokenInput struct {
	Name  string        `json:"name"`
	Scope backend.Scope `json:"scope"`
}

// NewToken is a freshly created token; Secret is shown once and never stored.
type NewToken struct {
	backend.Token
	Secret string `json:"secret"`
}

// CreateToken makes a token and returns its secret once. Admin only.
func (s *Hub) CreateToken(ctx context.Context, in TokenInput) (NewToken, error) {
	if _, err := backend.RequireAdmin(ctx, "create tokens"); err != nil {
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
		Token: backend.Token{ID: id, Name: name, Scope: in.Scope, CreatedAt: s.clock(), Kind: backend.TokenKindAPI},
		Hash:  backend.HashToken(secret),
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

// ListTokens returns every token's metadata. Admin only.
func (s *Hub) ListTokens(ctx context.Context) ([]backend.Token, error) {
	if _, err := backend.RequireAdmin(ctx, "list tokens"); err != nil {
		return nil, err
	}
	ts, err := s.store.ListTokens(ctx)
	if err != nil {
		return nil, backend.StoreErr("listing tokens", err)
	}
	sort.SliceStable(ts, func(i, j int) bool { return ts[i].CreatedAt.Before(ts[j].CreatedAt) })
	return backend.OrEmpty(ts), nil
}

// RevokeToken stops a token from working on its next request. Admin only.
func (s *Hub) RevokeToken(ctx context.Context, id string) error {
	if _, err := backend.RequireAdmin(ctx, "revoke tokens"); err != nil {
		return err
	}
	id = strings.TrimSpace(id)
	if id == "" {
		return backend.Invalid("id", "a token id is required")
	}
	err := s.store.RevokeToken(ctx, id, s.clock())
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
	if rec.RevokedAt != nil {
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
	return backend.Actor{TokenID: rec.ID, Scope: rec.Scope, Kind: kind, DeckID: rec.DeckID}, nil
}
