package tests

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// cliBigBundle writes a valid bundle of n cards (a third of each type, all on one deck).
func cliBigBundle(tb testing.TB, n int) string {
	tb.Helper()
	type card = map[string]any
	var creds, svcs, pbs []card
	var cIDs, sIDs, pIDs []string
	for i := 0; i < n/3; i++ {
		cid, sid, pid := fmt.Sprintf("cred_k%05d", i), fmt.Sprintf("6f1c8d2e-0000-4000-8000-%012d", i), fmt.Sprintf("pb_t%05d", i)
		creds = append(creds, card{"id": cid, "label": fmt.Sprintf("K%04d", i), "scheme": "bearer", "env_name": fmt.Sprintf("K%04d_API_KEY", i)})
		svcs = append(svcs, card{"id": sid, "name": fmt.Sprintf("svc-%04d", i), "type": "mcp",
			"url": fmt.Sprintf("https://s%d.example.test/mcp", i), "credential_id": cid})
		pbs = append(pbs, card{"id": pid, "title": fmt.Sprintf("T%04d", i), "body": "Do it.\n",
			"triggers": []string{fmt.Sprintf("task %d", i)}, "depends_on_credential_ids": []string{cid}})
		cIDs, sIDs, pIDs = append(cIDs, cid), append(sIDs, sid), append(pIDs, pid)
	}
	b := map[string]any{"format": "agent-deck-bundle", "version": 1, "credentials": creds, "services": svcs,
		"playbooks": pbs, "decks": []card{{"name": "all", "cards": map[string]any{"services": sIDs,
			"credentials": cIDs, "playbooks": pIDs}}}}
	raw, _ := json.Marshal(b)
	path := filepath.Join(tb.TempDir(), "big.json")
	if err := os.WriteFile(path, raw, 0o600); err != nil {
		tb.Fatal(err)
	}
	return path
}

// cliBundleTargetS is how long importing or exporting a bundle through the CLI may take: 1,000
// cards, and 10,000 for an import.
const cliBundleTargetS = 2

// BenchmarkCLIImport runs `agent-deck import` of a 1,000- and a 10,000-card bundle against a real
// server on an empty database, and reports seconds per import with its target; the two sizes side
// by side show whether the time grows linearly.
func BenchmarkCLIImport(b *testing.B) {
	for _, n := range []int{1000, 10000} {
		b.Run(fmt.Sprintf("cards=%d", n), func(b *testing.B) {
			var spent time.Duration
			for b.Loop() {
				b.StopTimer()
				e := startCLIEnv(b)
				path := cliBigBundle(b, n)
				b.StartTimer()
				t0 := time.Now()
				if r := e.run("", "import", path); r.code != 0 || !strings.Contains(r.stdout, "Created") {
					b.Fatalf("import: %d %s", r.code, r.stderr)
				}
				spent += time.Since(t0)
			}
			b.ReportMetric(spent.Seconds()/float64(b.N), "s/op")
			b.ReportMetric(cliBundleTargetS, "s/op-max")
		})
	}
}

// BenchmarkCLIExport1000 runs `agent-deck export` of a 1,000-card collection against a real
// server, and reports seconds per export with its target.
func BenchmarkCLIExport1000(b *testing.B) {
	e := startCLIEnv(b)
	if r := e.run("", "import", cliBigBundle(b, 1000)); r.code != 0 {
		b.Fatalf("import: %s", r.stderr)
	}
	out := filepath.Join(b.TempDir(), "out.json")
	start := time.Now()
	for b.Loop() {
		if r := e.run("", "export", "-o", out); r.code != 0 {
			b.Fatalf("export: %s", r.stderr)
		}
	}
	b.ReportMetric(time.Since(start).Seconds()/float64(b.N), "s/op")
	b.ReportMetric(cliBundleTargetS, "s/op-max")
}
