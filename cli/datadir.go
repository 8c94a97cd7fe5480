package cli

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
)

// dataDirFile records, in the home, where the embedded cluster lives when it is not under
// <home>/postgres.
const dataDirFile = "postgres.location"

// systemDataRoot holds embedded clusters of homes the postgres user cannot reach.
const systemDataRoot = "/var/lib/agent-deck"

// systemDataDir is where the embedded cluster lives when serve runs as root and the postgres
// user (PostgreSQL refuses to run as root) cannot reach <home>/postgres: the home is usually
// /root/.agent-deck, closed to others, and serve used to add o+x to the home and every parent to
// let postgres in. It no longer touches the user's directories. Instead the cluster goes to a
// root-owned /var/lib/agent-deck/<hash of the home path>/postgres that postgres can traverse,
// and the place is recorded in the home, so the home still finds its data after a move. A
// cluster that postgres can reach in the home (every home as non-root, homes opened up by
// earlier versions) stays where it is. "" when not running as root.
func systemDataDir(home string) (string, error) {
	if os.Geteuid() != 0 {
		return "", nil
	}
	data, err := os.ReadFile(filepath.Join(home, dataDirFile))
	switch {
	case err == nil && filepath.IsAbs(strings.TrimSpace(string(data))):
		return strings.TrimSpace(string(data)), nil
	case err != nil && !errors.Is(err, fs.ErrNotExist):
		return "", fmt.Errorf("read %s: %w", filepath.Join(home, dataDirFile), err)
	}
	abs, err := filepath.Abs(home)
	if err != nil {
		return "", err
	}
	sum := sha256.Sum256([]byte(abs))
	return filepath.Join(systemDataRoot, hex.EncodeToString(sum[:8]), "postgres"), nil
}

// recordDataDir notes in the home where its cluster lives when that is outside the home (and
// forgets a note that no longer applies).
func recordDataDir(home, dataDir string) error {
	path := filepath.Join(home, dataDirFile)
	abs, err := filepath.Abs(home)
	if err != nil {
		return err
	}
	if dataDir == filepath.Join(abs, "postgres") {
		if err := os.Remove(path); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return err
		}
		return nil
	}
	if cur, err := os.ReadFile(path); err == nil && strings.TrimSpace(string(cur)) == dataDir {
		return nil
	}
	if err := writeFileAtomic(path, []byte(dataDir+"\n"), 0o600); err != nil {
		return fmt.Errorf("record the postgres data dir: %w", err)
	}
	return nil
}
