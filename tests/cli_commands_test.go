package tests

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/agent-deck/agent-deck/backend"
	"github.com/agent-deck/agent-deck/backend/core"
)

// TestCLIListAndShow checks each list and show command's table and --json output against golden
// files, and that no output holds a secret.
func TestCLIListAndShow(t *testing.T) {
	e := startCLIEnv(t)
	e.seed()
	tests := []struct {
		name string
		args []string
	}{
		{"deck-list", []string{"deck", "list"}},
		{"deck-list-json", []string{"deck", "list", "--json"}},
		{"deck-show", []string{"deck", "show", "dev"}},
		{"service-list", []string{"service", "list"}},
		{"service-list-json", []string{"service", "list", "--json"}},
		{"service-show", []string{"service", "show", "github-mcp"}},
		{"credential-list", []string{"credential", "list"}},
		{"credential-list-json", []string{"credential", "list", "--json"}},
		{"playbook-list", []string{"playbook", "list"}},
		{"playbook-list-json", []string{"playbook", "list", "--json"}},
		{"playbook-show", []string{"playbook", "show", "pb_open_a_pull_request"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			r := e.run("", tc.args...).wantCode(t, 0)
			if strings.Contains(r.stdout+r.stderr, cliCanary) {
				t.Fatalf("output holds a secret:\n%s", r.stdout)
			}
			if strings.HasSuffix(tc.name, "-json") && !json.Valid([]byte(r.stdout)) {
				t.Fatalf("--json output is not JSON:\n%s", r.stdout)
			}
			cliGolden(t, tc.name+".txt", r.stdout)
		})
	}
}

func TestCLIExitCodes(t *testing.T) {
	e := startCLIEnv(t)
	e.seed()
	tests := []struct {
		name   string
		args   []string
		code   int
		stderr string
	}{
		{"unknown deck", []string{"deck", "show", "nope"}, 1, "nope"},
		{"missing argument", []string{"service", "show"}, 1, "expected exactly one"},
		{"duplicate deck", []string{"deck", "create", "DEV"}, 1, "dev"},
		{"bad scope", []string{"token", "create", "x", "--scope", "root"}, 1, "scope"},
		{"deck create", []string{"deck", "create", "ops"}, 0, ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			r := e.run("", tc.args...).wantCode(t, tc.code)
			if !strings.Contains(strings.ToLower(r.stderr), strings.ToLower(tc.stderr)) {
				t.Errorf("stderr %q does not mention %q", r.stderr, tc.stderr)
			}
		})
	}
}

func TestCLIUnreachable(t *testing.T) {
	home := t.TempDir()
	r := runCLI(home, strings.NewReader(""), "--server", "http://127.0.0.1:1", "deck", "list").wantCode(t, 2)
	want := "agent-deck: no server at http://127.0.0.1:1 — start it with `agent-deck serve`\n"
	if r.stderr != want {
		t.Errorf("stderr = %q, want %q", r.stderr, want)
	}
}

func TestCLIDeleteConfirmation(t *testing.T) {
	e := startCLIEnv(t)
	e.seed()
	r := e.run("y\n", "playbook", "delete", "Release notes").wantCode(t, 1)
	if !strings.Contains(r.stderr, "--yes") {
		t.Errorf("refusal does not mention --yes: %q", r.stderr)
	}
	if _, err := e.svc.GetPlaybook(e.ctx, "Release notes"); err != nil {
		t.Fatalf("playbook deleted without confirmation: %v", err)
	}
	e.run("", "playbook", "delete", "--yes", "Release notes").wantCode(t, 0)
	if _, err := e.svc.GetPlaybook(e.ctx, "Release notes"); backend.ErrorCode(err) != backend.CodeNotFound {
		t.Fatalf("playbook still there after delete --yes: %v", err)
	}
	e.run("", "playbook", "delete", "--yes", "Release notes").wantCode(t, 1)
}

func TestCLIRefusedDeletePrintsDependents(t *testing.T) {
	e := startCLIEnv(t)
	e.seed()
	for _, args := range [][]string{{"credential", "delete", "--yes", "cred_github"}, {"service", "delete", "--yes", "github-mcp"}} {
		r := e.run("", args...).wantCode(t, 1)
		if !strings.Contains(r.stderr, "pb_open_a_pull_request") || !strings.Contains(r.stderr, "Open a pull request") {
			t.Errorf("%v: stderr does not list the dependent playbook:\n%s", args, r.stderr)
		}
	}
	e.run("", "deck", "delete", "--yes", "dev").wantCode(t, 0)
	e.run("", "service", "show", "github-mcp").wantCode(t, 0)
}

func TestCLICredentialSecretFromStdin(t *testing.T) {
	e := startCLIEnv(t)
	const secret = "stdin-secret-0a9f"
	r := e.run(secret+"\n", "credential", "add", "OpenAI", "--env-name", "OPENAI_KEY").wantCode(t, 0)
	if strings.Contains(r.stdout+r.stderr, secret) {
		t.Fatalf("the secret was echoed: %s%s", r.stdout, r.stderr)
	}
	c, err := e.svc.GetCredential(e.ctx, "cred_openai")
	if err != nil || !c.HasSecret || c.EnvName != "OPENAI_KEY" {
		t.Fatalf("credential = %+v, %v", c, err)
	}
	e.run("", "credential", "add", "Empty").wantCode(t, 1)
	e.run("rotated-value\n", "credential", "rotate", "cred_openai").wantCode(t, 0)
	g, err := e.svc.StartExec(e.ctx, core.ExecInput{CredentialIDs: []string{"cred_openai"}, Command: []string{"true"}})
	if err != nil || g.Env["OPENAI_KEY"] != "rotated-value" {
		t.Fatalf("rotated secret not stored: %v %v", g.Env, err)
	}
	if r := e.run("x\n", "credential", "add", "Bad", "--value", "x"); r.code == 0 {
		t.Fatal("a secret flag was accepted")
	}
}

func TestCLITokens(t *testing.T) {
	e := startCLIEnv(t)
	r := e.run("", "token", "create", "ci", "--scope", "agent:read").wantCode(t, 0)
	secret := strings.TrimSpace(r.stdout)
	if secret == "" || strings.Contains(secret, "\n") {
		t.Fatalf("token create printed %q", r.stdout)
	}
	r = e.run("", "token", "list", "--json").wantCode(t, 0)
	var list []backend.Token
	if err := json.Unmarshal([]byte(r.stdout), &list); err != nil || len(list) < 2 {
		t.Fatalf("token list --json: %v\n%s", err, r.stdout)
	}
	if strings.Contains(r.stdout, secret) {
		t.Fatal("token list shows a token secret")
	}
	var id string
	for _, tok := range list {
		if tok.Name == "ci" {
			id = tok.ID
		}
	}
	e.run("", "token", "revoke", id, "--yes").wantCode(t, 0)
	r = e.run("", "--token", secret, "--server", e.srv.URL(), "deck", "list").wantCode(t, 1)
	if !strings.Contains(strings.ToLower(r.stderr), "token") {
		t.Errorf("revoked token error does not say why: %q", r.stderr)
	}
	r = e.run("", "token", "list").wantCode(t, 0)
	if !strings.Contains(r.stdout, "REVOKED") || !strings.Contains(r.stdout, "ci") {
		t.Errorf("token list table:\n%s", r.stdout)
	}
}

func TestCLIStatus(t *testing.T) {
	e := startCLIEnv(t)
	r := e.run("", "status").wantCode(t, 0)
	for _, want := range []string{"running at " + e.srv.URL(), "database:", "sessions:"} {
		if !strings.Contains(r.stdout, want) {
			t.Errorf("status lacks %q:\n%s", want, r.stdout)
		}
	}
	r = e.run("", "status", "--json").wantCode(t, 0)
	var rep struct {
		Running bool   `json:"running"`
		URL     string `json:"url"`
	}
	if err := json.Unmarshal([]byte(r.stdout), &rep); err != nil || !rep.Running || rep.URL != e.srv.URL() {
		t.Errorf("status --json = %s (%v)", r.stdout, err)
	}
	r = runCLI(t.TempDir(), strings.NewReader(""), "--server", "http://127.0.0.1:1", "status").wantCode(t, 2)
	if !strings.Contains(r.stderr, "agent-deck serve") {
		t.Errorf("status of a stopped server: %q", r.stderr)
	}
}
