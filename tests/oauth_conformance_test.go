package tests

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/agent-deck/agent-deck/cli"
)

// conformanceClientScenarios are the suite's client scenarios Agent Deck's downstream client
// passes; docs/conformance.md has the table of every scenario and its result.
var conformanceClientScenarios = []string{
	"initialize", "tools_call", "sse-retry", "elicitation-sep1034-client-defaults",
	"auth/metadata-default", "auth/metadata-var1", "auth/metadata-var2", "auth/metadata-var3",
	"auth/scope-from-www-authenticate", "auth/scope-from-scopes-supported", "auth/scope-omitted-when-undefined",
	"auth/scope-step-up", "auth/scope-retry-limit",
	"auth/token-endpoint-auth-basic", "auth/token-endpoint-auth-post", "auth/token-endpoint-auth-none",
	"auth/pre-registration", "auth/basic-cimd",
	"auth/2025-03-26-oauth-metadata-backcompat", "auth/2025-03-26-oauth-endpoint-fallback",
	"auth/resource-mismatch", "auth/offline-access-scope", "auth/offline-access-not-supported", // draft
}

// TestConformanceClient runs the official MCP conformance suite's client scenarios against
// Agent Deck's downstream client and OAuth code: tests/conformance/client registers each
// scenario's server in a real deck, signs in when asked, then lists and calls its tools. With
// AGENT_DECK_CONFORMANCE_SCENARIOS set (space-separated, or "all") it runs those instead and
// only logs the results, for filling in the table.
func TestConformanceClient(t *testing.T) {
	mods := mcpNodeModules(t)
	suite := filepath.Join(mods, "@modelcontextprotocol", "conformance", "dist", "index.js")
	bin := filepath.Join(t.TempDir(), "conformance-client")
	if out, err := exec.Command("go", "build", "-o", bin, "./conformance/client").CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	srv := startFrontDoor(t, func(c *cli.ServeConfig) {
		// The client_id auth/basic-cimd expects: the suite's authorization server does not fetch it.
		c.OAuthClientMetadataURL = "https://conformance-test.local/client-metadata.json"
	})
	scenarios, survey := conformanceClientScenarios, false
	if v := os.Getenv("AGENT_DECK_CONFORMANCE_SCENARIOS"); v != "" {
		scenarios, survey = strings.Fields(v), true
	}
	env := []string{"AGENT_DECK_URL=" + srv.URL(), "AGENT_DECK_TOKEN=" + srv.AdminToken()}
	for _, sc := range scenarios {
		t.Run(sc, func(t *testing.T) {
			out, err := mcpNode(t, 3*time.Minute, env, suite, "client", "--command", bin, "--scenario", sc, "--timeout", "60000")
			switch {
			case survey:
				t.Logf("scenario %s: err=%v\n%s", sc, err, out)
			case err != nil:
				t.Errorf("scenario %s failed: %v\n%s", sc, err, out)
			}
		})
	}
}
