package tests

import (
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/agent-deck/agent-deck/backend"
	"github.com/agent-deck/agent-deck/backend/core"
	"github.com/agent-deck/agent-deck/backend/postgres/pgtest"
	"github.com/agent-deck/agent-deck/cli"
	"github.com/agent-deck/agent-deck/tests/oauthas"
	"github.com/agent-deck/agent-deck/tests/resttest"
)

var authURLRE = regexp.MustCompile(`https?://\S+/authorize\?\S+`)

// TestOAuthConnectEndToEnd: through the real server and CLI, a service that needs sign-in
// refuses calls with DOWNSTREAM_AUTH naming the connect command; `service connect --no-open`
// prints the URL and waits; the browser's consent comes back to /oauth/callback; calls then
// work; the state shows in REST and `service show`; disconnect revokes; no token appears in any
// response, output or log line.
func TestOAuthConnectEndToEnd(t *testing.T) {
	as := newOAuthService(t, oauthas.Options{Scope: "mcp:read"})
	logs := &syncBuffer{}
	home := t.TempDir()
	srv, err := cli.Start(context.Background(), cli.ServeConfig{Home: home, Addr: "127.0.0.1:0", DatabaseURL: pgtest.NewDB(t),
		Profile: "standard", Logger: slog.New(slog.NewJSONHandler(logs, &slog.HandlerOptions{Level: slog.LevelDebug}))})
	if err != nil {
		t.Fatalf("cli.Start: %v", err)
	}
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 15*time.Second)
		defer cancel()
		_ = srv.Close(ctx)
	})
	var seen []string // every response and output, scanned for tokens at the end
	api := resttest.New(srv.URL(), srv.AdminToken())
	rest := func(method, path string) resttest.Answer {
		a := api.Do(t, srv.AdminToken(), method, path, map[string]any{})
		seen = append(seen, string(a.Body))
		return a
	}
	run := func(args ...string) cliResult {
		r := runCLI(home, strings.NewReader(""), args...)
		seen = append(seen, r.stdout, r.stderr)
		return r
	}
	run("service", "add", "notes", as.MCPURL()).wantCode(t, 0)

	callBody := map[string]any{"tool_name": "echo", "arguments": map[string]any{"text": "hi"}}
	a := api.Do(t, srv.AdminToken(), http.MethodPost, "/api/v1/services/notes/call", callBody)
	if !strings.Contains(string(a.Body), "DOWNSTREAM_AUTH") || !strings.Contains(string(a.Body), "agent-deck service connect notes") {
		t.Fatalf("call before sign-in answered %d %s, want DOWNSTREAM_AUTH naming the connect command", a.Status, a.Body)
	}

	// connect waits; the "browser" opens the printed URL and follows the redirects.
	stderr := &syncBuffer{}
	var stdout strings.Builder
	done := make(chan int, 1)
	go func() {
		argv := []string{"agent-deck", "--home", home, "service", "connect", "notes", "--no-open", "--wait", "1m"}
		done <- cli.Run(context.Background(), argv, strings.NewReader(""), &stdout, stderr)
	}()
	var authURL string
	deadline := time.Now().Add(30 * time.Second)
	for authURL == "" && time.Now().Before(deadline) {
		authURL = authURLRE.FindString(stderr.String())
		if authURL == "" {
			time.Sleep(20 * time.Millisecond)
		}
	}
	if authURL == "" {
		t.Fatalf("connect printed no authorization URL:\n%s", stderr.String())
	}
	resp, err := http.Get(authURL)
	if err != nil {
		t.Fatalf("browser: %v", err)
	}
	body, _ := io.ReadAll(resp.Body)
	_ = resp.Body.Close()
	page := string(body)
	if resp.StatusCode != http.StatusOK || !strings.Contains(page, "signed in to notes") {
		t.Fatalf("callback page %d: %s", resp.StatusCode, page)
	}
	if code := <-done; code != 0 || !strings.Contains(stdout.String(), "Connected to notes") {
		t.Fatalf("connect exited %d\nstdout: %s\nstderr: %s", code, stdout.String(), stderr.String())
	}
	seen = append(seen, stdout.String(), stderr.String(), page)

	a = api.Do(t, srv.AdminToken(), http.MethodPost, "/api/v1/services/notes/call", callBody)
	seen = append(seen, string(a.Body))
	if a.Status != http.StatusOK || !strings.Contains(string(a.Body), "echo: hi") {
		t.Fatalf("call after sign-in answered %d %s", a.Status, a.Body)
	}
	var st core.OAuthStatus
	if err := json.Unmarshal(rest(http.MethodGet, "/api/v1/services/notes/auth").Body, &st); err != nil {
		t.Fatal(err)
	}
	if st.State != backend.OAuthStateConnected || st.ExpiresAt == nil {
		t.Errorf("auth state %+v, want connected with an expiry", st)
	}
	if out := run("service", "show", "notes").wantCode(t, 0).stdout; !strings.Contains(out, "sign-in") || !strings.Contains(out, "connected") {
		t.Errorf("service show lacks the sign-in state:\n%s", out)
	}

	run("service", "disconnect", "notes", "--yes").wantCode(t, 0)
	if as.Counts().Revocations == 0 {
		t.Errorf("disconnect revoked nothing")
	}
	a = api.Do(t, srv.AdminToken(), http.MethodPost, "/api/v1/services/notes/call", callBody)
	seen = append(seen, string(a.Body))
	if !strings.Contains(string(a.Body), "DOWNSTREAM_AUTH") {
		t.Errorf("call after disconnect answered %d %s, want DOWNSTREAM_AUTH", a.Status, a.Body)
	}

	seen = append(seen, logs.String())
	for _, tok := range as.Issued() {
		for _, s := range seen {
			if strings.Contains(s, tok) {
				t.Fatalf("a token issued to Agent Deck appears in a response, output or log:\n%s", s)
			}
		}
	}
}
