package postgres_test

import (
	"crypto/sha256"
	"testing"
	"time"

	"github.com/agent-deck/agent-deck/backend"
	"github.com/agent-deck/agent-deck/backend/postgres/pgtest"
)

func TestTokens(t *testing.T) {
	t.Parallel()
	st := pgtest.NewStore(t)
	hash := sha256.Sum256([]byte("secret"))
	tok := backend.TokenRecord{Token: backend.Token{Name: "ci", Scope: backend.ScopeAgentRead}, Hash: hash[:]}
	mustOK(t, st.CreateToken(ctx, &tok))
	if tok.ID == "" || tok.CreatedAt.IsZero() {
		t.Fatalf("not filled: %+v", tok)
	}

	got, err := st.TokenByHash(ctx, hash[:])
	mustOK(t, err)
	if got.ID != tok.ID || got.Scope != backend.ScopeAgentRead || got.RevokedAt != nil {
		t.Fatalf("TokenByHash = %+v", got)
	}
	other := sha256.Sum256([]byte("other"))
	_, err = st.TokenByHash(ctx, other[:])
	wantCode(t, err, backend.CodeNotFound, "")

	dup := backend.TokenRecord{Token: backend.Token{Name: "dup", Scope: backend.ScopeAdmin}, Hash: hash[:]}
	wantCode(t, st.CreateToken(ctx, &dup), backend.CodeConflict, "hash")
	bad := backend.TokenRecord{Token: backend.Token{Name: "bad", Scope: "root"}, Hash: other[:]}
	wantCode(t, st.CreateToken(ctx, &bad), backend.CodeInvalidArgument, "scope")

	used := time.Now().Truncate(time.Microsecond)
	mustOK(t, st.TouchToken(ctx, tok.ID, used))
	mustOK(t, st.TouchToken(ctx, tok.ID, used.Add(time.Second))) // within the granularity: ignored
	revoked := used.Add(time.Minute)
	mustOK(t, st.RevokeToken(ctx, tok.ID, revoked))
	mustOK(t, st.RevokeToken(ctx, tok.ID, revoked.Add(time.Hour))) // the first revocation stands
	wantCode(t, st.RevokeToken(ctx, "00000000-0000-0000-0000-000000000000", revoked), backend.CodeNotFound, "")

	got, err = st.TokenByHash(ctx, hash[:])
	mustOK(t, err)
	if got.LastUsedAt == nil || !got.LastUsedAt.Equal(used) || got.RevokedAt == nil || !got.RevokedAt.Equal(revoked) {
		t.Fatalf("after touch and revoke: %+v", got.Token)
	}
	list, err := st.ListTokens(ctx)
	mustOK(t, err)
	if len(list) != 1 || list[0].ID != tok.ID {
		t.Fatalf("ListTokens = %+v", list)
	}
}
