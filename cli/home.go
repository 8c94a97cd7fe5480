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
// <home>/secret.key, generated (0600) on first start.
func loadSecretKey(home, fromEnv string) ([]byte, error) {
	if fromEnv != "" {
		key, err := secret.DecodeKey(fromEnv)
		if err != nil {
			return nil, fmt.Errorf("AGENT_DECK_SECRET_KEY: %w", err)
		}
		return key, nil
	}
	path := filepath.Join(home, secretKeyFile)
	data, err := os.ReadFile(path)
	if err == nil {
		key, derr := secret.DecodeKey(strings.TrimSpace(string(data)))
		if derr != nil {
			return nil, fmt.Errorf("%s: %w", path, derr)
		}
		return key, nil
	}
	if !errors.Is(err, fs.ErrNotExist) {
		return nil, fmt.Errorf("read secret key: %w", err)
	}
	key, err := secret.GenerateKey()
	if err != nil {
		return nil, err
	}
	if err := writeFileAtomic(path, []byte(base64.StdEncoding.EncodeToString(key)+"\n"), 0o600); err != nil {
		return nil, fmt.Errorf("write secret key: %w", err)
	}
	return key, nil
}

// ensureAdminToken makes sure <home>/admin.token holds a working admin token, creating one on
// first start (or when the database no longer knows the stored one).
func ensureAdminToken(ctx context.Context, svc *core.Hub, home string) (string, error) {
	path := filepath.Join(home, adminTokenFile)
	if data, err := os.ReadFile(path); err == nil {
		secret := strings.TrimSpace(string(data))
		if a, aerr := svc.Authenticate(ctx, secret, backend.ActorUser); aerr == nil && a.Scope == backend.ScopeAdmin {
			return secret, nil
		}
	}
	tok, err := svc.CreateToken(backend.WithActor(ctx, backend.SystemActor),
		core.TokenInput{Name: "admin (created by serve)", Scope: backend.ScopeAdmin})
	if err != nil {
		return "", fmt.Errorf("create admin token: %w", err)
	}
	if err := writeFileAtomic(path, []byte(tok.Secret+"\n"), 0o600); err != nil {
		return "", fmt.Errorf("write admin token: %w", err)
	}
	return tok.Secret, nil
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
