package tests

import (
	"bytes"
	"context"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"log/slog"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/agent-deck/agent-deck/backend"
	"github.com/agent-deck/agent-deck/backend/core"
	"github.com/agent-deck/agent-deck/backend/postgres/pgtest"
	"github.com/agent-deck/agent-deck/cli"
	"github.com/agent-deck/agent-deck/tests/resttest"
)

// newKeyText is a fresh secret key as AGENT_DECK_SECRET_KEY takes it.
func newKeyText(t testing.TB) string {
	t.Helper()
	key := make([]byte, 32)
	if _, err := rand.Read(key); err != nil {
		t.Fatal(err)
	}
	return base64.StdEncoding.EncodeToString(key)
}

// serveOnce runs `agent-deck serve` expecting it to refuse to start, and returns its exit code
// and output. A server that does start is stopped and fails the test.
func serveOnce(t *testing.T, home string, env ...string) (int, string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, agentDeckBinary(t), "serve", "--addr", "127.0.0.1:0")
	cmd.Env = append(os.Environ(), append([]string{"AGENT_DECK_HOME=" + home, "AGENT_DECK_SECRET_KEY="}, env...)...)
	out := &syncBuffer{}
	cmd.Stdout, cmd.Stderr = out, out
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	deadline := time.Now().Add(50 * time.Second)
	for time.Now().Before(deadline) {
		select {
		case err := <-done:
			var exitErr *exec.ExitError
			if err == nil {
				return 0, out.String()
			}
			if asExitError(err, &exitErr) {
				return exitErr.ExitCode(), out.String()
			}
			t.Fatalf("serve: %v", err)
		default:
		}
		if readServerURL(home) != "" {
			_ = cmd.Process.Kill()
			<-done
			t.Fatalf("serve started and became ready; want a refusal\n%s", out)
		}
		time.Sleep(50 * time.Millisecond)
	}
	_ = cmd.Process.Kill()
	<-done
	t.Fatalf("serve neither started nor exited\n%s", out)
	return 0, ""
}

// startReplica runs cli.Start on dbURL with key, as a second replica would; the caller checks err.
func startReplica(t *testing.T, dbURL, key string) (*cli.Server, error) {
	t.Helper()
	srv, err := cli.Start(context.Background(), cli.ServeConfig{Home: t.TempDir(), Addr: "127.0.0.1:0",
		DatabaseURL: dbURL, SecretKey: key, Profile: "standard", LogLevel: "error",
		Logger: slog.New(slog.DiscardHandler)})
	if err == nil {
		t.Cleanup(func() {
			ctx, cancel := context.WithTimeout(context.Background(), 15*time.Second)
			defer cancel()
			_ = srv.Close(ctx)
		})
	}
	return srv, err
}

// execSQL runs one statement on the test's database, as an attacker with database access would.
func execSQL(t testing.TB, dbURL, sql string, args ...any) int64 {
	t.Helper()
	ctx := context.Background()
	conn, err := pgx.Connect(ctx, dbURL)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(ctx)
	tag, err := conn.Exec(ctx, sql, args...)
	if err != nil {
		t.Fatalf("%s: %v", sql, err)
	}
	return tag.RowsAffected()
}

// attackWrongKeyRefused: a server (the real binary, or another replica through cli.Start) with
// a key other than the one the database's secrets are sealed with must refuse to start, exit 1,
// and say which key it read and what to do.
func attackWrongKeyRefused(t *testing.T) {
	dbURL := pgtest.NewDB(t)
	keyA, keyB := newKeyText(t), newKeyText(t)
	p := startServe(t, t.TempDir(), "AGENT_DECK_DATABASE_URL="+dbURL, "AGENT_DECK_SECRET_KEY="+keyA)
	if status, body := p.do(t, http.MethodPost, "/api/v1/credentials",
		`{"label":"Key A","value":"sk-canary-key-a"}`); status != http.StatusCreated {
		t.Fatalf("create credential: %d %s", status, body)
	}

	// A second replica with the wrong key, while the first runs.
	if _, err := startReplica(t, dbURL, keyB); err == nil {
		t.Error("a replica with another key started")
	} else {
		for _, want := range []string{"AGENT_DECK_SECRET_KEY", "does not match this database"} {
			if !strings.Contains(err.Error(), want) {
				t.Errorf("replica error %q lacks %q", err, want)
			}
		}
	}
	if _, err := startReplica(t, dbURL, keyA); err != nil {
		t.Errorf("a replica with the right key: %v", err)
	}
	p.stop(t)

	code, out := serveOnce(t, t.TempDir(), "AGENT_DECK_DATABASE_URL="+dbURL, "AGENT_DECK_SECRET_KEY="+keyB)
	if code != 1 {
		t.Errorf("serve with another key exited %d, want 1\n%s", code, out)
	}
	for _, want := range []string{"AGENT_DECK_SECRET_KEY", "does not match this database", "nothing was changed"} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
	if strings.Contains(out, keyA) || strings.Contains(out, keyB) {
		t.Errorf("output repeats a key:\n%s", out)
	}

	// The same from a key file: the message names the file.
	home := t.TempDir()
	keyFile := filepath.Join(home, "secret.key")
	if err := os.WriteFile(keyFile, []byte(keyB+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	code, out = serveOnce(t, home, "AGENT_DECK_DATABASE_URL="+dbURL)
	if code != 1 || !strings.Contains(out, keyFile) || !strings.Contains(out, "Restore the matching key") {
		t.Errorf("serve with a wrong key file exited %d; want 1 naming %s and saying to restore it\n%s", code, keyFile, out)
	}

	// A new home with no key at all: serve makes one, the database refuses it, and the home is
	// left without a key file, so the next start is not refused for a key nobody chose (issue
	// 27 item 16).
	fresh := t.TempDir()
	code, out = serveOnce(t, fresh, "AGENT_DECK_DATABASE_URL="+dbURL)
	if code != 1 || !strings.Contains(out, "does not match this database") {
		t.Errorf("serve with a new key on this database exited %d, want 1 refusing the key\n%s", code, out)
	}
	if left, _ := filepath.Glob(filepath.Join(fresh, "secret.key*")); len(left) != 0 {
		t.Errorf("the refused start left %v in the home", left)
	}

	// The right key still starts: a refusal changed nothing.
	startServe(t, t.TempDir(), "AGENT_DECK_DATABASE_URL="+dbURL, "AGENT_DECK_SECRET_KEY="+keyA).stop(t)
}

// attackMovedCiphertext: with write access to the database, copy one row's sealed secret into
// another row whose service the attacker controls, then call that service. The secret must not
// open there, so it never reaches the downstream; the call fails with a clear coded error.
func attackMovedCiphertext(t *testing.T) {
	s := startMCPStack(t, mcpStackOptions{})
	peer := startHTTPPeer(t)
	ctx := s.adminCtx()
	canaryHeader, canaryCred := "CANARY-MOVED-H-"+randHex(8), "CANARY-MOVED-C-"+randHex(8)
	mustDo := func(_ any, err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	mustDo(s.svc.CreateService(ctx, core.ServiceInput{Name: "victim", Type: backend.ServiceRemote,
		URL: "http://127.0.0.1:9/mcp", Headers: map[string]string{"X-Api-Key": canaryHeader}}))
	mustDo(s.svc.CreateCredential(ctx, core.CredentialInput{Label: "Victim key", Value: canaryCred}))
	mustDo(s.svc.CreateCredential(ctx, core.CredentialInput{Label: "Decoy key", Value: "decoy"}))
	mustDo(s.svc.CreateService(ctx, core.ServiceInput{Name: "thief-headers", Type: backend.ServiceRemote,
		URL: peer, Headers: map[string]string{"X-Api-Key": "decoy"}}))
	mustDo(s.svc.CreateService(ctx, core.ServiceInput{Name: "thief-cred", Type: backend.ServiceRemote,
		URL: peer, CredentialID: "cred_decoy_key"}))

	if n := execSQL(t, s.dbURL, `UPDATE services SET sealed_headers =
		(SELECT sealed_headers FROM services WHERE name = 'victim') WHERE name = 'thief-headers'`); n != 1 {
		t.Fatalf("moved %d rows", n)
	}
	if n := execSQL(t, s.dbURL, `UPDATE credentials SET sealed_secret =
		(SELECT sealed_secret FROM credentials WHERE id = 'cred_victim_key') WHERE id = 'cred_decoy_key'`); n != 1 {
		t.Fatalf("moved %d rows", n)
	}
	for _, tc := range []struct{ service, where string }{
		{"thief-headers", "/headers"},
		{"thief-cred", "credentials/cred_decoy_key/secret"},
	} {
		// The change feed drops cached rows within milliseconds; poll until the refusal shows.
		var status int
		var body []byte
		deadline := time.Now().Add(10 * time.Second)
		for {
			a := s.api().Do(t, s.AdminToken, http.MethodPost, "/api/v1/services/"+tc.service+"/call",
				map[string]any{"tool_name": "whoami", "arguments": map[string]any{
					"headers": []string{"X-Api-Key", "Authorization"}}})
			status, body = a.Status, a.Body
			if status != http.StatusOK || time.Now().After(deadline) {
				break
			}
			time.Sleep(50 * time.Millisecond)
		}
		// whoami reports the sha256 of what it received, which no scrubbing masks.
		for _, v := range []string{canaryHeader, canaryCred, "Bearer " + canaryCred} {
			sum := sha256.Sum256([]byte(v))
			if bytes.Contains(body, []byte(v)) || bytes.Contains(body, []byte(hex.EncodeToString(sum[:]))) {
				t.Fatalf("%s: the moved secret reached the downstream: %s", tc.service, body)
			}
		}
		p := resttest.Answer{Status: status, Body: body}.Problem()
		if status != http.StatusServiceUnavailable || p.Code != backend.CodeUnavailable ||
			!strings.Contains(p.Detail, "unreadable") || !strings.Contains(p.Detail, tc.where) {
			t.Errorf("%s: %d %s; want 503 UNAVAILABLE naming the unreadable value %s", tc.service, status, body, tc.where)
		}
	}
	if logs := s.logs.String(); strings.Contains(logs, canaryHeader) || strings.Contains(logs, canaryCred) ||
		strings.Contains(logs, "panic") {
		t.Errorf("logs hold a canary or a panic:\n%s", logs)
	}
}
