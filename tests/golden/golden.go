// Package golden compares what a test produced with a golden file under testdata, the form an
// outsider consumes, and rewrites the file instead when the test binary runs with -update
// (`go test ./mcptools -update`); the change is then read as a diff. A package whose tests
// import it has the -update flag; it declares no other.
package golden

import (
	"errors"
	"flag"
	"io/fs"
	"os"
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"
)

var update = flag.Bool("update", false, "rewrite the golden files under testdata/")

// Check fails the test unless got is the content of the golden file at path. With -update it
// writes got to path (creating its directory) instead.
func Check(t testing.TB, path string, got []byte) {
	t.Helper()
	if *update {
		write(t, path, got)
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("golden file %s: %v (run go test with -update to create it)", path, err)
	}
	compare(t, path, want, got)
}

// CheckOptional is Check for a result that may be empty, which means "no file": a missing file
// reads as empty, and -update removes the file for an empty result.
func CheckOptional(t testing.TB, path string, got []byte) {
	t.Helper()
	if *update {
		if len(got) == 0 {
			if err := os.Remove(path); err != nil && !errors.Is(err, fs.ErrNotExist) {
				t.Fatal(err)
			}
			return
		}
		write(t, path, got)
		return
	}
	want, err := os.ReadFile(path)
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		t.Fatal(err)
	}
	compare(t, path, want, got)
}

func write(t testing.TB, path string, got []byte) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, got, 0o644); err != nil {
		t.Fatal(err)
	}
}

func compare(t testing.TB, path string, want, got []byte) {
	t.Helper()
	if diff := cmp.Diff(string(want), string(got)); diff != "" {
		t.Errorf("golden file %s differs (-golden +now); run go test with -update if the change is intended:\n%s", path, diff)
	}
}
