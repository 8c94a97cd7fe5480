package tests

import (
	"context"
	"crypto/rand"
	"encoding/base64"
	"encoding/json"
	"log/slog"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/client/transport"
	"github.com/mark3labs/mcp-go/mcp"

	"github.com/agent-deck/agent-deck/backend"
	"github.com/agent-deck/agent-deck/backend/core"
	"github.com/agent-deck/agent-deck/backend/postgres"
	"github.com/agent-deck/agent-deck/backend/postgres/pgtest"
	"github.com/agent-deck/agent-deck/cli"
	"github.com/agent-deck/agent-deck/tests/peertest"
	"github.com/agent-deck/agent-deck/tests/resttest"
)

// mcpStackOptions configure one deck for MCP tests.
type mcpStackOptions struct {
	Profile string
	Config  core.Config
	// Serve, when set, adjusts the server's configuration (caps, log level) before it starts.
	Serve func(*cli.ServeConfig)
}

// mcpStack is the real deck started by the composition root (cli.Start): Postgres, proxy,
// core, REST API and the MCP endpoint on one port. restart stops it and starts it again on the
// same database, key, home and address.
type mcpStack struct {
	t     testing.TB
	opts  mcpStackOptions
	dbURL string
	key   string
	home  string
	addr  string
	logs  *syncBuffer

	srv *cli.Server
	svc *core.Hub
	// store is a second connection pool on the same database, for tests that read rows as
	// stored (sealed secrets, raw columns).
	store *postgres.Store

	URL        string
	AdminToken string
}

func startMCPStack(t testing.TB, opts mcpStackOptions) *mcpStack {
	t.Helper()
	key := make([]byte, 32)
	if _, err := rand.Read(key); err != nil {
		t.Fatal(err)
	}
	if opts.Profile == "" {
		opts.Profile = "standard"
	}
	s := &mcpStack{t: t, opts: opts, dbURL: pgtest.NewDB(t), key: base64.StdEncoding.EncodeToString(key),
		home: t.TempDir(), addr: "127.0.0.1:0", logs: &syncBuffer{}}
	s.start()
	t.Cleanup(s.stop)
	return s
}

// startMCPReplica starts a second deck server on base's database and secret key: another
// replica behind the same load balancer.
func startMCPReplica(t testing.TB, base *mcpStack) *mcpStack {
	t.Helper()
	s := &mcpStack{t: t, opts: base.opts, dbURL: base.dbURL, key: base.key, home: t.TempDir(),
		addr: "127.0.0.1:0", logs: &syncBuffer{}}
	s.start()
	t.Cleanup(s.stop)
	return s
}

func (s *mcpStack) start() {
	t := s.t
	t.Helper()
	var err error
	for i := 0; i < 50; i++ { // a restart may wait for the previous server to release the port
		cfg := cli.ServeConfig{
			Home: s.home, Addr: s.addr, DatabaseURL: s.dbURL, SecretKey: s.key, Profile: s.opts.Profile,
			DefaultDeck: s.opts.Config.DefaultDeck, DefaultWorkspace: s.opts.Config.DefaultWorkspace,
			SessionIdleTimeout: s.opts.Config.SessionIdleTimeout, LogLevel: "info",
		}
		if s.opts.Serve != nil {
			s.opts.Serve(&cfg)
		}
		var level slog.Level
		_ = level.UnmarshalText([]byte(cfg.LogLevel))
		cfg.Logger = slog.New(slog.NewTextHandler(s.logs, &slog.HandlerOptions{Level: level}))
		s.srv, err = cli.Start(context.Background(), cfg)
		if err == nil || !strings.Contains(err.Error(), "address already in use") {
			break
		}
		time.Sleep(100 * time.Millisecond)
	}
	if err != nil {
		t.Fatalf("cli.Start: %v", err)
	}
	s.svc = s.srv.Service()
	if s.store, err = postgres.Open(context.Background(), s.dbURL); err != nil {
		t.Fatal(err)
	}
	s.URL = s.srv.URL()
	s.addr = strings.TrimPrefix(s.URL, "http://")
	s.AdminToken = s.srv.AdminToken()
}

func (s *mcpStack) stop() {
	if s.srv == nil {
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	if err := s.srv.Close(ctx); err != nil {
		s.t.Logf("stopping the deck: %v", err)
	}
	s.store.Close()
	s.srv = nil
}

// restart stops the deck and starts a new one on the same database and address.
func (s *mcpStack) restart() {
	s.t.Helper()
	s.stop()
	s.start()
}

// mcpListenRetry listens on addr, retrying briefly while a previous server releases it.
func mcpListenRetry(t testing.TB, addr string) net.Listener {
	t.Helper()
	var err error
	for i := 0; i < 50; i++ {
		var ln net.Listener
		if ln, err = net.Listen("tcp", addr); err == nil {
			return ln
		}
		time.Sleep(100 * time.Millisecond)
	}
	t.Fatalf("listen %s: %v", addr, err)
	return nil
}

// api is a REST client of the stack whose Must sends the admin token.
func (s *mcpStack) api() *resttest.Client { return resttest.New(s.URL, s.AdminToken) }

func (s *mcpStack) adminCtx() context.Context {
	return backend.WithActor(context.Background(), backend.SystemActor)
}

// token creates an API token with the given scope and returns its secret.
func (s *mcpStack) token(scope backend.Scope) string {
	s.t.Helper()
	tok, err := s.svc.CreateToken(s.adminCtx(), core.TokenInput{Name: "t-" + string(scope) + "-" + randHex(4), Scope: scope})
	if err != nil {
		s.t.Fatal(err)
	}
	return tok.Secret
}

func randHex(n int) string {
	b := make([]byte, n)
	_, _ = rand.Read(b)
	const hexdigits = "0123456789abcdef"
	out := make([]byte, 2*n)
	for i, c := range b {
		out[2*i], out[2*i+1] = hexdigits[c>>4], hexdigits[c&15]
	}
	return string(out)
}

// mcpConn is one MCP client session against the stack.
type mcpConn struct {
	t  testing.TB
	c  *client.Client
	tr *transport.StreamableHTTP
}

// connect opens an MCP session with the token and extra headers; path may carry a query.
func (s *mcpStack) connect(t testing.TB, token string, headers map[string]string, query string) *mcpConn {
	t.Helper()
	h := map[string]string{"Authorization": "Bearer " + token}
	for k, v := range headers {
		h[k] = v
	}
	return dialMCP(t, s.URL+"/mcp"+query, h, "")
}

// dialMCP connects to url, resuming sessionID when it is not empty.
func dialMCP(t testing.TB, url string, headers map[string]string, sessionID string) *mcpConn {
	t.Helper()
	opts := []transport.StreamableHTTPCOption{transport.WithHTTPHeaders(headers)}
	if sessionID != "" {
		opts = append(opts, transport.WithSession(sessionID))
	}
	tr, err := transport.NewStreamableHTTP(url, opts...)
	if err != nil {
		t.Fatal(err)
	}
	var copts []client.ClientOption
	if sessionID != "" {
		copts = append(copts, client.WithSession())
	}
	c := client.NewClient(tr, copts...)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if err := c.Start(ctx); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = c.Close() })
	conn := &mcpConn{t: t, c: c, tr: tr}
	if sessionID != "" {
		return conn
	}
	req := mcp.InitializeRequest{}
	req.Params.ClientInfo = mcp.Implementation{Name: "agent-deck-tests", Version: "1"}
	if _, err := c.Initialize(ctx, req); err != nil {
		t.Fatalf("initialize: %v", err)
	}
	return conn
}

func (m *mcpConn) sessionID() string { return m.tr.GetSessionId() }

// call invokes a tool and returns its result; transport failures fail the test.
func (m *mcpConn) call(name string, args any) *mcp.CallToolResult {
	m.t.Helper()
	res, err := m.callErr(name, args)
	if err != nil {
		m.t.Fatalf("%s: %v", name, err)
	}
	return res
}

func (m *mcpConn) callErr(name string, args any) (*mcp.CallToolResult, error) {
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	req := mcp.CallToolRequest{}
	req.Params.Name = name
	req.Params.Arguments = args
	return m.c.CallTool(ctx, req)
}

// ok calls a tool that must succeed and decodes its JSON text into out (when not nil).
func (m *mcpConn) ok(name string, args any, out any) {
	m.t.Helper()
	res := m.call(name, args)
	if res.IsError {
		m.t.Fatalf("%s(%v) failed: %s", name, args, mcpText(res))
	}
	if out != nil {
		if err := json.Unmarshal([]byte(mcpText(res)), out); err != nil {
			m.t.Fatalf("%s: decoding %q: %v", name, mcpText(res), err)
		}
	}
}

// mcpToolError is the body of a failed tool call.
type mcpToolError struct {
	Code    string `json:"code"`
	Message string `json:"message"`
	Hint    string `json:"hint"`
}

// fails calls a tool that must fail and returns its coded error.
func (m *mcpConn) fails(name string, args any) mcpToolError {
	m.t.Helper()
	res := m.call(name, args)
	if !res.IsError {
		m.t.Fatalf("%s(%v) succeeded, want an error: %s", name, args, mcpText(res))
	}
	var body struct {
		Error mcpToolError `json:"error"`
	}
	if err := json.Unmarshal([]byte(mcpText(res)), &body); err != nil || body.Error.Code == "" {
		m.t.Fatalf("%s: error body %q is not a coded error: %v", name, mcpText(res), err)
	}
	return body.Error
}

// toolNames lists the tools the session sees.
func (m *mcpConn) toolNames() []string {
	m.t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	res, err := m.c.ListTools(ctx, mcp.ListToolsRequest{})
	if err != nil {
		m.t.Fatal(err)
	}
	names := make([]string, len(res.Tools))
	for i, tl := range res.Tools {
		names[i] = tl.Name
	}
	return names
}

func mcpText(res *mcp.CallToolResult) string {
	var b strings.Builder
	for _, c := range res.Content {
		if tc, ok := c.(mcp.TextContent); ok {
			b.WriteString(tc.Text)
		}
	}
	return b.String()
}

// mcpPeerBinary is the Go test peer, built once (and cached by source hash) by peertest.
func mcpPeerBinary(t testing.TB) string {
	t.Helper()
	return peertest.Build(t)
}

// startHTTPPeer runs the Go test peer over Streamable HTTP and returns its MCP URL; env adds
// variables such as PEER_REQUIRE_AUTHORIZATION.
func startHTTPPeer(t testing.TB, env ...string) string {
	t.Helper()
	return startPeerProcess(t, []string{"-transport", "http"}, env...)
}

// startPeerProcess runs the test peer with args on a free loopback port and returns its URL.
func startPeerProcess(t testing.TB, args []string, env ...string) string {
	t.Helper()
	url, _ := startPeerProcessPID(t, args, env...)
	return url
}

// startPeerProcessPID is startPeerProcess that also returns the process id, for benchmarks that
// read its CPU time.
func startPeerProcessPID(t testing.TB, args []string, env ...string) (string, int) {
	t.Helper()
	urlFile := filepath.Join(t.TempDir(), "url")
	cmd := exec.Command(mcpPeerBinary(t), append(args, "-addr", "127.0.0.1:0", "-url-file", urlFile)...)
	cmd.Env = append(os.Environ(), env...)
	cmd.Stderr = &syncBuffer{}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_ = cmd.Process.Kill()
		_ = cmd.Wait()
	})
	deadline := time.Now().Add(20 * time.Second)
	for time.Now().Before(deadline) {
		if b, err := os.ReadFile(urlFile); err == nil && strings.TrimSpace(string(b)) != "" {
			return strings.TrimSpace(string(b)), cmd.Process.Pid
		}
		time.Sleep(20 * time.Millisecond)
	}
	t.Fatal("the test peer did not start")
	return "", 0
}

// mcpFixture is a deck with a peer service, a credential and a playbook on it.
type mcpFixture struct {
	Deck      backend.Deck
	Service   backend.ServiceCard
	Cred      backend.Credential
	Playbook  core.PlaybookResult
	OtherDeck backend.Deck
}

// seedDeck creates deck name with one peer service, one credential and one playbook.
func (s *mcpStack) seedDeck(t testing.TB, name, peerURL string) mcpFixture {
	t.Helper()
	ctx := s.adminCtx()
	var f mcpFixture
	var err error
	must := func(err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	f.Deck, err = s.svc.CreateDeck(ctx, core.DeckInput{Name: name})
	must(err)
	f.Service, err = s.svc.CreateService(ctx, core.ServiceInput{Name: name + "-peer", Type: backend.ServiceRemote,
		URL: peerURL, Description: "the Go test peer"})
	must(err)
	f.Cred, err = s.svc.CreateCredential(ctx, core.CredentialInput{Label: name + " key", Value: "secret-" + randHex(8)})
	must(err)
	f.Playbook, err = s.svc.CreatePlaybook(ctx, backend.PlaybookInput{Title: name + " release",
		Body: "# Release\n1. echo it", Triggers: []string{"release " + name}})
	must(err)
	for _, l := range []core.LinkCardInput{
		{CardRef: core.CardRef{Deck: f.Deck.ID, CardType: backend.CardService, CardID: f.Service.ID}},
		{CardRef: core.CardRef{Deck: f.Deck.ID, CardType: backend.CardCredential, CardID: f.Cred.ID}},
		{CardRef: core.CardRef{Deck: f.Deck.ID, CardType: backend.CardPlaybook, CardID: f.Playbook.ID}},
	} {
		_, err = s.svc.LinkCard(ctx, l)
		must(err)
	}
	return f
}

// agentDeck is a deck "pc" with a reachable peer service, a service nobody can reach, a
// credential and a playbook; agent is an MCP session bound to it.
type agentDeck struct {
	stack *mcpStack
	fix   mcpFixture
	dead  backend.ServiceCard
	agent *mcpConn
}

func startAgentDeck(t *testing.T) *agentDeck {
	t.Helper()
	s := startMCPStack(t, mcpStackOptions{Profile: "standard"})
	d := &agentDeck{stack: s, fix: s.seedDeck(t, "pc", startHTTPPeer(t))}
	var err error
	d.dead, err = s.svc.CreateService(s.adminCtx(), core.ServiceInput{Name: "pc-dead", Type: backend.ServiceRemote,
		URL: "http://127.0.0.1:1/mcp", Description: "never reached"})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.svc.LinkCard(s.adminCtx(), core.LinkCardInput{CardRef: core.CardRef{Deck: d.fix.Deck.ID,
		CardType: backend.CardService, CardID: d.dead.ID}}); err != nil {
		t.Fatal(err)
	}
	d.agent = s.connect(t, s.token(backend.ScopeAgent), nil, "")
	d.agent.ok("bind_workspace", map[string]any{"workspaceRoot": "/w/pc", "deckId": "pc"}, nil)
	return d
}

// fullDuplex serves h with the request body left to h: a reverse proxy in front of a server
// needs it. Over HTTP/1 the server drains and closes a request's body as soon as the answer's
// header goes out, while the proxy's transport may still read it once more (past
// Content-Length, to check it ends there): that read fails, the transport drops the connection
// to the server mid-answer and the client gets a cut answer (golang/go#40747).
func fullDuplex(h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if err := http.NewResponseController(w).EnableFullDuplex(); err != nil {
			http.Error(w, err.Error(), http.StatusInternalServerError)
			return
		}
		h.ServeHTTP(w, r)
	})
}
