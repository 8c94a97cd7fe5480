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

// TestCLIServiceRemote registers a remote server whose Authorization header is read from stdin,
// links it to a deck, and calls a tool through it: the peer answers 401 unless the header arrived.
func TestCLIServiceRemote(t *testing.T) {
	e := startCLIEnv(t)
	const secret = "Bearer svc-secret-7c1e4a"
	peer := startHTTPPeer(t, "PEER_REQUIRE_AUTHORIZATION="+secret)
	e.run("", "deck", "create", "dev").wantCode(t, 0)

	var outs []string
	r := e.run(secret+"\n", "service", "add", "peer", peer, "--header-from-stdin", "Authorization",
		"--header", "X-Team=core, infra", "--description", "the test peer", "--deck", "dev").wantCode(t, 0)
	outs = append(outs, r.stdout, r.stderr)
	if !strings.Contains(r.stdout, "Linked peer to deck dev") {
		t.Errorf("add did not say it linked the deck:\n%s", r.stdout)
	}
	res, err := e.svc.CallServiceTool(e.ctx, "peer", core.CallInput{ToolName: "whoami",
		Arguments: json.RawMessage(`{"headers":["Authorization","X-Team"]}`)})
	if err != nil || res.IsError {
		t.Fatalf("call through the new service: %v %s", err, res.Raw)
	}
	if sum := sha256.Sum256([]byte(secret)); !strings.Contains(string(res.Raw), hex.EncodeToString(sum[:])) {
		t.Errorf("the peer did not get the Authorization header from stdin: %s", res.Raw)
	}
	if sum := sha256.Sum256([]byte("core, infra")); !strings.Contains(string(res.Raw), hex.EncodeToString(sum[:])) {
		t.Errorf("a header value with a comma was split: %s", res.Raw)
	}
	snap, err := e.svc.DeckSnapshot(e.ctx, "dev")
	if err != nil || len(snap.Services) != 1 {
		t.Fatalf("--deck did not link the service: %v %+v", err, snap.Services)
	}

	for _, args := range [][]string{{"service", "show", "peer"}, {"service", "show", "peer", "--json"},
		{"service", "list", "--json"}, {"service", "check", "peer"}, {"service", "tools", "peer"}} {
		r := e.run("", args...).wantCode(t, 0)
		outs = append(outs, r.stdout, r.stderr)
	}
	r = e.run("", "service", "check", "peer", "--json").wantCode(t, 0)
	var h backend.Health
	if err := json.Unmarshal([]byte(r.stdout), &h); err != nil || h.Status != backend.HealthHealthy {
		t.Errorf("check --json: %v %s", err, r.stdout)
	}
	for _, o := range outs {
		if strings.Contains(o, "svc-secret-7c1e4a") {
			t.Fatalf("an output holds the secret:\n%s", o)
		}
	}
}

// TestCLIServiceLocal registers the peer as a local server with an env value from stdin, then
// round-trips tools, disable, enable and edit.
func TestCLIServiceLocal(t *testing.T) {
	e := startCLIEnv(t)
	const secret = "env-secret-93d2b7"
	r := e.run(secret, "service", "add", "local", "--env-from-stdin", "PEER_TOKEN", "--env", "MODE=test",
		"--json", "--", mcpPeerBinary(t), "-transport", "stdio").wantCode(t, 0)
	var card backend.ServiceCard
	if err := json.Unmarshal([]byte(r.stdout), &card); err != nil || card.Type != backend.ServiceLocal ||
		len(card.LocalArgs) != 2 || card.LocalEnv["MODE"] != backend.MaskedValue {
		t.Fatalf("add --json: %v %s", err, r.stdout)
	}
	if strings.Contains(r.stdout+r.stderr, secret) {
		t.Fatalf("add printed the env secret:\n%s", r.stdout)
	}
	res, err := e.svc.CallServiceTool(e.ctx, "local", core.CallInput{ToolName: "whoami",
		Arguments: json.RawMessage(`{"env":["PEER_TOKEN"]}`)})
	if sum := sha256.Sum256([]byte(secret)); err != nil || !strings.Contains(string(res.Raw), hex.EncodeToString(sum[:])) {
		t.Fatalf("the local server did not get PEER_TOKEN from stdin: %v %s", err, res.Raw)
	}

	e.run("", "service", "disable", "local", "echo", "sleep").wantCode(t, 0)
	r = e.run("", "service", "tools", "local", "--json").wantCode(t, 0)
	var tools []core.ToolInfo
	if err := json.Unmarshal([]byte(r.stdout), &tools); err != nil || len(tools) == 0 {
		t.Fatalf("tools --json: %v %s", err, r.stdout)
	}
	enabled := map[string]bool{}
	for _, tl := range tools {
		enabled[tl.Name] = tl.Enabled
	}
	if enabled["echo"] || enabled["sleep"] || !enabled["whoami"] {
		t.Errorf("after disable echo sleep: %v", enabled)
	}
	r = e.run("", "service", "enable", "local", "sleep").wantCode(t, 0)
	if !strings.Contains(r.stdout, "disabled tools: echo\n") {
		t.Errorf("enable sleep should leave echo disabled:\n%s", r.stdout)
	}
	r = e.run("", "service", "tools", "local").wantCode(t, 0)
	if !strings.Contains(r.stdout, "TOOL") || !regexpLine(r.stdout, "echo", "no") {
		t.Errorf("tools table:\n%s", r.stdout)
	}

	e.run("", "service", "edit", "local", "--description", "edited", "--env", "MODE=prod").wantCode(t, 0)
	got, err := e.svc.GetService(e.ctx, "local")
	if err != nil || got.Description != "edited" || len(got.LocalEnv) != 2 || len(got.DisabledTools) != 1 {
		t.Fatalf("edit changed the wrong fields: %v %+v", err, got)
	}
	res, err = e.svc.CallServiceTool(e.ctx, "local", core.CallInput{ToolName: "whoami",
		Arguments: json.RawMessage(`{"env":["PEER_TOKEN","MODE"]}`)})
	for _, v := range []string{secret, "prod"} {
		if sum := sha256.Sum256([]byte(v)); err != nil || !strings.Contains(string(res.Raw), hex.EncodeToString(sum[:])) {
			t.Fatalf("after edit the server should get PEER_TOKEN (kept) and MODE=prod: %v %s", err, res.Raw)
		}
	}
	for _, args := range [][]string{{"service", "show", "local"}, {"service", "show", "local", "--json"},
		{"service", "list", "--json"}, {"service", "edit", "local", "--json"}, {"export", "-o", "-"}} {
		if r := e.run("", args...).wantCode(t, 0); strings.Contains(r.stdout+r.stderr, secret) {
			t.Fatalf("%v printed the env secret:\n%s", args, r.stdout)
		}
	}
}

// regexpLine reports whether a table line starts with first and holds want.
func regexpLine(table, first, want string) bool {
	for _, l := range strings.Split(table, "\n") {
		f := strings.Fields(l)
		if len(f) > 1 && f[0] == first && f[1] == want {
			return true
		}
	}
	return false
}

// TestCLIServiceErrors: bad input exits 1 with a message that names what was expected and never
// echoes a secret given on the command line.
func TestCLIServiceErrors(t *testing.T) {
	e := startCLIEnv(t)
	const leaked = "argv-secret-55aa"
	tests := []struct {
		name  string
		stdin string
		args  []string
		want  string
	}{
		{"missing URL", "", []string{"service", "add", "peer"}, "expected NAME URL"},
		{"secret header on argv", "", []string{"service", "add", "peer", "http://127.0.0.1:1/mcp",
			"--header", "Authorization=Bearer " + leaked}, "--header-from-stdin Authorization"},
		{"api key header on argv", "", []string{"service", "add", "peer", "http://127.0.0.1:1/mcp",
			"--header", "X-Api-Key=" + leaked}, "--header-from-stdin X-Api-Key"},
		{"two stdin names", "x", []string{"service", "add", "peer", "http://127.0.0.1:1/mcp",
			"--header-from-stdin", "Authorization", "--header-from-stdin", "X-Api-Key"}, "stdin holds one value"},
		{"empty stdin", "", []string{"service", "add", "peer", "http://127.0.0.1:1/mcp",
			"--header-from-stdin", "Authorization"}, "no secret given"},
		{"env on a remote", "", []string{"service", "add", "peer", "http://127.0.0.1:1/mcp", "--env", "A=b"}, "apply to local services"},
		{"no command after --", "", []string{"service", "add", "peer", "--"}, "command after --"},
		{"header without a separator", "", []string{"service", "add", "peer", "http://127.0.0.1:1/mcp", "--header", "X-Team"}, `expects "Name: value" (or Name=value)`},
		{"bad transport", "", []string{"service", "add", "peer", "http://127.0.0.1:1/mcp", "--transport", "carrier-pigeon"}, "transport"},
		{"unknown deck", "", []string{"service", "add", "peer2", "http://127.0.0.1:1/mcp", "--deck", "nope"}, "service peer2 was created, but linking it to deck nope failed"},
		{"enable without tool", "", []string{"service", "enable", "peer2"}, "one or more tool names"},
		{"unknown service", "", []string{"service", "tools", "nope"}, "nope"},
		{"edit: secret header on argv", "", []string{"service", "edit", "peer2", "--header", "Authorization=" + leaked}, "--header-from-stdin Authorization"},
		{"edit: env on a remote", "", []string{"service", "edit", "peer2", "--env", "A=b"}, "apply to local services"},
		{"edit: command on a remote", "", []string{"service", "edit", "peer2", "--", "npx", "x"}, "is a remote service"},
		{"check: unreachable", "", []string{"service", "check", "peer2"}, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := e.run(tt.stdin, tt.args...).wantCode(t, 1)
			if !strings.Contains(r.stderr, tt.want) {
				t.Errorf("stderr %q does not say %q", r.stderr, tt.want)
			}
			if strings.Contains(r.stdout+r.stderr, leaked) {
				t.Errorf("the secret was echoed:\n%s%s", r.stdout, r.stderr)
			}
		})
	}
	r := e.run("", "service", "check", "peer2", "--json").wantCode(t, 1)
	var h backend.Health
	if err := json.Unmarshal([]byte(r.stdout), &h); err != nil || h.Status == backend.HealthHealthy || h.LastError == "" {
		t.Errorf("check of an unreachable service: %v %s", err, r.stdout)
	}
	if list, _ := e.svc.ListServices(e.ctx); len(list) != 1 || list[0].Name != "peer2" {
		t.Errorf("a refused add created a service: %+v", list)
	}
}
