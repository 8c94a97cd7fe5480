package cli

import (
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"testing"

	"github.com/urfave/cli/v2"
)

// TestDeployFilesNameServeSettings: every AGENT_DECK_* variable the Dockerfile and
// deploy/compose.yaml set is one serve reads (a flag's variable, a secret's *_FILE, or the
// secret key), and the command they run is serve. A renamed flag fails here, not in a
// container nobody could start.
func TestDeployFilesNameServeSettings(t *testing.T) {
	known := map[string]bool{envSecretKey: true}
	for _, env := range []string{envSecretKey, envDatabaseURL, envOIDCClientSecret} {
		known[env+fileSuffix] = true
	}
	for _, f := range append(globalFlags(), serveFlags()...) {
		if ev, ok := f.(interface{ GetEnvVars() []string }); ok {
			for _, e := range ev.GetEnvVars() {
				known[e] = true
			}
		}
	}
	if !slices.ContainsFunc(commands(), func(c *cli.Command) bool { return c.Name == "serve" }) {
		t.Fatal("no serve command")
	}
	setting := regexp.MustCompile(`(?m)^\s*(?:ENV\s+)?(AGENT_DECK_[A-Z_]+)[=:]`)
	for _, file := range []string{"Dockerfile", filepath.Join("deploy", "compose.yaml")} {
		raw, err := os.ReadFile(filepath.Join("..", file))
		if err != nil {
			t.Fatal(err)
		}
		got := setting.FindAllStringSubmatch(string(raw), -1)
		if len(got) < 3 {
			t.Fatalf("%s sets %d AGENT_DECK_ variables; the pattern no longer reads it", file, len(got))
		}
		for _, m := range got {
			if m[1] == "AGENT_DECK_DOMAIN" { // the front's, not serve's
				continue
			}
			if !known[m[1]] {
				t.Errorf("%s sets %s, which serve does not read", file, m[1])
			}
		}
		if !regexp.MustCompile(`\["serve"\]`).Match(raw) {
			t.Errorf("%s does not run serve", file)
		}
	}
}
