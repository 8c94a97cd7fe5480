package tests

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// Attacks on the agent-deck CLI.
func TestAttacksCLI(t *testing.T) {
	runAttacks(t, []attack{
		{"credential secret piped with a line break", attackCLICredentialSecretWithLineBreak},
		{"the CLI drops the hint of a server error", attackCLIHidesServerHint},
		{"a newer error code is reported as an internal failure", attackCLIUnknownCode},
		{"a member's CLI shows, shares or deletes another person's private deck", attackCLIOtherPersonsDeck},
		{"a member's CLI lists, shows or sets their own secret for a credential on another person's deck", attackCLIOtherPersonsCredential},
		{"adopt --replace on a symlinked client file deletes the file it points to", attackCLIAdoptSymlinkedFile},
		{"adopt registers a server whose name is not valid UTF-8 under another name", attackCLIAdoptBadUTF8Name},
		{"shell completion runs a command in a deck's name", attackCLICompletionEvaluatesNames},
	})
}

// attackCLIAdoptSymlinkedFile: ~/.claude.json is a link into a dotfiles folder and holds only
// the servers adopt takes out. --replace must neither delete the file the link points to nor
// leave the link dangling: the client still finds a valid, empty config through it.
func attackCLIAdoptSymlinkedFile(t *testing.T) {
	e := startCLIEnv(t)
	home := t.TempDir()
	t.Setenv("HOME", home)
	t.Setenv("XDG_CONFIG_HOME", filepath.Join(home, ".config"))
	dotfiles := filepath.Join(home, "dotfiles")
	must(t, os.MkdirAll(dotfiles, 0o755))
	target := filepath.Join(dotfiles, "claude.json")
	src := `{"mcpServers": {"docs": {"type": "http", "url": "https://docs.example/mcp"}}}` + "\n"
	must(t, os.WriteFile(target, []byte(src), 0o600))
	link := filepath.Join(home, ".claude.json")
	must(t, os.Symlink(target, link))
	e.run("", "adopt", "--from", "claude-code", "--replace").wantCode(t, 0)
	if fi, err := os.Lstat(link); err != nil || fi.Mode()&os.ModeSymlink == 0 {
		t.Fatalf("the link %s is gone or no longer a link: %v", link, err)
	}
	got, err := os.ReadFile(target)
	if err != nil {
		t.Fatalf("the file the link points to is gone: %v", err)
	}
	if strings.Contains(string(got), "docs") || strings.TrimSpace(string(got)) != "{}" {
		t.Errorf("the file the link points to holds %q, want the servers taken out and a valid empty config", got)
	}
	if b, err := os.ReadFile(link + ".agent-deck.bak"); err != nil || string(b) != src {
		t.Errorf("the backup does not hold the original: %v %q", err, b)
	}
}

// attackCLIAdoptBadUTF8Name: a client file names a server with bytes that are not UTF-8. adopt
// must not register it under a silently repaired name (U+FFFD in place of the bytes) nor take
// it out with --replace; it says why it skipped it, and adopts the others.
func attackCLIAdoptBadUTF8Name(t *testing.T) {
	e := startCLIEnv(t)
	home := t.TempDir()
	t.Setenv("HOME", home)
	t.Setenv("XDG_CONFIG_HOME", filepath.Join(home, ".config"))
	file := filepath.Join(home, ".claude.json")
	src := "{\"mcpServers\": {\n" +
		"  \"bad\xffname\": {\"type\": \"http\", \"url\": \"https://bad.example/mcp\"},\n" +
		"  \"esc\\ud800aped\": {\"type\": \"http\", \"url\": \"https://esc.example/mcp\"},\n" +
		"  \"good\": {\"type\": \"http\", \"url\": \"https://good.example/mcp\"}\n}}\n"
	must(t, os.WriteFile(file, []byte(src), 0o600))
	r := e.run("", "adopt", "--from", "claude-code", "--replace").wantCode(t, 0)
	list, err := e.svc.ListServices(e.ctx)
	must(t, err)
	for _, s := range list {
		if s.Name != "good" {
			t.Errorf("registered %q (%s)", s.Name, s.URL)
		}
	}
	if len(list) != 1 {
		t.Errorf("%d services registered, want only good", len(list))
	}
	if !strings.Contains(r.stdout, "UTF-8") {
		t.Errorf("adopt does not say why it skipped the bad names:\n%s", r.stdout)
	}
	got, err := os.ReadFile(file)
	must(t, err)
	if !strings.Contains(string(got), "bad\xffname") || !strings.Contains(string(got), `esc\ud800aped`) || strings.Contains(string(got), "good") {
		t.Errorf("--replace changed the wrong entries:\n%s", got)
	}
}
