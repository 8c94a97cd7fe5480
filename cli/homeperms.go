package cli

import (
	"errors"
	"fmt"
	"io/fs"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
)

// PermsError says a secret file in the data home can be read by other users and --strict-perms
// refuses to start with it.
type PermsError struct {
	Files []string
}

func (e *PermsError) Error() string {
	return fmt.Sprintf("%s can be read or changed by other users; fix with: chmod 600 %s "+
		"(refusing to start because of --strict-perms / AGENT_DECK_STRICT_PERMS)",
		strings.Join(e.Files, ", "), strings.Join(e.Files, " "))
}

// checkSecretPerms looks at the files in the home that hold secrets (the key that seals every
// stored secret, and the admin token). Any group or other permission bit means another account
// on the machine may read them: that is logged as a warning naming the file and the fix, and with
// strict it refuses the start before anything else happens.
func checkSecretPerms(home string, strict bool, log *slog.Logger) error {
	var loose []string
	for _, name := range []string{secretKeyFile, adminTokenFile} {
		path := filepath.Join(home, name)
		info, err := os.Stat(path)
		if errors.Is(err, fs.ErrNotExist) {
			continue // created 0600 on first start
		}
		if err != nil {
			return fmt.Errorf("check %s: %w", path, err)
		}
		if perm := info.Mode().Perm(); perm&0o077 != 0 {
			log.Warn("a secret file can be read or changed by other users; fix with chmod 600",
				"file", path, "mode", fmt.Sprintf("%#o", perm), "fix", "chmod 600 "+path)
			loose = append(loose, path)
		}
	}
	if strict && len(loose) > 0 {
		return &PermsError{Files: loose}
	}
	return nil
}
