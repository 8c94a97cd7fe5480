package backend

import (
	"context"
	"time"
)

// TokenKindOAuth is a grant to an OAuth client: its secret is the current access token, which
// rotates on every refresh; it works on /mcp only.
const TokenKindOAuth TokenKind = "oauth"

// OAuthClient is a client registered by Dynamic Client Registration (RFC 7591), or one known by
// its Client ID Metadata Document (never stored).
type AuthClient struct {
	ID           string    `json:"client_id"`
	Name         string    `json:"client_name"`
	RedirectURIs []string  `json:"redirect_uris"`
	CreatedAt    time.Time `json:"-"`
	// SignedInAt is when one of the client's codes first became a grant; nil for a client that
	// never completed a sign-in, which expires.
	SignedInAt *time.Time `json:"-"`
}

// OAuthCode is an authorization code as stored (its sha256 only).
type AuthCode struct {
	Hash        []byte
	ClientID    string
	ClientName  string
	RedirectURI string
	Challenge   string // base64url(sha256(code_verifier))
	Scope       Scope
	Resource    string
	CreatedAt   time.Time
	ExpiresAt   time.Time
	UsedAt      *time.Time
	TokenID     string // the grant this code became, once used
	// DeckID is the deck chosen at consent, handed to the grant.
	DeckID string
	// PersonID is the person who consented: the grant acts for them.
	PersonID string
}

// OAuthRefresh is a refresh token as stored (its sha256 only), of one grant.
type AuthRefresh struct {
	Hash      []byte
	TokenID   string
	CreatedAt time.Time
	ExpiresAt time.Time
	// Scope is the grant's scope, which every refresh token of the grant keeps; a refresh's
	// access token may be narrower (RFC 6749 §6).
	Scope Scope
	// ClientID is the client the token was issued to, the only one that may spend it; "" for
	// a token issued before clients were recorded (the first refresh naming a client binds it).
	ClientID string
}

// AuthServerStore is the storage of the OAuth authorization server.
type AuthServerStore interface {
	CreateOAuthClient(ctx context.Context, c AuthClient) error
	// GetOAuthClient is NOT_FOUND for an unknown client.
	GetOAuthClient(ctx context.Context, id string) (AuthClient, error)
	// PruneOAuthClients deletes the clients that never completed a sign-in and were registered
	// before unusedBefore, then, while more than room clients are left, the oldest clients that
	// never signed in; it returns how many clients are left.
	PruneOAuthClients(ctx context.Context, unusedBefore time.Time, room int) (left int, err error)
	CreateOAuthCode(ctx context.Context, c AuthCode) error
	// ConsumeOAuthCode marks an unused, unexpired code used and returns it. A code used before
	// is returned with UsedAt set and CONFLICT; an unknown or expired one is NOT_FOUND.
	ConsumeOAuthCode(ctx context.Context, hash []byte, at time.Time) (AuthCode, error)
	// IssueOAuthGrant stores a new grant (token row) with its first refresh token, records it
	// on the code it came from and marks the code's client signed in, in one transaction.
	IssueOAuthGrant(ctx context.Context, t *TokenRecord, codeHash []byte, r AuthRefresh) error
	// RotateOAuthRefresh spends refresh token oldHash: the grant's access hash, expiry and
	// scope are replaced and next becomes its refresh token (with the grant's scope), in one
	// transaction. check gets the grant's scope and the client the token was issued to, and
	// returns the access token's scope; its error leaves everything as it was. A refresh token spent before revokes the grant and is
	// CONFLICT; an unknown or expired one, or one of a revoked grant, is NOT_FOUND.
	RotateOAuthRefresh(ctx context.Context, oldHash []byte, at time.Time, accessHash []byte,
		accessExpires time.Time, next AuthRefresh, check func(granted Scope, clientID string) (Scope, error)) (TokenRecord, error)
}
