package tests

import (
	"testing"

	"github.com/agent-deck/agent-deck/backend/core"
)

// TestReplicasShareOneServeAdminToken holds issue 27 item 17: replicas on one database, each with
// a data home of its own, write the same admin token into their homes; the database holds one
// "admin (created by serve)" token, not one per replica.
func TestReplicasShareOneServeAdminToken(t *testing.T) {
	first := startMCPStack(t, mcpStackOptions{})
	second := startMCPReplica(t, first)
	third := startMCPReplica(t, first)
	if second.AdminToken != first.AdminToken || third.AdminToken != first.AdminToken {
		t.Errorf("replicas wrote different admin tokens into their homes")
	}
	list, err := first.svc.ListTokens(first.adminCtx())
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, tk := range list {
		if tk.Name == core.ServeAdminTokenName {
			n++
		}
	}
	if n != 1 {
		t.Errorf("%d tokens named %q for three replicas, want 1: %+v", n, core.ServeAdminTokenName, list)
	}
}
