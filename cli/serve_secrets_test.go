package cli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestSecretsFromFiles: AGENT_DECK_SECRET_KEY_FILE and AGENT_DECK_DATABASE_URL_FILE read the
// settings from files (container secrets); a value and its file together, or a bad file, are
// refused with a sentence that names the variable.
func TestSecretsFromFiles(t *testing.T) {
	dir := t.TempDir()
	write := func(name, content string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(content), 0o600); err != nil {
			t.Fatal(err)
		}
		return p
	}
	key, url := write("key", "c2VjcmV0LWtleQ==\n"), write("url", "postgres://deck@db/deck\n")
	empty, big := write("empty", "\n"), write("big", strings.Repeat("x", maxSecretFileBytes+1))
	cases := []struct {
		name    string
		env     map[string]string
		preset  ServeConfig
		want    ServeConfig
		wantErr string
	}{
		{name: "both from files", env: map[string]string{"AGENT_DECK_SECRET_KEY_FILE": key, "AGENT_DECK_DATABASE_URL_FILE": url},
			want: ServeConfig{SecretKey: "c2VjcmV0LWtleQ==", DatabaseURL: "postgres://deck@db/deck"}},
		{name: "none", want: ServeConfig{}},
		{name: "a value and its file", env: map[string]string{"AGENT_DECK_SECRET_KEY_FILE": key},
			preset: ServeConfig{SecretKey: "x"}, wantErr: "both AGENT_DECK_SECRET_KEY and AGENT_DECK_SECRET_KEY_FILE are set"},
		{name: "missing file", env: map[string]string{"AGENT_DECK_DATABASE_URL_FILE": filepath.Join(dir, "nope")},
			wantErr: "AGENT_DECK_DATABASE_URL_FILE: cannot read"},
		{name: "empty file", env: map[string]string{"AGENT_DECK_SECRET_KEY_FILE": empty}, wantErr: "is empty"},
		{name: "too big", env: map[string]string{"AGENT_DECK_SECRET_KEY_FILE": big}, wantErr: "larger than"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			cfg := c.preset
			err := cfg.fromFiles(func(k string) string { return c.env[k] })
			if c.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), c.wantErr) {
					t.Fatalf("error %v, want one containing %q", err, c.wantErr)
				}
				if strings.Contains(err.Error(), "c2VjcmV0") || strings.Contains(err.Error(), "postgres://") {
					t.Errorf("the error quotes a secret: %v", err)
				}
				return
			}
			if err != nil || cfg.SecretKey != c.want.SecretKey || cfg.DatabaseURL != c.want.DatabaseURL {
				t.Errorf("got %+v, %v; want %+v", cfg, err, c.want)
			}
		})
	}
}
