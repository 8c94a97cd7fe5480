package tests

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/agent-deck/agent-deck/cli"
)

// withoutStamp drops exported_at so exports compare on content.
func cliWithoutStamp(t *testing.T, raw []byte) string {
	t.Helper()
	var m map[string]json.RawMessage
	if err := json.Unmarshal(raw, &m); err != nil {
		t.Fatalf("not a bundle: %v\n%s", err, raw)
	}
	delete(m, "exported_at")
	out, _ := json.Marshal(m)
	return string(out)
}

func TestCLIExportImportRoundTrip(t *testing.T) {
	src := startCLIEnv(t)
	src.seed()
	dir := t.TempDir()
	first := filepath.Join(dir, "first.json")
	src.run("", "export", "-o", first).wantCode(t, 0)
	raw, err := os.ReadFile(first)
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(raw), cliCanary) {
		t.Fatal("the export holds a secret")
	}

	dst := startCLIEnv(t)
	before := dst.run("", "export", "-o", "-").wantCode(t, 0).stdout
	dry := dst.run("", "import", "--dry-run", "--json", first).wantCode(t, 0)
	if after := dst.run("", "export", "-o", "-").wantCode(t, 0).stdout; cliWithoutStamp(t, []byte(after)) != cliWithoutStamp(t, []byte(before)) {
		t.Fatal("a dry run changed the server")
	}
	real := dst.run("", "import", "--json", first).wantCode(t, 0)
	var dryRep, realRep map[string]any
	_ = json.Unmarshal([]byte(dry.stdout), &dryRep)
	_ = json.Unmarshal([]byte(real.stdout), &realRep)
	delete(dryRep, "dry_run")
	delete(realRep, "dry_run")
	if diff := cmp.Diff(realRep, dryRep); diff != "" {
		t.Errorf("dry-run report differs (-real +dry):\n%s", diff)
	}
	second := filepath.Join(dir, "second.json")
	dst.run("", "export", "-o", second).wantCode(t, 0)
	raw2, _ := os.ReadFile(second)
	if diff := cmp.Diff(cliWithoutStamp(t, raw), cliWithoutStamp(t, raw2)); diff != "" {
		t.Errorf("export → import → export differs:\n%s", diff)
	}
	again := dst.run("", "import", first).wantCode(t, 0)
	if strings.Contains(again.stdout, "Created") || !strings.Contains(again.stdout, "Reused") {
		t.Errorf("second import report:\n%s", again.stdout)
	}
	cliGolden(t, "import-report-json.txt", real.stdout)
	cliGolden(t, "import-again.txt", again.stdout)
	fresh := startCLIEnv(t)
	cliGolden(t, "import-dry-run.txt", fresh.run("", "import", "--dry-run", first).wantCode(t, 0).stdout)
}

func TestCLIImportRefusals(t *testing.T) {
	e := startCLIEnv(t)
	dir := t.TempDir()
	tests := []struct {
		name, bundle, want string
	}{
		{"malformed", `{"format":`, "not valid JSON"},
		{"unknown version", `{"format":"agent-deck-bundle","version":9}`, "$.version"},
		{"bad type", `{"format":"agent-deck-bundle","version":1,"services":[{"name":"a","type":"ftp"}]}`, "$.services[0].type"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			path := filepath.Join(dir, tc.name+".json")
			if err := os.WriteFile(path, []byte(tc.bundle), 0o600); err != nil {
				t.Fatal(err)
			}
			r := e.run("", "import", path).wantCode(t, 1)
			if !strings.Contains(r.stderr, tc.want) {
				t.Errorf("stderr %q lacks %q", r.stderr, tc.want)
			}
		})
	}
	e.run("", "import", filepath.Join(dir, "missing.json")).wantCode(t, 1)
}

func TestCLIImportProgressForLargeBundles(t *testing.T) {
	e := startCLIEnv(t)
	var creds []string
	for i := 0; i < 120; i++ {
		creds = append(creds, fmt.Sprintf(`{"label":"Key %03d"}`, i))
	}
	path := filepath.Join(t.TempDir(), "big.json")
	bundle := `{"format":"agent-deck-bundle","version":1,"credentials":[` + strings.Join(creds, ",") + `]}`
	if err := os.WriteFile(path, []byte(bundle), 0o600); err != nil {
		t.Fatal(err)
	}
	r := e.run("", "import", path, "--dry-run").wantCode(t, 0)
	if !strings.Contains(r.stderr, "Importing 0 services, 120 credentials") || !strings.Contains(r.stderr, "The server answered after") {
		t.Errorf("no progress on stderr: %q", r.stderr)
	}
	// Issue 27 item 19: on a terminal, a spinner with the counts and the time so far.
	tty := openPTY(t)
	seen := make(chan string, 1)
	go func() {
		var all []byte
		buf := make([]byte, 4096)
		for {
			n, err := tty.master.Read(buf)
			all = append(all, buf[:n]...)
			if strings.Contains(string(all), "120 credentials") && strings.Contains(string(all), "\n") || err != nil {
				seen <- string(all)
				return
			}
		}
	}()
	var out bytes.Buffer
	if code := cli.Run(context.Background(), []string{"agent-deck", "--home", e.home, "import", path}, strings.NewReader(""), &out, tty.slave); code != 0 {
		t.Fatalf("import on a terminal: exit %d", code)
	}
	select {
	case got := <-seen:
		if !strings.Contains(got, "Importing 0 services, 120 credentials") || strings.Contains(got, "The server answered") {
			t.Errorf("the terminal shows %q, want the spinner with the counts", got)
		}
	case <-time.After(statuslineHang):
		t.Fatal("nothing reached the terminal")
	}
	r = e.run("", "export", "-o", filepath.Join(t.TempDir(), "out.json")).wantCode(t, 0)
	if !strings.Contains(r.stderr, "120 credentials") {
		t.Errorf("no progress on stderr: %q", r.stderr)
	}
}
