package tests

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestCLIExec(t *testing.T) {
	e := startCLIEnv(t)
	e.seed()
	out := filepath.Join(t.TempDir(), "env.txt")
	script := `echo "GITHUB=${GITHUB_API_KEY:-unset} LINEAR=${LINEAR_API_KEY:-unset}" > "$OUT"; cat; exit 7`
	t.Setenv("OUT", out)
	t.Setenv("LINEAR_API_KEY", "")
	os.Unsetenv("LINEAR_API_KEY")
	r := e.run("from stdin\n", "exec", "--connections", "cred_github", "--", "sh", "-c", script).wantCode(t, 7)
	if r.stdout != "from stdin\n" {
		t.Errorf("stdin/stdout not passed through: %q", r.stdout)
	}
	if strings.Contains(r.stdout+r.stderr, cliCanary) {
		t.Errorf("exec printed a secret: %q %q", r.stdout, r.stderr)
	}
	got, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	if want := "GITHUB=" + cliCanary + " LINEAR=unset\n"; string(got) != want {
		t.Errorf("child saw %q, want %q", got, want)
	}
	audits, err := e.svc.ListExecAudits(e.ctx)
	if err != nil || len(audits) != 1 {
		t.Fatalf("audits = %+v, %v", audits, err)
	}
	raw, _ := json.Marshal(audits)
	if strings.Contains(string(raw), cliCanary) {
		t.Errorf("audit row holds the secret: %s", raw)
	}
	if a := audits[0]; a.ExitCode == nil || *a.ExitCode != 7 || a.CredentialIDs[0] != "cred_github" || a.Command[0] != "sh" {
		t.Errorf("audit row = %s", raw)
	}
}

func TestCLIExecRefusalsAndDryRun(t *testing.T) {
	e := startCLIEnv(t)
	e.seed()
	r := e.run("", "exec", "--deck", "dev", "--connections", "cred_github,cred_linear", "--", "true").wantCode(t, 1)
	if !strings.Contains(r.stderr, "cred_linear") {
		t.Errorf("refusal does not name the credential: %q", r.stderr)
	}
	e.run("", "exec", "--deck", "dev", "--connections", "cred_github", "--", "true").wantCode(t, 0)
	r = e.run("", "exec", "--dry-run", "--connections", "cred_github,Linear", "--", "env").wantCode(t, 0)
	want := "GITHUB_API_KEY  (from cred_github)\nLINEAR_API_KEY  (from cred_linear)\nwould run: env\n"
	if r.stdout != want {
		t.Errorf("dry run printed %q, want %q", r.stdout, want)
	}
	e.run("", "exec", "--connections", "cred_github").wantCode(t, 1)
	r = e.run("", "exec", "--connections", "cred_github", "--", "/no/such/program").wantCode(t, 127)
	audits, _ := e.svc.ListExecAudits(e.ctx)
	if len(audits) != 2 {
		t.Errorf("want 2 audit rows (the allowed run and the failed start), got %d", len(audits))
	}
}
