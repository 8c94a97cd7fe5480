package cli

import (
	"errors"
	"fmt"
	"path/filepath"

	"github.com/agent-deck/agent-deck/backend"
	"github.com/agent-deck/agent-deck/backend/core"
)

// errKeyRefused marks a start refused because the secret key does not match the database:
// `serve` exits 1 for it, as for any refusal a person must act on before retrying.
var errKeyRefused = errors.New("refusing to start")

// keyRefusal turns CheckSecretKey's error into the message a person reads: which key was read,
// from where, and what to do. Other errors pass through.
func keyRefusal(err error, cfg ServeConfig) error {
	if !core.IsKeyMismatch(err) {
		return fmt.Errorf("check the secret key: %w", err)
	}
	source, fix := "AGENT_DECK_SECRET_KEY", "Set AGENT_DECK_SECRET_KEY to the key this database was used with, or restore it from a backup"
	if cfg.SecretKey == "" {
		path := filepath.Join(cfg.Home, secretKeyFile)
		source = "the key file " + path
		fix = "Restore the matching key to " + path + " (from a backup), or set AGENT_DECK_SECRET_KEY " +
			"or AGENT_DECK_HOME to point at the right one"
	}
	why, _ := backend.AsError(err).Details["reason"].(string)
	return fmt.Errorf("%w: the secret key read from %s does not match this database: %s. %s; "+
		"nothing was changed", errKeyRefused, source, why, fix)
}
