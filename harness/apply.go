package harness

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
)

// Outcome says what Apply did to a file.
type Outcome string

// Outcomes.
const (
	Created   Outcome = "created"
	Updated   Outcome = "updated"
	Unchanged Outcome = "unchanged"
	Removed   Outcome = "removed"
)

// Apply runs a Change against the file system: read, edit, and write atomically (a temporary
// file in the same directory renamed over the original, keeping its mode). A symlinked config is
// edited where it points; an edit that leaves it empty empties that file rather than deleting it,
// so the link and the file it points to (often kept in a dotfiles repository) stay. Nothing is
// written when the contents do not change.
func Apply(c Change) (Outcome, error) {
	path := c.Path
	fi, err := os.Lstat(path)
	linked := err == nil && fi.Mode()&fs.ModeSymlink != 0
	if real, err := filepath.EvalSymlinks(path); err == nil {
		path = real
	}
	old, err := os.ReadFile(path)
	exists := err == nil
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return "", fmt.Errorf("reading %s: %w", c.Path, err)
	}
	out, err := c.Edit(old)
	if err != nil {
		return "", fmt.Errorf("%s: %w", c.Path, err)
	}
	switch {
	case bytes.Equal(out, old):
		return Unchanged, nil
	case len(out) == 0 && !linked:
		if err := os.Remove(path); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return "", fmt.Errorf("removing %s: %w", c.Path, err)
		}
		return Removed, nil
	}
	mode := c.Mode
	if st, err := os.Stat(path); err == nil {
		mode = st.Mode().Perm()
	}
	if err := writeAtomic(path, out, mode); err != nil {
		return "", err
	}
	if exists {
		return Updated, nil
	}
	return Created, nil
}

func writeAtomic(path string, data []byte, mode os.FileMode) error {
	dir := filepath.Dir(path)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("creating %s: %w", dir, err)
	}
	tmp, err := os.CreateTemp(dir, "."+filepath.Base(path)+".agent-deck-*")
	if err != nil {
		return fmt.Errorf("writing %s: %w", path, err)
	}
	defer os.Remove(tmp.Name())
	if _, err := tmp.Write(data); err != nil {
		tmp.Close()
		return fmt.Errorf("writing %s: %w", path, err)
	}
	if err := tmp.Chmod(mode); err != nil {
		tmp.Close()
		return fmt.Errorf("writing %s: %w", path, err)
	}
	if err := tmp.Sync(); err != nil {
		tmp.Close()
		return fmt.Errorf("writing %s: %w", path, err)
	}
	if err := tmp.Close(); err != nil {
		return fmt.Errorf("writing %s: %w", path, err)
	}
	if err := os.Rename(tmp.Name(), path); err != nil {
		return fmt.Errorf("writing %s: %w", path, err)
	}
	return nil
}
