package harness

import (
	"path/filepath"
	"testing"

	"github.com/agent-deck/agent-deck/backend"
	"github.com/agent-deck/agent-deck/tests/golden"
)

// TestStubsGolden pins each host's stub files: title and triggers as the description, the
// get_playbook instruction and the marker; never a body.
func TestStubsGolden(t *testing.T) {
	pbs := []backend.PlaybookSummary{
		{ID: "pb_deploy_app", Title: "Deploy the app", Triggers: []string{"ship it", `deploy "prod"`}},
		{ID: "pb_notes", Title: "Notes", Triggers: []string{}},
	}
	for _, client := range StubClients() {
		t.Run(client, func(t *testing.T) {
			got := Stubs(client, pbs)
			if len(got) != len(pbs) {
				t.Fatalf("%d stubs, want %d", len(got), len(pbs))
			}
			for rel, content := range got {
				golden.Check(t, filepath.Join("testdata", "stubs", client, filepath.ToSlash(rel)), []byte(content))
			}
		})
	}
}
