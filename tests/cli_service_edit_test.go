package tests

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"strings"
	"testing"

	"github.com/agent-deck/agent-deck/backend"
	"github.com/agent-deck/agent-deck/backend/core"
)

// TestCLIServiceEditUnset: service edit can take a header or env entry out (--unset-header,
// --unset-env), keeping the other stored secrets; a name that is not there, one both set and
// unset, and the other kind's flag are refused without changing anything.
func TestCLIServiceEditUnset(t *testing.T) {
	e := startCLIEnv(t)
	e.run("Bearer unset-secret-19ab\n", "service", "add", "remote", "https://remote.example/mcp",
		"--header-from-stdin", "Authorization", "--header", "X-Team=core").wantCode(t, 0)
	e.run("", "service", "edit", "remote", "--unset-header", "authorization").wantCode(t, 0)
	got, err := e.svc.GetService(e.ctx, "remote")
	if err != nil || len(got.Headers) != 1 || got.Headers["X-Team"] != "core" {
		t.Fatalf("after --unset-header authorization: %v %v", err, got.Headers)
	}

	const secret = "unset-env-secret-77c0"
	e.run(secret, "service", "add", "local", "--env-from-stdin", "PEER_TOKEN", "--env", "MODE=test",
		"--", mcpPeerBinary(t), "-transport", "stdio").wantCode(t, 0)
	for _, tc := range []struct {
		name string
		args []string
		want string
	}{
		{"unknown name", []string{"--unset-env", "NOPE"}, "has no such env (it has: MODE, PEER_TOKEN)"},
		{"set and unset", []string{"--env", "MODE=x", "--unset-env", "MODE"}, "not both"},
		{"header on a local service", []string{"--unset-header", "X-Team"}, "local service"},
	} {
		r := e.run("", append([]string{"service", "edit", "local"}, tc.args...)...).wantCode(t, 1)
		if !strings.Contains(r.stderr, tc.want) {
			t.Errorf("%s: stderr %q, want %q", tc.name, r.stderr, tc.want)
		}
	}
	e.run("", "service", "edit", "remote", "--unset-env", "MODE").wantCode(t, 1)
	if got, _ := e.svc.GetService(e.ctx, "local"); len(got.LocalEnv) != 2 {
		t.Fatalf("a refused edit changed the env: %v", got.LocalEnv)
	}

	r := e.run("", "service", "edit", "local", "--unset-env", "MODE", "--json").wantCode(t, 0)
	var card backend.ServiceCard
	if err := json.Unmarshal([]byte(r.stdout), &card); err != nil || len(card.LocalEnv) != 1 || card.LocalEnv["PEER_TOKEN"] == "" {
		t.Fatalf("after --unset-env MODE: %v %s", err, r.stdout)
	}
	res, err := e.svc.CallServiceTool(e.ctx, "local", core.CallInput{ToolName: "whoami",
		Arguments: json.RawMessage(`{"env":["PEER_TOKEN"]}`)})
	if sum := sha256.Sum256([]byte(secret)); err != nil || !strings.Contains(string(res.Raw), hex.EncodeToString(sum[:])) {
		t.Fatalf("the kept secret did not reach the server: %v %s", err, res.Raw)
	}
	if strings.Contains(r.stdout+r.stderr, secret) {
		t.Fatal("edit printed the secret")
	}
}
