package tests

import (
	"context"
	"net/http"
	"testing"

	"github.com/jackc/pgx/v5"

	"github.com/agent-deck/agent-deck/backend"
	"github.com/agent-deck/agent-deck/backend/core"
)

// attackSessionFlood: one token opens sessions without end. The server keeps at most
// --max-sessions-per-token (default 200) live for it: the 201st expires the least recently
// used (the first), which then answers 404 like any ended session; the other 200 work.
func attackSessionFlood(t *testing.T) {
	s := startMCPStack(t, mcpStackOptions{})
	tok := s.token(backend.ScopeAgent)
	url := s.URL + "/mcp"
	const limit = core.DefaultMaxSessionsPerToken
	ids := make([]string, limit+1)
	for i := range ids {
		ids[i] = mcpRawOpen(t, http.DefaultClient, url, tok)
	}
	if status, body := mcpRawPost(t, http.DefaultClient, url, tok, ids[0], mcpToolsListBody); status != http.StatusNotFound {
		t.Errorf("the least recently used session past the cap: %d %.200s, want 404", status, body)
	}
	for i, id := range ids[1:] {
		if status, body := mcpRawPost(t, http.DefaultClient, url, tok, id, mcpToolsListBody); status != http.StatusOK {
			t.Fatalf("session %d of the last %d: %d %.200s, want 200", i+2, limit, status, body)
		}
	}
	ctx := context.Background()
	conn, err := pgx.Connect(ctx, s.dbURL)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(ctx)
	var live int
	if err := conn.QueryRow(ctx, `SELECT count(*) FROM mcp_sessions m JOIN tokens k ON k.id = m.token_id
		WHERE m.terminated_at IS NULL AND k.scope = 'agent'`).Scan(&live); err != nil {
		t.Fatal(err)
	}
	if live != limit {
		t.Errorf("%d live sessions for the token, want the cap %d", live, limit)
	}
}
