package cli

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/base64"
	"encoding/json"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/agent-deck/agent-deck/backend"
	"github.com/agent-deck/agent-deck/backend/core"
	"github.com/agent-deck/agent-deck/backend/postgres/pgtest"
	"github.com/agent-deck/agent-deck/tests/golden"
	"github.com/agent-deck/agent-deck/tests/peertest"
)

// TestMain gives the command tests a real PostgreSQL: one cluster for the package, a database
// per server the tests start. The tests name the home, server and token they mean; a developer's
// own settings must not reach them.
func TestMain(m *testing.M) {
	for _, env := range []string{"AGENT_DECK_HOME", backend.EnvServer, backend.EnvToken} {
		os.Unsetenv(env)
	}
	pgtest.Main(m)
}

// cmdEnv is a deck server started in process on a random port, with its data home, and the
// strings of this run (its URL, its directories) that goldens show as placeholders.
type cmdEnv struct {
	t     testing.TB
	srv   *Server
	home  string
	hub   *core.Hub
	admin context.Context
	// names are volatile strings and the placeholders goldens hold instead, in order; cells are
	// table cells (whole) that goldens show as placeholders, for values too short to replace
	// anywhere else.
	names [][2]string
	cells map[string]string
	// secrets are values no command may print: credential secrets, a token's secret.
	secrets []string
}

// startCmdEnv starts a server on a fresh database and data home; it stops when the test ends.
func startCmdEnv(t testing.TB) *cmdEnv {
	t.Helper()
	key := make([]byte, 32)
	if _, err := rand.Read(key); err != nil {
		t.Fatal(err)
	}
	home := t.TempDir()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	srv, err := Start(ctx, ServeConfig{Home: home, Addr: "127.0.0.1:0", DatabaseURL: pgtest.NewDB(t),
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
	e := &cmdEnv{t: t, srv: srv, home: home, hub: srv.Service(), cells: map[string]string{},
		admin: backend.WithActor(context.Background(), backend.Actor{Scope: backend.ScopeAdmin, Kind: backend.ActorUser})}
	e.name(srv.URL(), "<server>")
	e.name(home, "<home>")
	return e
}

// name makes goldens show placeholder wherever s appears.
func (e *cmdEnv) name(s, placeholder string) {
	e.names = append(e.names, [2]string{s, placeholder})
}

// cmdResult is one run of the command line.
type cmdResult struct {
	stdout, stderr string
	code           int
}

// runCmd runs `agent-deck --home HOME args…` in process, as main does, with stdin.
func runCmd(home string, stdin io.Reader, args ...string) cmdResult {
	var out, errb bytes.Buffer
	argv := append([]string{"agent-deck", "--home", home}, args...)
	code := Run(context.Background(), argv, stdin, &out, &errb)
	return cmdResult{stdout: out.String(), stderr: errb.String(), code: code}
}

func (e *cmdEnv) run(stdin string, args ...string) cmdResult {
	e.t.Helper()
	return runCmd(e.home, strings.NewReader(stdin), args...)
}

// cmdCase is one command line and the exit code it must end with; its output is the golden
// file testdata/cmd/GROUP/NAME.golden.
type cmdCase struct {
	name  string
	stdin string
	args  []string
	code  int
	// verify, when set, checks the output instead of a golden file (for output that another
	// package decides, such as a test server's whole tool list).
	verify func(t *testing.T, r cmdResult)
}

// cmdCanary is the secret every seeded credential holds; no command may print it.
const cmdCanary = "cmd-canary-7d41c2a9"

// runCases runs each case in order (later cases see what earlier ones changed) and compares
// its exit code, stdout and stderr, normalized, with its golden file.
func (e *cmdEnv) runCases(t *testing.T, group string, cases []cmdCase) {
	t.Helper()
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			r := e.run(tc.stdin, tc.args...)
			e.check(t, group, tc, r)
		})
	}
}

// check holds one case's result to its exit code, its golden file and the rules every command
// keeps: --json prints one JSON value when it succeeds, and no output holds a secret.
func (e *cmdEnv) check(t *testing.T, group string, tc cmdCase, r cmdResult) {
	t.Helper()
	if r.code != tc.code {
		t.Errorf("exit code %d, want %d\nstdout:\n%s\nstderr:\n%s", r.code, tc.code, r.stdout, r.stderr)
	}
	for _, secret := range append([]string{cmdCanary}, e.secrets...) {
		if strings.Contains(r.stdout+r.stderr, secret) {
			t.Errorf("the output holds the secret %q:\n%s%s", secret, r.stdout, r.stderr)
		}
	}
	if r.code == 0 && jsonAsked(tc.args) && !json.Valid([]byte(r.stdout)) {
		t.Errorf("--json printed no JSON:\n%s", r.stdout)
	}
	if tc.verify != nil {
		tc.verify(t, r)
		return
	}
	golden.Check(t, filepath.Join("testdata", "cmd", group, tc.name+".golden"), []byte(e.transcript(tc, r)))
}

// jsonAsked reports whether the command line asks for --json (before any -- that ends flags).
func jsonAsked(args []string) bool {
	for _, a := range args {
		if a == "--" {
			return false
		}
		if a == "--json" {
			return true
		}
	}
	return false
}

// transcript is what a golden file holds: the command line, the exit code, stdout and stderr.
func (e *cmdEnv) transcript(tc cmdCase, r cmdResult) string {
	var b strings.Builder
	b.WriteString("$ agent-deck " + strings.Join(quoteArgs(tc.args), " ") + "\n")
	if stdin := []rune(e.replaceNames(tc.stdin)); len(stdin) > 60 {
		b.WriteString("# stdin: " + strconv.Quote(string(stdin[:60])) + "…\n")
	} else if len(stdin) > 0 {
		b.WriteString("# stdin: " + strconv.Quote(string(stdin)) + "\n")
	}
	b.WriteString("# exit " + strconv.Itoa(r.code) + "\n")
	for _, out := range [][2]string{{"stdout", r.stdout}, {"stderr", r.stderr}} {
		b.WriteString("-- " + out[0] + " --\n" + out[1])
		if out[1] != "" && !strings.HasSuffix(out[1], "\n") {
			b.WriteString("\n# no newline at the end of " + out[0] + "\n")
		}
	}
	return e.normalize(b.String())
}

func quoteArgs(args []string) []string {
	out := make([]string, len(args))
	for i, a := range args {
		out[i] = a
		if a == "" || strings.ContainsAny(a, " \t\"'$;&|<>*?()\\") {
			out[i] = strconv.Quote(a)
		}
	}
	return out
}

var (
	gUUIDRE     = regexp.MustCompile(`[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}`)
	gStampRE    = regexp.MustCompile(`\d{4}-\d{2}-\d{2}[ T]\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:\d{2})?`)
	gTokenRE    = regexp.MustCompile(backend.TokenPrefix + `[A-Za-z0-9_-]+`)
	gDurationRE = regexp.MustCompile(`\b\d+\.\dms\b`)
	gGoRE       = regexp.MustCompile(`go1\.\d+(\.\d+)?(rc\d+)?`)
	gPIDRE      = regexp.MustCompile(`pid=\d+`)
	gMillisRE   = regexp.MustCompile(`"duration_ms": [0-9.]+`)
)

// normalize replaces what changes from run to run by placeholders: ids (the same id, the same
// placeholder), times, durations, token secrets, the Go version and the names registered with
// e.name. A table laid out the way printTable lays tables out is laid out again after the
// replacement, so a placeholder of another width than what it replaced keeps the columns
// aligned; any other layout is left as it is, for the golden to show.
func (e *cmdEnv) normalize(s string) string {
	ids := map[string]string{}
	replace := func(text string) string {
		text = gUUIDRE.ReplaceAllStringFunc(text, func(u string) string {
			if p, ok := ids[u]; ok {
				return p
			}
			p := "<id" + strconv.Itoa(len(ids)+1) + ">"
			ids[u] = p
			return p
		})
		text = e.replaceNames(text)
		text = gStampRE.ReplaceAllString(text, "<time>")
		text = gTokenRE.ReplaceAllString(text, backend.TokenPrefix+"<secret>")
		text = gDurationRE.ReplaceAllString(text, "<ms>")
		text = gPIDRE.ReplaceAllString(text, "pid=<pid>")
		text = gMillisRE.ReplaceAllString(text, `"duration_ms": <ms>`)
		return gGoRE.ReplaceAllString(text, "<go>")
	}
	lines := strings.SplitAfter(s, "\n")
	var out strings.Builder
	for i := 0; i < len(lines); {
		if cols := tableColumns(lines[i]); cols != nil {
			end := i + 1
			for end < len(lines) && isTableRow(lines[end], cols) {
				end++
			}
			block := lines[i:end]
			if relayTable(block, cols, func(cell string) string { return cell }) != strings.Join(block, "") {
				// Not laid out as printTable lays tables out: keep it as it is, so the
				// golden shows the difference.
				for _, line := range block {
					out.WriteString(replace(line))
				}
				i = end
				continue
			}
			out.WriteString(relayTable(block, cols, func(cell string) string {
				if p, ok := e.cells[cell]; ok {
					return p
				}
				return replace(cell)
			}))
			i = end
			continue
		}
		out.WriteString(replace(lines[i]))
		i++
	}
	return out.String()
}

// replaceNames replaces the strings registered with e.name.
func (e *cmdEnv) replaceNames(text string) string {
	for _, n := range e.names {
		text = strings.ReplaceAll(text, n[0], n[1])
	}
	return text
}

var gHeaderRE = regexp.MustCompile(`^[A-Z][A-Z#-]*( [A-Z#-]+)*(  +[A-Z#][A-Z#-]*( [A-Z#-]+)*)+\n?$`)

// tableColumns returns the rune offsets at which the columns of a table header start, or nil
// when line is not the header of a table printTable wrote (upper-case names, two spaces apart).
func tableColumns(line string) []int {
	if !gHeaderRE.MatchString(line) {
		return nil
	}
	r := []rune(strings.TrimRight(line, "\n"))
	cols := []int{0}
	for i := 2; i < len(r); i++ {
		if r[i] != ' ' && r[i-1] == ' ' && r[i-2] == ' ' {
			cols = append(cols, i)
		}
	}
	return cols
}

// isTableRow reports whether line continues a table with these columns: it reaches the last
// column, and a space ends each column before it.
func isTableRow(line string, cols []int) bool {
	r := []rune(strings.TrimRight(line, "\n"))
	if len(r) <= cols[len(cols)-1] {
		return false
	}
	for _, c := range cols[1:] {
		if r[c-1] != ' ' {
			return false
		}
	}
	return true
}

// relayTable cuts the lines of a table into cells, replaces in each cell, and lays the table out
// again the way printTable does: each column as wide as its widest cell plus two spaces, no
// trailing spaces.
func relayTable(lines []string, cols []int, replace func(string) string) string {
	cells := make([][]string, len(lines))
	widths := make([]int, len(cols))
	for i, line := range lines {
		r := []rune(strings.TrimRight(line, "\n"))
		for j, c := range cols {
			end := len(r)
			if j+1 < len(cols) {
				end = min(cols[j+1], len(r))
			}
			cell := ""
			if c < len(r) {
				cell = replace(strings.TrimRight(string(r[c:end]), " "))
			}
			cells[i] = append(cells[i], cell)
			widths[j] = max(widths[j], len([]rune(cell)))
		}
	}
	var out strings.Builder
	for _, row := range cells {
		var line strings.Builder
		for j, cell := range row {
			line.WriteString(cell)
			if j+1 < len(row) {
				line.WriteString(strings.Repeat(" ", widths[j]-len([]rune(cell))+2))
			}
		}
		out.WriteString(strings.TrimRight(line.String(), " ") + "\n")
	}
	return out.String()
}

// cmdWorld is what seed created, for cases that name it.
type cmdWorld struct {
	deck         backend.Deck
	github, peer backend.ServiceCard
	pullRequest  backend.Playbook
	releaseNotes backend.Playbook
	githubCred   backend.Credential
	linearCred   backend.Credential
	agent        context.Context
	agentTokenID string
}

// seed creates a small collection through the core: two credentials; a remote service nobody
// answers and a local one (the test MCP server in tests/peer); two playbooks, one depending on a
// credential and a service; the deck "dev" linking the services, a credential and a playbook;
// and an agent token.
func (e *cmdEnv) seed() cmdWorld {
	t, hub, ctx := e.t, e.hub, e.admin
	t.Helper()
	check := func(err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	var w cmdWorld
	var err error
	w.githubCred, err = hub.CreateCredential(ctx, core.CredentialInput{Label: "GitHub", Value: cmdCanary})
	check(err)
	w.linearCred, err = hub.CreateCredential(ctx, core.CredentialInput{Label: "Linear", Value: cmdCanary + "-linear",
		Scheme: backend.SchemeHeader, HeaderName: "X-Api-Key"})
	check(err)
	w.github, err = hub.CreateService(ctx, core.ServiceInput{Name: "github-mcp", Type: backend.ServiceRemote,
		URL: "https://api.example.test/mcp", CredentialID: w.githubCred.ID})
	check(err)
	// The peer's path changes with the machine; the command line goldens show does not.
	w.peer, err = hub.CreateService(ctx, core.ServiceInput{Name: "peer", Type: backend.ServiceLocal,
		LocalCommand: "sh", LocalArgs: []string{"-c", `exec "$PEER" -transport stdio`},
		LocalEnv: map[string]string{"PEER": peertest.Build(t)}, Description: "the test MCP server"})
	check(err)
	off := false
	pb, err := hub.CreatePlaybook(ctx, backend.PlaybookInput{Title: "Open a pull request",
		Body: "Use the deck.\n\n## Checks\n\n- lint\n", Triggers: []string{"open a PR"}, AutoDetectDependencies: &off,
		DependsOnCredentialIDs: []string{w.githubCred.ID}, DependsOnServiceIDs: []string{w.github.ID}})
	check(err)
	w.pullRequest = pb.Playbook
	rn, err := hub.CreatePlaybook(ctx, backend.PlaybookInput{Title: "Release notes", Body: "Write them.\n"})
	check(err)
	w.releaseNotes = rn.Playbook
	w.deck, err = hub.CreateDeck(ctx, core.DeckInput{Name: "dev"})
	check(err)
	for _, l := range []core.CardRef{{Deck: w.deck.ID, CardType: backend.CardService, CardID: w.github.ID},
		{Deck: w.deck.ID, CardType: backend.CardService, CardID: w.peer.ID},
		{Deck: w.deck.ID, CardType: backend.CardCredential, CardID: w.githubCred.ID},
		{Deck: w.deck.ID, CardType: backend.CardPlaybook, CardID: pb.Playbook.ID}} {
		_, err = hub.LinkCard(ctx, core.LinkCardInput{CardRef: l})
		check(err)
	}
	tok, err := hub.CreateToken(ctx, core.TokenInput{Name: "agent", Scope: backend.ScopeAgent})
	check(err)
	w.agentTokenID = tok.ID
	e.secrets = append(e.secrets, tok.Secret)
	w.agent = backend.WithActor(context.Background(), backend.Actor{TokenID: tok.ID, Scope: backend.ScopeAgent,
		Kind: backend.ActorAgent})
	return w
}

// session opens an agent session bound to the deck; goldens show its badge as <badge>.
func (e *cmdEnv) session(w cmdWorld, client string) backend.MCPSession {
	e.t.Helper()
	sess, err := e.hub.OpenSession(w.agent, core.OpenSessionInput{Profile: "standard", Deck: w.deck.ID,
		ClientName: client})
	if err != nil {
		e.t.Fatal(err)
	}
	e.cells[sess.Badge] = "<badge>"
	return sess
}

// TestGoldenNormalize holds the golden helper to what goldens rely on: a table printTable wrote
// comes out as it went in when nothing in it changes from run to run, and lined up again when a
// placeholder is narrower or wider than what it replaced; a table laid out otherwise, and prose,
// keep their spacing.
func TestGoldenNormalize(t *testing.T) {
	e := &cmdEnv{t: t, cells: map[string]string{"gecko": "<badge>"}}
	e.name("/tmp/TestX123/001", "<ws>")
	var stable strings.Builder
	if err := printTable(&stable, []string{"NAME", "LAST USED", "SCOPE"},
		[][]string{{"admin (created by serve)", "-", "admin"}, {"ci", "-", "agent:read"}}); err != nil {
		t.Fatal(err)
	}
	if got := e.normalize(stable.String()); got != stable.String() {
		t.Errorf("a stable table changed:\n%s\nwant:\n%s", got, stable.String())
	}
	var volatile strings.Builder
	if err := printTable(&volatile, []string{"BADGE", "ID", "WORKSPACE"}, [][]string{
		{"gecko", "5b1e0a9c-3f4d-4e2a-9c61-0d2b7e8f9a10", "/tmp/TestX123/001"},
		{"-", "5b1e0a9c-3f4d-4e2a-9c61-0d2b7e8f9a10", "-"}}); err != nil {
		t.Fatal(err)
	}
	want := "BADGE    ID     WORKSPACE\n<badge>  <id1>  <ws>\n-        <id1>  -\n"
	if got := e.normalize(volatile.String() + "\n"); got != want+"\n" {
		t.Errorf("normalize:\n%s\nwant:\n%s", got, want)
	}
	skewed := "ID     NAME\n5b1e0a9c-3f4d-4e2a-9c61-0d2b7e8f9a10   dev\n"
	if got, want := e.normalize(skewed), "ID     NAME\n<id1>   dev\n"; got != want {
		t.Errorf("a table printTable did not lay out was laid out again: %q, want %q", got, want)
	}
	prose := "id:    5b1e0a9c-3f4d-4e2a-9c61-0d2b7e8f9a10\nname:  dev\n"
	if got, want := e.normalize(prose), "id:    <id1>\nname:  dev\n"; got != want {
		t.Errorf("normalize(%q) = %q, want %q", prose, got, want)
	}
}
