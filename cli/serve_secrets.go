package cli

import (
	"fmt"
	"io"
	"os"
	"strings"
)

// Container platforms hand secrets over as files (Docker and Compose secrets, Kubernetes
// volumes): each secret setting of serve also reads from a file named by <VARIABLE>_FILE.
const (
	envSecretKey        = "AGENT_DECK_SECRET_KEY"
	envDatabaseURL      = "AGENT_DECK_DATABASE_URL"
	envOIDCClientSecret = "AGENT_DECK_OIDC_CLIENT_SECRET"
	fileSuffix          = "_FILE"
	maxSecretFileBytes  = 64 << 10
)

// fromFiles fills the secret settings that are empty from their *_FILE variables. Setting
// both a value and its file is refused: which one wins would be a guess.
func (c *ServeConfig) fromFiles(getenv func(string) string) error {
	for _, s := range []struct {
		env string
		dst *string
	}{
		{envSecretKey, &c.SecretKey},
		{envDatabaseURL, &c.DatabaseURL},
		{envOIDCClientSecret, &c.OIDC.ClientSecret},
	} {
		path := getenv(s.env + fileSuffix)
		if path == "" {
			continue
		}
		if *s.dst != "" {
			return fmt.Errorf("both %s and %s%s are set: set one of them", s.env, s.env, fileSuffix)
		}
		v, err := readSecretFile(path)
		if err != nil {
			return fmt.Errorf("%s%s: %w", s.env, fileSuffix, err)
		}
		*s.dst = v
	}
	return nil
}

// readSecretFile reads a small file holding one value (a trailing newline is dropped).
func readSecretFile(path string) (string, error) {
	f, err := os.Open(path)
	if err != nil {
		return "", fmt.Errorf("cannot read %s: %w", path, err)
	}
	defer f.Close()
	b, err := io.ReadAll(io.LimitReader(f, maxSecretFileBytes+1))
	switch {
	case err != nil:
		return "", fmt.Errorf("cannot read %s: %w", path, err)
	case len(b) > maxSecretFileBytes:
		return "", fmt.Errorf("%s is larger than %d bytes; it should hold one value", path, maxSecretFileBytes)
	}
	v := strings.TrimSpace(string(b))
	if v == "" {
		return "", fmt.Errorf("%s is empty", path)
	}
	return v, nil
}
