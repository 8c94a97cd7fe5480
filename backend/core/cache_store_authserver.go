package core

import (
	"context"
	"time"

	"github.com/agent-deck/agent-deck/backend"
)

// The OAuth server's writes as the cache sees them: clients, codes and refresh tokens are not
// cached, so those pass through; a grant is a token row, so issuing, rotating (its hash
// changes) and revoking one drop the cached token.

func (s *invalidatingStore) CreateOAuthClient(ctx context.Context, c backend.AuthClient) error {
	return s.Store.CreateOAuthClient(ctx, c) // clients are not cached
}

func (s *invalidatingStore) PruneOAuthClients(ctx context.Context, unusedBefore time.Time, room int) (int, error) {
	return s.Store.PruneOAuthClients(ctx, unusedBefore, room) // clients are not cached
}

func (s *invalidatingStore) CreateOAuthCode(ctx context.Context, c backend.AuthCode) error {
	return s.Store.CreateOAuthCode(ctx, c) // codes are not cached
}

func (s *invalidatingStore) ConsumeOAuthCode(ctx context.Context, hash []byte, at time.Time) (backend.AuthCode, error) {
	return s.Store.ConsumeOAuthCode(ctx, hash, at) // codes are not cached
}

func (s *invalidatingStore) IssueOAuthGrant(ctx context.Context, t *backend.TokenRecord, codeHash []byte, r backend.AuthRefresh) error {
	err := s.Store.IssueOAuthGrant(ctx, t, codeHash, r)
	return s.after(err, "tokens", t.ID)
}

func (s *invalidatingStore) RotateOAuthRefresh(ctx context.Context, oldHash []byte, at time.Time, accessHash []byte,
	accessExpires time.Time, next backend.AuthRefresh, check func(granted backend.Scope, clientID string) (backend.Scope, error)) (backend.TokenRecord, error) {
	rec, err := s.Store.RotateOAuthRefresh(ctx, oldHash, at, accessHash, accessExpires, next, check)
	if rec.ID != "" {
		s.changed("tokens", rec.ID)
	}
	return rec, err
}
