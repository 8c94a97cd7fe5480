package harness

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/agent-deck/agent-deck/backend"
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
				golden := filepath.Join("testdata", "stubs", client, filepath.ToSlash(rel))
				if *update {
					if err := os.MkdirAll(filepath.Dir(golden), 0o755); err != nil {
						t.Fatal(err)
					}
					if err := os.WriteFile(golden, []byte(content), 0o644); err != nil {
						t.Fatal(err)
					}
				}
				want, err := os.ReadFile(golden)
				if err != nil {
					t.Fatalf("%v (run go test ./harness -update)", err)
				}
				if diff := cmp.Diff(string(want), content); diff != "" {
					t.Errorf("%s (-golden +now):\n%s", rel, diff)
				}
			}
		})
	}
}
