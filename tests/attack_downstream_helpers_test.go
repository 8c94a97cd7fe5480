package tests

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httputil"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/agent-deck/agent-deck/backend"
	"github.com/agent-deck/agent-deck/backend/core"
	"github.com/agent-deck/agent-deck/cli"
	"github.com/agent-deck/agent-deck/tests/resttest"
)

// startHostileStack starts a deck that logs at debug level, with tweak applied to its
// configuration (caps), for attacks by downstream servers.
func startHostileStack(t *testing.T, tweak func(*cli.ServeConfig)) *mcpStack {
	t.Helper()
	return startMCPStack(t, mcpStackOptions{Serve: func(c *cli.ServeConfig) {
		c.LogLevel = "debug"
		if tweak != nil {
			tweak(c)
		}
	}})
}

// addService creates a service card as admin and returns it.
func (s *mcpStack) addService(t *testing.T, in core.ServiceInput) backend.ServiceCard {
	t.Helper()
	card, err := s.svc.CreateService(s.adminCtx(), in)
	must(t, err)
	return card
}

// localPeer is a service input running the Go test peer over stdio.
func localPeer(t *testing.T, name string, env map[string]string) core.ServiceInput {
	t.Helper()
	return core.ServiceInput{Name: name, Type: backend.ServiceLocal, LocalCommand: mcpPeerBinary(t),
		LocalArgs: []string{"-transport", "stdio"}, LocalEnv: env}
}

// rest sends one REST request as admin and returns the status and body.
func (s *mcpStack) rest(t *testing.T, method, path string, body any) (int, []byte) {
	t.Helper()
	a := s.api().Do(t, s.AdminToken, method, path, body)
	return a.Status, a.Body
}

// restCallTool calls a downstream tool over REST as admin.
func (s *mcpStack) restCallTool(t *testing.T, service, tool string, args any) (int, []byte) {
	t.Helper()
	return s.rest(t, http.MethodPost, "/api/v1/services/"+service+"/call",
		map[string]any{"tool_name": tool, "arguments": args})
}

// errorCode decodes the code of a REST error body.
func errorCode(body []byte) backend.Code {
	code, _, _ := resttest.Answer{Body: body}.Err()
	return code
}

// serviceHealth reads a service's health over REST.
func (s *mcpStack) serviceHealth(t *testing.T, id string) backend.Health {
	t.Helper()
	status, body := s.rest(t, http.MethodGet, "/api/v1/services/"+id, nil)
	if status != http.StatusOK {
		t.Fatalf("GET service %s: %d %s", id, status, body)
	}
	var card backend.ServiceCard
	if err := json.Unmarshal(body, &card); err != nil {
		t.Fatalf("decoding service %s: %v", body, err)
	}
	return card.Health
}

// waitStderr polls a local service's health until its stderr tail holds want.
func (s *mcpStack) waitStderr(t *testing.T, id, want string) string {
	t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for {
		h := s.serviceHealth(t, id)
		if strings.Contains(h.Stderr, want) || time.Now().After(deadline) {
			return h.Stderr
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// spilledFiles returns the content of every spilled result file, by name.
func (s *mcpStack) spilledFiles(t *testing.T) map[string]string {
	t.Helper()
	dir := filepath.Join(s.home, "tool-results")
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil
	}
	out := map[string]string{}
	for _, e := range entries {
		b, err := os.ReadFile(filepath.Join(dir, e.Name()))
		if err == nil {
			out[e.Name()] = string(b)
		}
	}
	return out
}

// spillDirSize is the total size of the spilled result files.
func (s *mcpStack) spillDirSize(t *testing.T) int64 {
	t.Helper()
	var total int64
	for _, c := range s.spilledFiles(t) {
		total += int64(len(c))
	}
	return total
}

// processArgv is the command line of every process on the machine, one per line.
func processArgv(t *testing.T) string {
	t.Helper()
	paths, err := filepath.Glob("/proc/[0-9]*/cmdline")
	must(t, err)
	var b strings.Builder
	for _, p := range paths {
		if argv, err := os.ReadFile(p); err == nil {
			b.Write(bytes.ReplaceAll(argv, []byte{0}, []byte{' '}))
			b.WriteByte('\n')
		}
	}
	return b.String()
}

// databaseDump is every row of every table of the deck's database as text (bytea in hex).
func (s *mcpStack) databaseDump(t *testing.T) string {
	t.Helper()
	ctx := context.Background()
	conn, err := pgx.Connect(ctx, s.dbURL)
	must(t, err)
	defer conn.Close(ctx)
	rows, err := conn.Query(ctx, `SELECT quote_ident(table_schema) || '.' || quote_ident(table_name)
		FROM information_schema.tables WHERE table_type = 'BASE TABLE'
		AND table_schema NOT IN ('pg_catalog', 'information_schema')`)
	must(t, err)
	tables, err := pgx.CollectRows(rows, pgx.RowTo[string])
	must(t, err)
	if len(tables) == 0 {
		t.Fatal("the database has no tables to search")
	}
	var b strings.Builder
	for _, table := range tables {
		rows, err := conn.Query(ctx, "SELECT r::text FROM "+table+" r")
		must(t, err)
		texts, err := pgx.CollectRows(rows, pgx.RowTo[string])
		must(t, err)
		for _, r := range texts {
			b.WriteString(table + " " + r + "\n")
		}
	}
	return b.String()
}

// leakSearch reports where secret appears among named texts, in clear or hex-encoded (as a
// bytea column shows it).
func leakSearch(secret string, texts map[string]string) []string {
	hexed := ""
	for _, c := range []byte(secret) {
		const digits = "0123456789abcdef"
		hexed += string([]byte{digits[c>>4], digits[c&15]})
	}
	var where []string
	for name, text := range texts {
		if strings.Contains(text, secret) || strings.Contains(text, hexed) {
			where = append(where, name)
		}
	}
	return where
}

// idSwappingProxy forwards to the MCP server at target and, in the answer to any tools/call
// whose arguments contain marker, replaces every JSON-RPC id by one no request carries. It
// returns its own URL (same path).
func idSwappingProxy(t *testing.T, target, marker string) string {
	t.Helper()
	u, err := url.Parse(target)
	must(t, err)
	rp := httputil.NewSingleHostReverseProxy(&url.URL{Scheme: u.Scheme, Host: u.Host})
	ids := regexp.MustCompile(`"id":\s*("[^"]*"|[0-9]+)`)
	rp.ModifyResponse = func(resp *http.Response) error {
		if resp.Request.Header.Get("X-Swap-Id") == "" {
			return nil
		}
		body, err := io.ReadAll(resp.Body)
		if err != nil {
			return err
		}
		_ = resp.Body.Close()
		body = ids.ReplaceAll(body, []byte(`"id":"not-your-request"`))
		resp.Body = io.NopCloser(bytes.NewReader(body))
		resp.ContentLength = int64(len(body))
		resp.Header.Set("Content-Length", strconv.Itoa(len(body)))
		return nil
	}
	srv := &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		r.Body = io.NopCloser(bytes.NewReader(body))
		if bytes.Contains(body, []byte(`"tools/call"`)) && bytes.Contains(body, []byte(marker)) {
			r.Header.Set("X-Swap-Id", "1")
		}
		rp.ServeHTTP(w, r)
	})}
	ln := mcpListenRetry(t, "127.0.0.1:0")
	go func() { _ = srv.Serve(ln) }()
	t.Cleanup(func() { _ = srv.Close() })
	return "http://" + ln.Addr().String() + u.Path
}
