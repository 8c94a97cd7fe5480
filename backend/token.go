package backend

import (
	"context"
	"sort"
	"strings"
	"time"
)

// touchInterval bounds how often a token's last-used time is written.
const touchInterval = time.Minute

var scopes = []Scope{ScopeAdmin, ScopeAgent, ScopeAgentRead}

// TokenInput creates an API token.
type TokenInput struct {
	Name  string `json:"name"`
	Scope Scope  `json:"scope"`
}

// NewToken is a freshly created token; Secret is shown once and never stored.
type NewToken struct {
	Token
	Secret string `json:"secret"`
}

// CreateToken makes a token and returns its secret once. Admin only.
func (s *Service) CreateToken(ctx context.Context, in TokenInput) (NewToken, error) {
	if _, err := requireAdmin(ctx, "create tokens"); err != nil {
		return NewToken{}, err
	}
	name, err := cleanName("name", in.Name)
	if err != nil {
		return NewToken{}, err
	}
	if !in.Scope.Valid() {
		return NewToken{}, invalidEnum("scope", in.Scope, scopes)
	}
	secret, err := randomSecret(TokenPrefix)
	if err != nil {
		return NewToken{}, err
	}
	id, err := newUUID()
	if err != nil {
		return NewToken{}, err
	}
	rec := TokenRecord{
		Token: Token{ID: id, Name: name, Scope: in.Scope, CreatedAt: s.clock(), Kind: TokenKindAPI},
		Hash:  hashToken(secret),
	}
	if err := s.store.CreateToken(ctx, &rec); err != nil {
		return NewToken{}, storeErr("creating a token", err)
	}
	return NewToken{Token: rec.Token, Secret: secret}, nil
}

// ListTokens returns every token's metadata. Admin only.
func (s *Service) ListTokens(ctx context.Context) ([]Token, error) {
	if _, err := requireAdmin(ctx, "list tokens"); err != nil {
		return nil, err
	}
	ts, err := s.store.ListTokens(ctx)
	if err != nil {
		return nil, storeErr("listing tokens", err)
	}
	sort.SliceStable(ts, func(i, j int) bool { return ts[i].CreatedAt.Before(ts[j].CreatedAt) })
	return orEmpty(ts), nil
}

// RevokeToken stops a token from working on its next request. Admin only.
func (s *Service) RevokeToken(ctx context.Context, id string) error {
	if _, err := requireAdmin(ctx, "revoke tokens"); err != nil {
		return err
	}
	id = strings.TrimSpace(id)
	if id == "" {
		return invalid("id", "a token id is required")
	}
	err := s.store.RevokeToken(ctx, id, s.clock())
	if isNotFound(err) {
		return Errorf(CodeNotFound, "no token %q", clip(id, 80)).
			WithHint("list tokens with: agent-deck token list")
	}
	return storeErr("revoking a token", err)
}

// Authenticate turns a bearer secret into the Actor it stands for; UNAUTHENTICATED when the
// token is unknown or revoked. Dashboard sessions are not bearer tokens: they work only as the
// dashboard's cookie (AuthenticateDashboard), where the CSRF check applies.
func (s *Service) Authenticate(ctx context.Context, secret string, kind ActorKind) (Actor, error) {
	return s.authenticate(ctx, secret, kind, TokenKindAPI)
}

func (s *Service) authenticate(ctx context.Context, secret string, kind ActorKind, tokenKind TokenKind) (Actor, error) {
	secret = strings.TrimSpace(secret)
	if secret == "" {
		return Actor{}, Errorf(CodeUnauthenticated, "a token is required").
			WithHint("send Authorization: Bearer <token>")
	}
	hash := hashToken(secret)
	rec, err := s.tokenByHash(ctx, hash)
	// An OAuth grant's access token is bound to /mcp (its audience): it works for agents only.
	oauthAgent := err == nil && rec.Kind == TokenKindOAuth && tokenKind == TokenKindAPI && kind == ActorAgent
	if isNotFound(err) || err == nil && rec.Kind != tokenKind && !oauthAgent {
		return Actor{}, Errorf(CodeUnauthenticated, "the token is not valid").
			WithHint("create one with: agent-deck token create")
	}
	if err != nil {
		return Actor{}, storeErr("checking a token", err)
	}
	if rec.RevokedAt != nil {
		return Actor{}, Errorf(CodeUnauthenticated, "the token was revoked").
			WithHint("create a new one with: agent-deck token create")
	}
	now := s.clock()
	if rec.ExpiresAt != nil && !now.Before(*rec.ExpiresAt) && rec.Kind == TokenKindOAuth {
		return Actor{}, Errorf(CodeUnauthenticated, "the access token has expired").
			WithHint("get a new one with the refresh token (the client does this by itself)")
	}
	if rec.ExpiresAt != nil && !now.Before(*rec.ExpiresAt) {
		return Actor{}, Errorf(CodeUnauthenticated, "the dashboard session has expired").
			WithHint("sign in again with: agent-deck dashboard")
	}
	if rec.LastUsedAt == nil || now.Sub(*rec.LastUsedAt) >= touchInterval {
		if err := s.store.TouchToken(ctx, rec.ID, now); err != nil {
			s.log.Warn("recording token use failed", "token_id", rec.ID, "error", err)
		} else {
			s.cache.touchToken(string(hash), now)
		}
	}
	if kind != ActorAgent {
		kind = ActorUser
	}
	return Actor{TokenID: rec.ID, Scope: rec.Scope, Kind: kind, DeckID: rec.DeckID}, nil
}
