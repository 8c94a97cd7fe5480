package cli

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"sort"

	"github.com/agent-deck/agent-deck/backend"
	"github.com/agent-deck/agent-deck/harness"
)

// stubReport is what a stub sync did, by project-relative path. Kept are files at a stub's
// path that Agent Deck did not write (no marker): they are left alone.
type stubReport struct {
	Created []string `json:"created"`
	Updated []string `json:"updated"`
	Removed []string `json:"removed"`
	Kept    []string `json:"kept,omitempty"`
}

// syncStubs brings the playbook stubs of the clients in the project up to date: one per
// playbook on the deck, stale ones removed, unchanged ones not rewritten, files without the
// marker never touched.
func syncStubs(project string, clients []string, playbooks []backend.PlaybookSummary) (stubReport, error) {
	rep := stubReport{Created: []string{}, Updated: []string{}, Removed: []string{}}
	for _, client := range harness.StubClients() {
		if !slices.Contains(clients, client) {
			continue
		}
		want := harness.Stubs(client, playbooks)
		if err := removeStaleStubs(project, client, want, &rep); err != nil {
			return rep, err
		}
		paths := make([]string, 0, len(want))
		for p := range want {
			paths = append(paths, p)
		}
		sort.Strings(paths)
		for _, rel := range paths {
			if err := writeStub(project, rel, want[rel], &rep); err != nil {
				return rep, err
			}
		}
	}
	return rep, nil
}

func removeStaleStubs(project, client string, want map[string]string, rep *stubReport) error {
	for _, pattern := range harness.StubPatterns(client) {
		found, _ := filepath.Glob(filepath.Join(project, pattern)) // the patterns are well formed
		for _, abs := range found {
			rel, _ := filepath.Rel(project, abs)
			if _, ok := want[rel]; ok || !isStub(abs) {
				continue
			}
			if err := os.Remove(abs); err != nil {
				return userError("removing the stale stub %s: %v", rel, err)
			}
			_ = os.Remove(filepath.Dir(abs)) // a skill's own folder, when now empty
			rep.Removed = append(rep.Removed, rel)
		}
	}
	return nil
}

func writeStub(project, rel, content string, rep *stubReport) error {
	abs := filepath.Join(project, rel)
	old, err := os.ReadFile(abs)
	switch {
	case err == nil && !bytes.Contains(old, []byte(harness.StubMarker)):
		rep.Kept = append(rep.Kept, rel)
		return nil
	case err == nil && string(old) == content:
		return nil
	case err != nil && !errors.Is(err, fs.ErrNotExist):
		return userError("reading %s: %v", rel, err)
	}
	if err := os.MkdirAll(filepath.Dir(abs), 0o755); err != nil {
		return userError("creating %s: %v", filepath.Dir(rel), err)
	}
	if err := os.WriteFile(abs, []byte(content), 0o644); err != nil {
		return userError("writing %s: %v", rel, err)
	}
	if old == nil {
		rep.Created = append(rep.Created, rel)
	} else {
		rep.Updated = append(rep.Updated, rel)
	}
	return nil
}

func isStub(path string) bool {
	b, err := os.ReadFile(path)
	return err == nil && bytes.Contains(b, []byte(harness.StubMarker))
}

// printStubReport says what changed, one line per file.
func printStubReport(w io.Writer, rep stubReport) {
	for _, x := range []struct {
		verb  string
		paths []string
	}{{"Created", rep.Created}, {"Updated", rep.Updated}, {"Removed", rep.Removed},
		{"Kept (not written by agent-deck)", rep.Kept}} {
		for _, p := range x.paths {
			fmt.Fprintf(w, "%s playbook stub %s\n", x.verb, p)
		}
	}
}
