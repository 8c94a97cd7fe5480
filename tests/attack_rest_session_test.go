package tests

import (
	"encoding/json"
	"net/http"
	"testing"

	"github.com/agent-deck/agent-deck/backend"
)

// attackRESTEndOthersSession: ending a session is the admin's: an agent token may not end
// another client's session (nor its own this way), and the session keeps working.
func attackRESTEndOthersSession(t *testing.T) {
	srv := startFrontDoor(t, nil)
	victim := dialMCP(t, srv.URL()+"/mcp", map[string]string{"Authorization": "Bearer " + frontDoorToken(t, srv, backend.ScopeAgent)}, "")
	attacker := frontDoorToken(t, srv, backend.ScopeAgent)
	for _, tok := range []string{attacker, frontDoorToken(t, srv, backend.ScopeAgentRead)} {
		if status, raw := frontDoorCall(t, srv, tok, http.MethodDelete, "/api/v1/sessions/"+victim.sessionID(), nil); status != http.StatusForbidden {
			t.Errorf("an agent ended a session: %d %s", status, raw)
		}
	}
	if _, err := victim.callErr("get_bound_deck", map[string]any{}); err != nil {
		t.Errorf("the session stopped working after refused attempts: %v", err)
	}
	var sessions []backend.MCPSession
	status, raw := frontDoorCall(t, srv, attacker, http.MethodGet, "/api/v1/sessions", nil)
	if status != http.StatusOK || json.Unmarshal(raw, &sessions) != nil {
		t.Fatalf("list sessions as an agent: %d %s", status, raw)
	}
	for _, s := range sessions {
		if s.Token != nil {
			t.Errorf("an agent sees which token opened session %s: %+v", s.ID, s.Token)
		}
	}
}
