package tests

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/base64"
	"io"
	"log/slog"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/agent-deck/agent-deck/backend"
	"github.com/agent-deck/agent-deck/backend/core"
	"github.com/agent-deck/agent-deck/backend/postgres/pgtest"
	"github.com/agent-deck/agent-deck/cli"
	"github.com/agent-deck/agent-deck/tests/golden"
)

// cliEnv is a real deck server on a random port with its data home, and a way to run the CLI
// in process against it.
type cliEnv struct {
	t    testing.TB
	srv  *cli.Server
	home string
	svc  *core.Hub
	ctx  context.Context // admin
}

func startCLIEnv(t testing.TB) *cliEnv {
	t.Helper()
	key := make([]byte, 32)
	if _, err := rand.Read(key); err != nil {
		t.Fatal(err)
	}
	home := t.TempDir()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	srv, err := cli.Start(ctx, cli.ServeConfig{Home: home, Addr: "127.0.0.1:0", DatabaseURL: pgtest.NewDB(t),
		SecretKey: base64.StdEncoding.EncodeToString(key), Profile: "standard",
		Logger: slog.New(slog.DiscardHandler)})
	if err != nil {
		t.Fatalf("start server: %v", err)
	}
	t.Cleanup(func() {
		cctx, ccancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer ccancel()
		_ = srv.Close(cctx)
	})
	admin := backend.WithActor(context.Background(), backend.Actor{Scope: backend.ScopeAdmin, Kind: backend.ActorUser})
	return &cliEnv{t: t, srv: srv, home: home, svc: srv.Service(), ctx: admin}
}

// cliResult is one CLI run.
type cliResult struct {
	stdout, stderr string
	code           int
}

// run runs `agent-deck --home HOME args…` in process with stdin.
func (e *cliEnv) run(stdin string, args ...string) cliResult {
	e.t.Helper()
	return runCLI(e.home, strings.NewReader(stdin), args...)
}

func runCLI(home string, stdin io.Reader, args ...string) cliResult {
	var out, errb bytes.Buffer
	argv := append([]string{"agent-deck", "--home", home}, args...)
	code := cli.Run(context.Background(), argv, stdin, &out, &errb)
	return cliResult{stdout: out.String(), stderr: errb.String(), code: code}
}

// wantCode fails unless the run ended with code.
func (r cliResult) wantCode(t testing.TB, code int) cliResult {
	t.Helper()
	if r.code != code {
		t.Fatalf("exit code %d, want %d\nstdout:\n%s\nstderr:\n%s", r.code, code, r.stdout, r.stderr)
	}
	return r
}

var (
	cliUUIDRE  = regexp.MustCompile(`[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}`)
	cliStampRE = regexp.MustCompile(`\d{4}-\d{2}-\d{2}[ T]\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:\d{2})?`)
)

// normalize replaces ids and timestamps, which change every run, by stable placeholders (the
// same id gets the same placeholder) without changing column widths.
func cliNormalize(s string) string {
	seen := map[string]string{}
	s = cliUUIDRE.ReplaceAllStringFunc(s, func(u string) string {
		if p, ok := seen[u]; ok {
			return p
		}
		p := "00000000-0000-4000-8000-" + strings.Repeat("0", 12-len(cliItoa(len(seen)+1))) + cliItoa(len(seen)+1)
		seen[u] = p
		return p
	})
	return cliStampRE.ReplaceAllStringFunc(s, func(m string) string {
		if len(m) == len("2006-01-02 15:04") { // table format: keep the width
			return "YYYY-MM-DD hh:mm"
		}
		return "<time>"
	})
}

func cliItoa(n int) string {
	const digits = "0123456789"
	if n < 10 {
		return digits[n : n+1]
	}
	return cliItoa(n/10) + digits[n%10:n%10+1]
}

// golden compares got (normalized) with testdata/cli/NAME, or rewrites it under -update.
func cliGolden(t testing.TB, name, got string) {
	t.Helper()
	golden.Check(t, filepath.Join("testdata", "cli", name), []byte(cliNormalize(got)))
}

// seedCLI creates a small collection through the core: two credentials, two services, two
// playbooks (one depending on a credential and a service), one deck.
func (e *cliEnv) seed() {
	e.t.Helper()
	t, svc, ctx := e.t, e.svc, e.ctx
	check := func(err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	gh, err := svc.CreateCredential(ctx, core.CredentialInput{Label: "GitHub", Value: cliCanary})
	check(err)
	_, err = svc.CreateCredential(ctx, core.CredentialInput{Label: "Linear", Value: cliCanary + "-linear",
		Scheme: backend.SchemeHeader, HeaderName: "X-Api-Key"})
	check(err)
	remote, err := svc.CreateService(ctx, core.ServiceInput{Name: "github-mcp", Type: backend.ServiceRemote,
		URL: "https://api.example.test/mcp", CredentialID: gh.ID})
	check(err)
	_, err = svc.CreateService(ctx, core.ServiceInput{Name: "files", Type: backend.ServiceLocal,
		LocalCommand: "npx", LocalArgs: []string{"-y", "server-files"}})
	check(err)
	off := false
	pb, err := svc.CreatePlaybook(ctx, backend.PlaybookInput{Title: "Open a pull request", Body: "Use the deck.\n",
		Triggers: []string{"open a PR"}, AutoDetectDependencies: &off,
		DependsOnCredentialIDs: []string{gh.ID}, DependsOnServiceIDs: []string{remote.ID}})
	check(err)
	_, err = svc.CreatePlaybook(ctx, backend.PlaybookInput{Title: "Release notes", Body: "Write them.\n"})
	check(err)
	d, err := svc.CreateDeck(ctx, core.DeckInput{Name: "dev"})
	check(err)
	for _, l := range []core.CardRef{{Deck: d.ID, CardType: backend.CardService, CardID: remote.ID},
		{Deck: d.ID, CardType: backend.CardCredential, CardID: gh.ID},
		{Deck: d.ID, CardType: backend.CardPlaybook, CardID: pb.ID}} {
		_, err = svc.LinkCard(ctx, core.LinkCardInput{CardRef: l})
		check(err)
	}
}

// cliCanary is the seeded secret; no CLI output may contain it.
const cliCanary = "cli-canary-52b1e0d9"
