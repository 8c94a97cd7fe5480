package tests

import (
	"slices"
	"testing"

	"github.com/agent-deck/agent-deck/backend"
)

// TestPlaybookDependencies holds issue 15 item 3: dependencies detected in a playbook's text
// follow the text, explicit ones stay until removed explicitly.
func TestPlaybookDependencies(t *testing.T) {
	d := startAgentDeck(t)
	cred := d.fix.Cred.ID
	type pb struct {
		ID       string   `json:"id"`
		Creds    []string `json:"depends_on_credential_ids"`
		Explicit []string `json:"explicit_credential_ids"`
	}

	t.Run("03 detected dependencies follow the text", func(t *testing.T) {
		var got pb
		d.agent.ok("update_playbook", map[string]any{"playbook_id": d.fix.Playbook.ID,
			"body": "# Release\nexport with " + cred}, &got)
		if !slices.Equal(got.Creds, []string{cred}) || len(got.Explicit) != 0 {
			t.Fatalf("after mentioning %s: %+v, want it detected, not explicit", cred, got)
		}
		d.agent.ok("update_playbook", map[string]any{"playbook_id": d.fix.Playbook.ID,
			"body": "# Release\nno key needed any more"}, &got)
		if len(got.Creds) != 0 {
			t.Errorf("after the text dropped %s: dependencies %v, want none", cred, got.Creds)
		}
		deps, err := d.stack.svc.Dependents(d.stack.adminCtx(), backend.CardCredential, cred)
		if err != nil || len(deps) != 0 {
			t.Errorf("dependents of %s = %v, %v; want none, so it can be deleted", cred, deps, err)
		}
	})
	t.Run("03 explicit dependencies stay until removed explicitly", func(t *testing.T) {
		var got pb
		d.agent.ok("update_playbook", map[string]any{"playbook_id": d.fix.Playbook.ID,
			"depends_on_credential_ids": []string{cred}}, &got)
		if !slices.Equal(got.Creds, []string{cred}) || !slices.Equal(got.Explicit, []string{cred}) {
			t.Fatalf("after naming %s: %+v, want it explicit", cred, got)
		}
		d.agent.ok("update_playbook", map[string]any{"playbook_id": d.fix.Playbook.ID,
			"body": "# Release\nstill no mention"}, &got)
		if !slices.Equal(got.Creds, []string{cred}) {
			t.Errorf("a body change dropped the explicit %s: %+v", cred, got)
		}
		d.agent.ok("update_playbook", map[string]any{"playbook_id": d.fix.Playbook.ID,
			"depends_on_credential_ids": []string{}}, &got)
		if len(got.Creds) != 0 || len(got.Explicit) != 0 {
			t.Errorf("after removing %s explicitly: %+v, want none", cred, got)
		}
		if _, err := d.stack.svc.DeleteCredential(d.stack.adminCtx(), cred); err != nil {
			t.Errorf("deleting %s once nothing depends on it: %v", cred, err)
		}
	})
}
