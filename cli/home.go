package cli

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/agent-deck/agent-deck/backend"
	"github.com/agent-deck/agent-deck/backend/core"
	"github.com/agent-deck/agent-deck/backend/secret"
	"github.com/agent-deck/agent-deck/cli/client"
)

// Files in the data home.
const (
	secretKeyFile  = "secret.key"
	adminTokenFile = "admin.token"
	serverInfoFile = client.ServerInfoFile
)

// loadSecretKey returns the key that seals secrets at rest: AGENT_DECK_SECRET_KEY when set, else
// <home>/secret.key, generated (0600) on first start. A generated key is written beside its
// path and kept only once the database accepts it (pendingKey): a start refused because the
// database was sealed with another key leaves no key file behind to be read next time.
func loadSecretKey(home, fromEnv string) ([]byte, *pendingKey, error) {
	if fromEnv != "" {
		key, err := secret.DecodeKey(fromEnv)
		if err != nil {
			return nil, nil, fmt.Errorf("AGENT_DECK_SECRET_KEY: %w", err)
		}
		return key, nil, nil
	}
	path := filepath.Join(home, secretKeyFile)
	data, err := os.ReadFile(path)
	if err == nil {
		key, derr := secret.DecodeKey(strings.TrimSpace(string(data)))
		if derr != nil {
			return nil, nil, fmt.Errorf("%s: %w", path, derr)
		}
		return key, nil, nil
	}
	if !errors.Is(err, fs.ErrNotExist) {
		return nil, nil, fmt.Errorf("read secret key: %w", err)
	}
	pending := &pendingKey{tmp: path + ".new", path: path}
	if data, err := os.ReadFile(pending.tmp); err == nil {
		// A first start stopped between the database accepting its key and keeping it: the
		// database may already record this key, so it is tried before a new one is made.
		if key, derr := secret.DecodeKey(strings.TrimSpace(string(data))); derr == nil {
			return key, pending, nil
		}
	}
	key, err := secret.GenerateKey()
	if err != nil {
		return nil, nil, err
	}
	if err := writeFileAtomic(pending.tmp, []byte(base64.StdEncoding.EncodeToString(key)+"\n"), 0o600); err != nil {
		return nil, nil, fmt.Errorf("write secret key: %w", err)
	}
	return key, pending, nil
}

// pendingKey is a key generated on this start, written to tmp until the database accepts it.
type pendingKey struct{ tmp, path string }

// keep moves the key to its path once the database accepted it; nil does nothing.
func (p *pendingKey) keep() error {
	if p == nil {
		return nil
	}
	if err := os.Rename(p.tmp, p.path); err != nil {
		return fmt.Errorf("write secret key: %w", err)
	}
	return nil
}

// drop removes a key that was not kept (after keep, there is nothing left to remove).
func (p *pendingKey) drop() {
	if p != nil {
		_ = os.Remove(p.tmp)
	}
}

// ensureAdminToken makes sure <home>/admin.token holds a working admin token: the one already
// there, else the cluster's serve admin token (core.ServeAdminToken), made once for every
// replica that shares the database and the key, however many homes start.
func ensureAdminToken(ctx context.Context, svc *core.Hub, home string) (string, error) {
	path := filepath.Join(home, adminTokenFile)
	if data, err := os.ReadFile(path); err == nil {
		secret := strings.TrimSpace(string(data))
		if a, aerr := svc.Authenticate(ctx, secret, backend.ActorUser); aerr == nil && a.IsAdmin() {
			return secret, nil
		}
	}
	secret, err := svc.ServeAdminToken(ctx)
	if err != nil {
		return "", fmt.Errorf("admin token: %w", err)
	}
	if err := writeFileAtomic(path, []byte(secret+"\n"), 0o600); err != nil {
		return "", fmt.Errorf("write admin token: %w", err)
	}
	return secret, nil
}

// writeServerInfo records the running server in <home>/server.json (removed when it stops) and
// its address in <home>/last-server.json (kept, so clients can say where it ran).
func writeServerInfo(home string, info client.ServerInfo) error {
	data, err := json.Marshal(info)
	if err != nil {
		return err
	}
	if err := writeFileAtomic(filepath.Join(home, serverInfoFile), data, 0o600); err != nil {
		return err
	}
	last, err := json.Marshal(client.ServerInfo{URL: info.URL, PID: info.PID})
	if err != nil {
		return err
	}
	return writeFileAtomic(filepath.Join(home, client.LastServerFile), last, 0o600)
}
