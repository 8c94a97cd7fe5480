package cli

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"time"

	"github.com/urfave/cli/v2"

	"github.com/agent-deck/agent-deck/backend"
	"github.com/agent-deck/agent-deck/backend/core"
	"github.com/agent-deck/agent-deck/cli/client"
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

// refreshStubs brings a pinned project's playbook stubs up to date from the status line, within
// what is left of its budget, once the line is out. The server never writes into workspaces;
// this is the workspace's own CLI asking. Any failure leaves the stubs for the next call.
func refreshStubs(c *cli.Context, workspace string, budget time.Duration, known *core.DeckSnapshot) {
	root := pinnedRoot(workspace)
	if root == "" || budget <= 0 {
		return
	}
	deck := known
	if deck == nil {
		cl, err := client.New(client.Options{Home: global(c, flagHome), Server: global(c, flagServer),
			Token: global(c, flagToken), Timeout: budget})
		if err != nil {
			return
		}
		ctx, cancel := context.WithTimeout(c.Context, budget)
		defer cancel()
		d, ok := pinnedDeck(ctx, cl, root)
		if !ok {
			return
		}
		deck = &d
	}
	paths, err := setupPaths(root)
	if err != nil {
		return
	}
	targets, err := useTargets(nil, paths)
	if err != nil {
		return
	}
	_, _ = syncStubs(root, targetClients(targets), deck.Playbooks)
}

// pinnedRoot is the nearest folder at or above dir holding .agent-deck/use.json; "" if none.
func pinnedRoot(dir string) string {
	if dir == "" {
		return ""
	}
	for d := filepath.Clean(dir); ; d = filepath.Dir(d) {
		if _, err := os.Stat(filepath.Join(d, useFilePath)); err == nil {
			return d
		}
		if filepath.Dir(d) == d {
			return ""
		}
	}
}
