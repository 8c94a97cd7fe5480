package cli

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/urfave/cli/v2"

	"github.com/agent-deck/agent-deck/backend"
	"github.com/agent-deck/agent-deck/cli/client"
	"github.com/agent-deck/agent-deck/harness"
)

// setupTokensFile, in the data home, remembers which token `setup` created for which client
// config, so `setup --remove` can revoke it instead of leaving a live token behind.
const setupTokensFile = "setup-tokens.json"

// setupTokenRecord is one config file's token: its id, never its secret.
type setupTokenRecord struct {
	Client  string        `json:"client"`
	Scope   harness.Scope `json:"scope"`
	Server  string        `json:"server"`
	TokenID string        `json:"token_id"`
}

func setupTokensPath(c *cli.Context) string {
	return filepath.Join(global(c, flagHome), setupTokensFile)
}

// readSetupTokens returns the records by config path; a missing or unreadable file is empty.
func readSetupTokens(c *cli.Context) map[string]setupTokenRecord {
	out := map[string]setupTokenRecord{}
	b, err := os.ReadFile(setupTokensPath(c))
	if err == nil {
		_ = json.Unmarshal(b, &out)
	}
	return out
}

func writeSetupTokens(c *cli.Context, recs map[string]setupTokenRecord) error {
	path := setupTokensPath(c)
	if len(recs) == 0 {
		if err := os.Remove(path); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return userError("removing %s: %v", path, err)
		}
		return nil
	}
	b, _ := json.MarshalIndent(recs, "", "  ")
	if _, err := harness.Apply(harness.Change{Path: path, What: "setup tokens", Mode: 0o600,
		Edit: func([]byte) ([]byte, error) { return append(b, '\n'), nil }}); err != nil {
		return userError("%v", err)
	}
	return nil
}

// rememberSetupToken records the token setup just created for config.
func rememberSetupToken(c *cli.Context, cl *client.Client, t harness.Target, config, id string) error {
	recs := readSetupTokens(c)
	recs[config] = setupTokenRecord{Client: t.Client, Scope: t.Scope, Server: cl.BaseURL, TokenID: id}
	return writeSetupTokens(c, recs)
}

// revokeSetupToken revokes the token setup created for config on this server; a token already
// gone counts as revoked. Without a record (a setup older than the record) it revokes the one
// live token of a user-scope setup's name, and nothing when there are several. It returns the
// revoked token's id, "" for none.
func revokeSetupToken(c *cli.Context, cl *client.Client, t harness.Target, config string) (string, error) {
	recs := readSetupTokens(c)
	rec, ok := recs[config]
	if ok && rec.Server != cl.BaseURL {
		return "", nil
	}
	if !ok {
		if t.Scope != harness.ScopeUser {
			return "", nil // setup creates tokens only for user scope; a project's is the person's own
		}
		tokens, err := cl.ListTokens(c.Context)
		if err != nil {
			return "", fail(err)
		}
		for _, tk := range tokens {
			if tk.Name == setupTokenName(t) && tk.RevokedAt == nil {
				if rec.TokenID != "" {
					return "", nil // several: not ours to guess
				}
				rec.TokenID = tk.ID
			}
		}
		if rec.TokenID == "" {
			return "", nil
		}
	}
	if err := cl.RevokeToken(c.Context, rec.TokenID); err != nil && backend.ErrorCode(err) != backend.CodeNotFound {
		return "", cli.Exit(fmt.Sprintf("the entry was taken out, but revoking its token %s failed: %s\n  revoke it with `agent-deck token revoke %s`",
			rec.TokenID, fail(err).Error(), rec.TokenID), ExitCode(err))
	}
	if ok {
		delete(recs, config)
		return rec.TokenID, writeSetupTokens(c, recs)
	}
	return rec.TokenID, nil
}

// setupTokenName is the name of the token setup creates for a target.
func setupTokenName(t harness.Target) string { return t.Client + "-" + string(t.Scope) }
