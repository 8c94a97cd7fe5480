package tests

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/agent-deck/agent-deck/backend"
)

// TestCLITokenRevokeConfirms holds issue 10's `token revoke` item: like a delete, it asks on a
// terminal and needs --yes elsewhere; refused or declined, the token keeps working.
func TestCLITokenRevokeConfirms(t *testing.T) {
	e := startCLIEnv(t)
	secret := strings.TrimSpace(e.run("", "token", "create", "ci").wantCode(t, 0).stdout)
	var id string
	var list []backend.Token
	if err := json.Unmarshal([]byte(e.run("", "token", "list", "--json").wantCode(t, 0).stdout), &list); err != nil {
		t.Fatal(err)
	}
	for _, tok := range list {
		if tok.Name == "ci" {
			id = tok.ID
		}
	}
	works := func(t *testing.T, want bool) {
		t.Helper()
		r := e.run("", "--token", secret, "--server", e.srv.URL(), "deck", "list")
		if (r.code == 0) != want {
			t.Fatalf("token works = %v, want %v (exit %d: %s)", r.code == 0, want, r.code, r.stderr)
		}
	}

	r := e.run("", "token", "revoke", id).wantCode(t, 1)
	if !strings.Contains(r.stderr, "--yes") {
		t.Errorf("refusal %q does not name --yes", r.stderr)
	}
	works(t, true)

	tty := openPTY(t)
	tty.answer(t, "n\n")
	r = runCLI(e.home, tty.slave, "token", "revoke", id).wantCode(t, 1)
	if !strings.Contains(r.stderr, "Revoke token") || !strings.Contains(r.stderr, "cancelled") {
		t.Errorf("declined revoke printed %q", r.stderr)
	}
	works(t, true)

	tty.answer(t, "y\n")
	runCLI(e.home, tty.slave, "token", "revoke", id).wantCode(t, 0)
	works(t, false)

	secret = strings.TrimSpace(e.run("", "token", "create", "ci2").wantCode(t, 0).stdout)
	if err := json.Unmarshal([]byte(e.run("", "token", "list", "--json").wantCode(t, 0).stdout), &list); err != nil {
		t.Fatal(err)
	}
	for _, tok := range list {
		if tok.Name == "ci2" {
			id = tok.ID
		}
	}
	works(t, true)
	e.run("", "token", "revoke", id, "--yes").wantCode(t, 0)
	works(t, false)
}
