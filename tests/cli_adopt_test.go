package tests

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agent-deck/agent-deck/backend/core"
)

// adoptCall is one tool call through an adopted service and the values the peer must have got.
type adoptCall struct {
	service string
	args    string
	want    []string
}

// TestCLIAdopt reads a realistic config of each client (testdata/adopt), registers its servers
// against a real deck server, takes them out of the client's file with --replace, calls the
// adopted peers to prove their secrets arrived, and runs again to prove nothing changes. Every
// output is compared with a golden file; no output, export or stored field holds a secret.
func TestCLIAdopt(t *testing.T) {
	cases := []struct {
		name, client, scope, fixture, file string
		env                                map[string]string
		peerAuth                           string // the remote peer requires this Authorization
		secrets                            []string
		calls                              []adoptCall
		adopted                            int
	}{
		{name: "claude-code", client: "claude-code", scope: "user", fixture: "claude-code.json", file: ".claude.json",
			env:      map[string]string{"ADOPT_GH_TOKEN": "gh-env-token-31c7e0"},
			peerAuth: "Bearer gh-env-token-31c7e0",
			secrets:  []string{"gh-env-token-31c7e0", "literal-env-secret-4f1a9c", "lin_api_0123456789abcdef0123", "ad_xxx"},
			calls: []adoptCall{
				{"github", `{"headers":["Authorization","X-Team"]}`, []string{"Bearer gh-env-token-31c7e0", "core"}},
				{"files", `{"env":["PEER_TOKEN","MODE"]}`, []string{"literal-env-secret-4f1a9c", "test"}},
			}, adopted: 3},
		{name: "claude-code-local", client: "claude-code", scope: "local", fixture: "claude-code-local.json", file: ".claude.json",
			secrets: []string{"local-scope-secret-3e9b", "ad_local"},
			calls:   []adoptCall{{"files", `{"env":["PEER_TOKEN"]}`, []string{"local-scope-secret-3e9b"}}},
			adopted: 1},
		{name: "cursor", client: "cursor", scope: "project", fixture: "cursor.json", file: ".cursor/mcp.json",
			env:     map[string]string{"ADOPT_CURSOR_SECRET": "cursor-env-secret-e91f"},
			secrets: []string{"cursor-env-secret-e91f", "cursor-header-secret-77e2"},
			calls: []adoptCall{
				{"files", `{"env":["PEER_TOKEN"]}`, []string{"cursor-env-secret-e91f"}},
				{"remote", `{"headers":["X-Api-Key"]}`, []string{"cursor-header-secret-77e2"}},
			}, adopted: 2},
		{name: "vscode", client: "vscode", scope: "project", fixture: "vscode.json", file: ".vscode/mcp.json",
			env:      map[string]string{"ADOPT_VSCODE_TOKEN": "vscode-token-8d2a"},
			peerAuth: "Bearer vscode-token-8d2a",
			secrets:  []string{"vscode-env-secret-0b3d", "vscode-token-8d2a"},
			calls: []adoptCall{
				{"files", `{"env":["PEER_TOKEN"]}`, []string{"vscode-env-secret-0b3d"}},
				{"remote", `{"headers":["Authorization"]}`, []string{"Bearer vscode-token-8d2a"}},
			}, adopted: 2},
		{name: "codex", client: "codex", scope: "user", fixture: "codex.toml", file: ".codex/config.toml",
			env:      map[string]string{"ADOPT_CODEX_TOKEN": "codex-token-6b0f"},
			peerAuth: "Bearer codex-token-6b0f",
			secrets:  []string{"codex-env-secret-5c8e", "codex-token-6b0f"},
			calls: []adoptCall{
				{"files", `{"env":["PEER_TOKEN","MODE"]}`, []string{"codex-env-secret-5c8e", "prod"}},
				{"remote", `{"headers":["Authorization","X-Team"]}`, []string{"Bearer codex-token-6b0f", "core"}},
			}, adopted: 2},
		{name: "claude-desktop", client: "claude-desktop", scope: "user", fixture: "claude-desktop.json",
			file:    ".config/Claude/claude_desktop_config.json",
			secrets: []string{"desktop-env-secret-a1d9"},
			calls: []adoptCall{
				{"files", `{"env":["PEER_TOKEN","LITERAL_REF"]}`, []string{"desktop-env-secret-a1d9", "${NOT_EXPANDED}"}},
			}, adopted: 1},
	}
	bin := mcpPeerBinary(t)
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			e := startCLIEnv(t)
			e.run("", "deck", "create", "dev").wantCode(t, 0)
			var peerEnv []string
			if tc.peerAuth != "" {
				peerEnv = append(peerEnv, "PEER_REQUIRE_AUTHORIZATION="+tc.peerAuth)
			}
			peer := startHTTPPeer(t, peerEnv...)
			home := t.TempDir()
			t.Setenv("HOME", home)
			t.Setenv("XDG_CONFIG_HOME", filepath.Join(home, ".config"))
			for k, v := range tc.env {
				t.Setenv(k, v)
			}
			proj := filepath.Join(home, "proj")
			file := filepath.Join(home, tc.file)
			if tc.scope == "project" {
				file = filepath.Join(proj, tc.file)
			}
			raw, err := os.ReadFile(filepath.Join("testdata", "adopt", tc.fixture))
			if err != nil {
				t.Fatal(err)
			}
			subst := strings.NewReplacer("{{PEER_URL}}", peer, "{{PEER_BIN}}", bin, "{{DECK_URL}}", e.srv.URL(), "{{PROJECT}}", proj)
			original := subst.Replace(string(raw))
			if err := os.MkdirAll(filepath.Dir(file), 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(file, []byte(original), 0o600); err != nil {
				t.Fatal(err)
			}
			unsubst := strings.NewReplacer(peer, "{{PEER_URL}}", bin, "{{PEER_BIN}}", e.srv.URL(), "{{DECK_URL}}", proj, "{{PROJECT}}", home, "{{HOME}}")
			base := []string{"adopt", "--from", tc.client, "--scope", tc.scope, "--project-dir", proj}
			var outs []string

			dry := e.run("", append(base, "--dry-run")...).wantCode(t, 0)
			outs = append(outs, dry.stdout, dry.stderr)
			cliGolden(t, filepath.Join("adopt", tc.name+".dry-run.txt"), unsubst.Replace(dry.stdout))
			if list, _ := e.svc.ListServices(e.ctx); len(list) != 0 {
				t.Fatalf("--dry-run registered %d services", len(list))
			}

			r := e.run("", append(base, "--deck", "dev", "--replace")...).wantCode(t, 0)
			outs = append(outs, r.stdout, r.stderr)
			cliGolden(t, filepath.Join("adopt", tc.name+".adopt.txt"), unsubst.Replace(r.stdout))
			after, err := os.ReadFile(file)
			if err != nil {
				t.Fatal(err)
			}
			cliGolden(t, filepath.Join("adopt", tc.name+".after"+filepath.Ext(tc.fixture)), unsubst.Replace(string(after)))
			if b, err := os.ReadFile(file + ".agent-deck.bak"); err != nil || string(b) != original {
				t.Fatalf("the backup does not hold the original: %v", err)
			}
			list, _ := e.svc.ListServices(e.ctx)
			if len(list) != tc.adopted {
				t.Fatalf("adopted %d services, want %d", len(list), tc.adopted)
			}
			snap, err := e.svc.DeckSnapshot(e.ctx, "dev")
			if err != nil || len(snap.Services) != tc.adopted {
				t.Fatalf("--deck linked %d services, want %d (%v)", len(snap.Services), tc.adopted, err)
			}
			for _, c := range tc.calls {
				res, err := e.svc.CallServiceTool(e.ctx, c.service, core.CallInput{ToolName: "whoami",
					Arguments: json.RawMessage(c.args)})
				if err != nil || res.IsError {
					t.Fatalf("call %s: %v %s", c.service, err, res.Raw)
				}
				for _, v := range c.want {
					if sum := sha256.Sum256([]byte(v)); !strings.Contains(string(res.Raw), hex.EncodeToString(sum[:])) {
						t.Errorf("%s did not get the value %q from the client's config: %s", c.service, v, res.Raw)
					}
				}
			}

			again := e.run("", append(base, "--deck", "dev", "--replace")...).wantCode(t, 0)
			outs = append(outs, again.stdout, again.stderr)
			if b, _ := os.ReadFile(file); string(b) != string(after) {
				t.Errorf("running adopt again changed the client's file")
			}
			if _, err := os.Stat(file + ".agent-deck.bak.1"); err == nil {
				t.Errorf("running adopt again wrote another backup")
			}
			if l, _ := e.svc.ListServices(e.ctx); len(l) != tc.adopted {
				t.Errorf("running adopt again registered %d services, want %d", len(l), tc.adopted)
			}
			if strings.Contains(again.stdout, "adopted ") && !strings.Contains(again.stdout, "already adopted") {
				t.Errorf("running adopt again adopted something:\n%s", again.stdout)
			}
			// Issue 27 item 15: the second run says what the first adopted, though the file no
			// longer lists it.
			if n := strings.Count(again.stdout, "already adopted"); n != tc.adopted {
				t.Errorf("running adopt again reports %d servers as already adopted, want %d:\n%s", n, tc.adopted, again.stdout)
			}
			cliGolden(t, filepath.Join("adopt", tc.name+".again.txt"), unsubst.Replace(again.stdout))

			js := e.run("", append(base, "--json", "--dry-run")...).wantCode(t, 0)
			outs = append(outs, js.stdout)
			var rep struct {
				Client   string `json:"client"`
				Services []struct {
					Name, Outcome string
				} `json:"services"`
			}
			if err := json.Unmarshal([]byte(js.stdout), &rep); err != nil || rep.Client != tc.client {
				t.Fatalf("--json: %v %s", err, js.stdout)
			}
			for _, args := range [][]string{{"service", "list", "--json"}, {"credential", "list", "--json"}, {"export", "-o", "-"}} {
				r := e.run("", args...).wantCode(t, 0)
				outs = append(outs, r.stdout, r.stderr)
			}
			for _, s := range list {
				b, _ := json.Marshal(s)
				outs = append(outs, string(b))
			}
			for _, o := range outs {
				for _, s := range tc.secrets {
					if strings.Contains(o, s) {
						t.Fatalf("an output holds the secret %q:\n%s", s, o)
					}
				}
			}
		})
	}
}

// TestCLIAdoptErrors covers the refusals: a client or scope that does not exist, an unknown deck
// (nothing registered), a file that is not valid, a missing file.
func TestCLIAdoptErrors(t *testing.T) {
	e := startCLIEnv(t)
	home := t.TempDir()
	t.Setenv("HOME", home)
	t.Setenv("XDG_CONFIG_HOME", filepath.Join(home, ".config"))
	r := e.run("", "adopt", "--from", "emacs").wantCode(t, 1)
	if !strings.Contains(r.stderr, "expected one of") {
		t.Errorf("unknown client: %s", r.stderr)
	}
	e.run("", "adopt", "--from", "claude-desktop", "--scope", "project").wantCode(t, 1)
	if r := e.run("", "adopt", "--from", "cursor", "--scope", "local").wantCode(t, 1); !strings.Contains(r.stderr, "Claude Code's") {
		t.Errorf("--scope local for cursor: %s", r.stderr)
	}
	r = e.run("", "adopt", "--from", "claude-code").wantCode(t, 0)
	if !strings.Contains(r.stdout, "No MCP servers") {
		t.Errorf("missing file: %s", r.stdout)
	}
	file := filepath.Join(home, ".claude.json")
	if err := os.WriteFile(file, []byte(`{"mcpServers": {"x": {"command": "npx"}}}`), 0o600); err != nil {
		t.Fatal(err)
	}
	r = e.run("", "adopt", "--from", "claude-code", "--deck", "nope").wantCode(t, 1)
	if l, _ := e.svc.ListServices(e.ctx); len(l) != 0 {
		t.Errorf("an unknown deck still registered %d services", len(l))
	}
	if err := os.WriteFile(file, []byte(`{"mcpServers": {`), 0o600); err != nil {
		t.Fatal(err)
	}
	r = e.run("", "adopt", "--from", "claude-code").wantCode(t, 1)
	if !strings.Contains(r.stderr, "invalid JSON") {
		t.Errorf("broken file: %s", r.stderr)
	}
}

// TestCLIAdoptThenReplace adopts without --replace, then again with it: the servers registered
// the first time are "already adopted" and taken out; a name taken by a different service is
// left in the file.
func TestCLIAdoptThenReplace(t *testing.T) {
	e := startCLIEnv(t)
	home := t.TempDir()
	t.Setenv("HOME", home)
	t.Setenv("XDG_CONFIG_HOME", filepath.Join(home, ".config"))
	file := filepath.Join(home, ".claude.json")
	src := `{
  "mcpServers": {
    "one": { "command": "npx", "args": ["-y", "server-one"], "env": { "ONE_KEY": "one-secret-2e7d" } },
    "two": { "type": "http", "url": "https://Two.example/mcp/", "headers": { "X-Api-Key": "two-secret-5a1c" } },
    "taken": { "type": "http", "url": "https://taken.example/mcp" }
  }
}
`
	if err := os.WriteFile(file, []byte(src), 0o600); err != nil {
		t.Fatal(err)
	}
	e.run("", "service", "add", "taken", "https://other.example/mcp").wantCode(t, 0)
	r := e.run("", "adopt", "--from", "claude-code").wantCode(t, 0)
	if b, _ := os.ReadFile(file); string(b) != src {
		t.Fatalf("adopt without --replace changed the file:\n%s", b)
	}
	if !strings.Contains(r.stdout, "adopted         one") || !strings.Contains(r.stdout, "a different service named taken") {
		t.Fatalf("first adopt:\n%s", r.stdout)
	}
	e.run("", "deck", "create", "dev").wantCode(t, 0)
	r = e.run("", "adopt", "--from", "claude-code", "--replace", "--deck", "dev").wantCode(t, 0)
	if !strings.Contains(r.stdout, "already adopted one") || !strings.Contains(r.stdout, "already adopted two") ||
		!strings.Contains(r.stdout, "linked to deck dev") {
		t.Errorf("second adopt:\n%s", r.stdout)
	}
	if snap, err := e.svc.DeckSnapshot(e.ctx, "dev"); err != nil || len(snap.Services) != 2 {
		t.Errorf("--deck on a server adopted before did not link it: %v %+v", err, snap.Services)
	}
	if !strings.Contains(r.stdout, "run: agent-deck setup --client claude-code --scope user") {
		t.Errorf("no hint to run setup when the client has no Agent Deck entry:\n%s", r.stdout)
	}
	b, _ := os.ReadFile(file)
	if strings.Contains(string(b), `"one"`) || strings.Contains(string(b), `"two"`) || !strings.Contains(string(b), `"taken"`) {
		t.Errorf("--replace took out the wrong servers:\n%s", b)
	}
	if strings.Contains(r.stdout+r.stderr, "one-secret-2e7d") || strings.Contains(r.stdout+r.stderr, "two-secret-5a1c") {
		t.Errorf("adopt printed a secret:\n%s", r.stdout)
	}
	if l, _ := e.svc.ListServices(e.ctx); len(l) != 3 {
		t.Errorf("%d services, want 3", len(l))
	}
}
