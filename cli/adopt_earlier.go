package cli

import (
	"os"
	"path/filepath"
	"strings"

	"github.com/agent-deck/agent-deck/backend"
	"github.com/agent-deck/agent-deck/harness"
)

// adoptedEarlier reports the servers an earlier `adopt --replace` took out of the client's file
// and registered: read from its backups (the originals), they are no longer in the file, so a
// run that only read the file would be silent about them. Each must still be a service pointing
// where the client's entry did; the report lists them as already adopted, and nothing changes.
func adoptedEarlier(t harness.Target, file string, current []harness.ClientServer, existing []backend.ServiceCard,
	paths harness.Paths, base string) []adoptItem {
	backups, _ := filepath.Glob(file + backupSuffix + "*")
	seen := map[string]bool{}
	for _, s := range current {
		seen[strings.ToLower(s.Name)] = true
	}
	var out []adoptItem
	for _, backup := range backups {
		src, err := os.ReadFile(backup)
		if err != nil {
			continue
		}
		servers, err := t.ReadServers(src)
		if err != nil {
			continue
		}
		for _, s := range servers {
			if seen[strings.ToLower(s.Name)] || isAgentDeck(s, base) {
				continue
			}
			a := mapServer(t, s, paths, base)
			if a.item.Outcome != "" {
				continue // not adoptable as it is now (a variable unset, a secret in an argument)
			}
			if item := matchExisting(a, existing); item.Outcome == adoptAlready {
				seen[strings.ToLower(s.Name)] = true
				item.TakenOut = backup
				out = append(out, item)
			}
		}
	}
	return out
}
