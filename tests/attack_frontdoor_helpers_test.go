package tests

import (
	"bufio"
	"bytes"
	"context"
	"crypto/rand"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/agent-deck/agent-deck/backend"
	"github.com/agent-deck/agent-deck/backend/postgres/pgtest"
	"github.com/agent-deck/agent-deck/cli"
)

// frontDoorWait is the generous deadline of the HTTP-limit attacks: far beyond the short limits
// the tests configure, far below "held forever".
const frontDoorWait = 20 * time.Second

// startFrontDoor starts a whole deck with cfg changed by tune.
func startFrontDoor(t *testing.T, tune func(*cli.ServeConfig)) *cli.Server {
	t.Helper()
	key := make([]byte, 32)
	if _, err := rand.Read(key); err != nil {
		t.Fatal(err)
	}
	cfg := cli.ServeConfig{Home: t.TempDir(), Addr: "127.0.0.1:0", DatabaseURL: pgtest.NewDB(t),
		SecretKey: base64.StdEncoding.EncodeToString(key), Profile: "standard",
		Logger: slog.New(slog.DiscardHandler)}
	if tune != nil {
		tune(&cfg)
	}
	srv, err := cli.Start(context.Background(), cfg)
	if err != nil {
		t.Fatalf("cli.Start: %v", err)
	}
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 15*time.Second)
		defer cancel()
		_ = srv.Close(ctx)
	})
	return srv
}

// frontDoorToken creates a token of scope on srv.
func frontDoorToken(t *testing.T, srv *cli.Server, scope backend.Scope) string {
	t.Helper()
	ctx := backend.WithActor(context.Background(), backend.SystemActor)
	tok, err := srv.Service().CreateToken(ctx, backend.TokenInput{Name: "fd-" + randHex(4), Scope: scope})
	if err != nil {
		t.Fatal(err)
	}
	return tok.Secret
}

// rawConn is one plain TCP connection to the deck, for requests no HTTP client would send.
type rawConn struct {
	net.Conn
	r *bufio.Reader
}

// dialRaw connects to the deck; the connection is closed when the test ends. Safe to call from
// any goroutine.
func dialRaw(t *testing.T, baseURL string) (*rawConn, error) {
	c, err := net.Dial("tcp", strings.TrimPrefix(baseURL, "http://"))
	if err != nil {
		return nil, err
	}
	t.Cleanup(func() { c.Close() })
	return &rawConn{Conn: c, r: bufio.NewReader(c)}, nil
}

// statusLine waits up to frontDoorWait for the answer's status line ("" if none came).
func (c *rawConn) statusLine() string {
	_ = c.SetReadDeadline(time.Now().Add(frontDoorWait))
	line, err := c.r.ReadString('\n')
	if err != nil && line == "" {
		return ""
	}
	return strings.TrimSpace(line)
}

// closedByServer waits up to frontDoorWait for the server to close the connection, reading
// whatever it answers on the way; false means the connection was still held.
func (c *rawConn) closedByServer() bool {
	_ = c.SetReadDeadline(time.Now().Add(frontDoorWait))
	_, err := io.Copy(io.Discard, c.r)
	var ne net.Error
	return !(errors.As(err, &ne) && ne.Timeout())
}

// requestHead is a request line and headers with the blank line that ends them.
func requestHead(method, path, token string, contentLength int, extra ...string) string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s %s HTTP/1.1\r\nHost: 127.0.0.1\r\n", method, path)
	if token != "" {
		fmt.Fprintf(&b, "Authorization: Bearer %s\r\n", token)
	}
	if contentLength >= 0 {
		fmt.Fprintf(&b, "Content-Type: application/json\r\nContent-Length: %d\r\n", contentLength)
	}
	for _, h := range extra {
		b.WriteString(h + "\r\n")
	}
	b.WriteString("\r\n")
	return b.String()
}

// attackUnauthenticatedLargeBodies: 20 clients at once announce 64 MiB bodies with a wrong
// token on every authenticated route and send 4 KiB of them. Each is refused 401 before it sent
// the rest: the deck never waited for, nor read, the bodies.
func attackUnauthenticatedLargeBodies(t *testing.T) {
	srv := startFrontDoor(t, nil)
	routes := []struct{ method, path string }{
		{"POST", "/mcp"}, {"POST", "/api/v1/decks"}, {"GET", "/metrics"},
	}
	for _, rt := range routes {
		t.Run(rt.path, func(t *testing.T) {
			var wg sync.WaitGroup
			got := make([]string, 20)
			for i := range got {
				wg.Add(1)
				go func() {
					defer wg.Done()
					c, err := dialRaw(t, srv.URL())
					if err != nil {
						got[i] = "dial: " + err.Error()
						return
					}
					head := requestHead(rt.method, rt.path, "not-a-token-"+randHex(8), 64<<20)
					if _, err := io.WriteString(c, head+strings.Repeat("x", 4096)); err != nil {
						got[i] = "write: " + err.Error()
						return
					}
					got[i] = c.statusLine()
				}()
			}
			wg.Wait()
			for i, line := range got {
				if !strings.HasPrefix(line, "HTTP/1.1 401") {
					t.Fatalf("client %d: answer %q before sending its body, want 401", i, line)
				}
			}
		})
	}
}

// attackTrickledBody: an authenticated client announces a body and sends a little of it, then
// nothing. The deck gives the body BodyReadTimeout to arrive and then drops the connection.
func attackTrickledBody(t *testing.T) {
	srv := startFrontDoor(t, func(c *cli.ServeConfig) { c.HTTP.BodyReadTimeout = 300 * time.Millisecond })
	admin := srv.AdminToken()
	for _, path := range []string{"/api/v1/decks", "/mcp"} {
		t.Run(path, func(t *testing.T) {
			c, err := dialRaw(t, srv.URL())
			if err != nil {
				t.Fatal(err)
			}
			if _, err := io.WriteString(c, requestHead("POST", path, admin, 1000)+`{"name":`); err != nil {
				t.Fatal(err)
			}
			if !c.closedByServer() {
				t.Fatalf("POST %s: a body that never arrives held the connection for %s", path, frontDoorWait)
			}
		})
	}
}

// attackIdleConnection: a client keeps a connection open after its request and sends nothing
// more. The deck closes it after IdleTimeout.
func attackIdleConnection(t *testing.T) {
	srv := startFrontDoor(t, func(c *cli.ServeConfig) { c.HTTP.IdleTimeout = 300 * time.Millisecond })
	c, err := dialRaw(t, srv.URL())
	if err != nil {
		t.Fatal(err)
	}
	if _, err := io.WriteString(c, requestHead("GET", "/healthz", "", -1)); err != nil {
		t.Fatal(err)
	}
	if line := c.statusLine(); !strings.HasPrefix(line, "HTTP/1.1 200") {
		t.Fatalf("GET /healthz: %q", line)
	}
	if !c.closedByServer() {
		t.Fatalf("an idle keep-alive connection was held for %s", frontDoorWait)
	}
}

// attackSessionlessBadToken: GET and DELETE /mcp with a wrong or missing token and no session
// are refused as unauthenticated (401 with WWW-Authenticate), not as a malformed request.
func attackSessionlessBadToken(t *testing.T) {
	srv := startFrontDoor(t, nil)
	for _, method := range []string{"GET", "DELETE"} {
		for _, token := range []string{"", "not-a-token"} {
			c, err := dialRaw(t, srv.URL())
			if err != nil {
				t.Fatal(err)
			}
			if _, err := io.WriteString(c, requestHead(method, "/mcp", token, -1,
				"Accept: text/event-stream, application/json")); err != nil {
				t.Fatal(err)
			}
			line := c.statusLine()
			head := readHeaders(c)
			if !strings.HasPrefix(line, "HTTP/1.1 401") || !strings.Contains(head, "Www-Authenticate: Bearer") {
				t.Errorf("%s /mcp with token %q: %q, headers:\n%s", method, token, line, head)
			}
		}
	}
}

// readHeaders reads the rest of an answer's header block.
func readHeaders(c *rawConn) string {
	var b strings.Builder
	for {
		line, err := c.r.ReadString('\n')
		b.WriteString(line)
		if err != nil || strings.TrimSpace(line) == "" {
			return b.String()
		}
	}
}

// attackMetricLabels: 2,000 requests with random HTTP methods (and the odd status they cause)
// must not become 2,000 series: every label of the request counter comes from a fixed set.
func attackMetricLabels(t *testing.T) {
	srv := startFrontDoor(t, nil)
	client := &http.Client{Timeout: frontDoorWait}
	for i := 0; i < 2000; i++ {
		req, err := http.NewRequest("X"+strings.ToUpper(randHex(6)), srv.URL()+"/api/v1/decks", nil)
		if err != nil {
			t.Fatal(err)
		}
		resp, err := client.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		_, _ = io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
	}
	req, _ := http.NewRequest("GET", srv.URL()+"/metrics", nil)
	req.Header.Set("Authorization", "Bearer "+srv.AdminToken())
	resp, err := client.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	series := 0
	for _, line := range strings.Split(string(body), "\n") {
		if strings.HasPrefix(line, "agent_deck_http_requests_total{") {
			series++
		}
	}
	if series == 0 || series > 8 {
		t.Fatalf("%d series of agent_deck_http_requests_total after 2,000 random methods, want a handful:\n%s",
			series, body)
	}
}

// frontDoorCall sends one request with a JSON body (raw bytes, sent as they are) and returns
// the status and body.
func frontDoorCall(t *testing.T, srv *cli.Server, token, method, path string, body []byte, headers ...string) (int, []byte) {
	t.Helper()
	req, err := http.NewRequest(method, srv.URL()+path, bytes.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	req.Header.Set("Content-Type", "application/json")
	for i := 0; i+1 < len(headers); i += 2 {
		req.Header.Set(headers[i], headers[i+1])
	}
	resp, err := (&http.Client{Timeout: frontDoorWait}).Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	out, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, out
}

// wantInvalidField fails unless the answer is 400 INVALID_ARGUMENT naming field in details.field
// and in the message.
func wantInvalidField(t *testing.T, status int, body []byte, field string) {
	t.Helper()
	var e struct {
		Error struct {
			Code    backend.Code   `json:"code"`
			Message string         `json:"message"`
			Details map[string]any `json:"details"`
		} `json:"error"`
	}
	_ = json.Unmarshal(body, &e)
	if status != http.StatusBadRequest || e.Error.Code != backend.CodeInvalidArgument ||
		e.Error.Details["field"] != field || !strings.Contains(e.Error.Message, field) {
		t.Fatalf("status %d %s, want 400 INVALID_ARGUMENT naming %q", status, body, field)
	}
}

// attackExitCodeOverflow: an exit code outside int32 is a 400 that names the field and the
// range, not a 500 from the database.
func attackExitCodeOverflow(t *testing.T) {
	srv := startFrontDoor(t, nil)
	ctx := backend.WithActor(context.Background(), backend.SystemActor)
	cred, err := srv.Service().CreateCredential(ctx, backend.CredentialInput{Label: "Exit probe", Value: "v-" + randHex(8)})
	if err != nil {
		t.Fatal(err)
	}
	grant, err := srv.Service().StartExec(ctx, backend.ExecInput{CredentialIDs: []string{cred.ID}, Command: []string{"true"}})
	if err != nil {
		t.Fatal(err)
	}
	path := fmt.Sprintf("/api/v1/exec/%d/finish", grant.AuditID)
	for _, code := range []string{"2147483648", "-2147483649", "9223372036854775807"} {
		status, body := frontDoorCall(t, srv, srv.AdminToken(), "POST", path, []byte(`{"exit_code":`+code+`}`))
		wantInvalidField(t, status, body, "exit_code")
		if !strings.Contains(string(body), "2147483647") {
			t.Errorf("exit_code %s: the message does not give the range: %s", code, body)
		}
	}
	if status, body := frontDoorCall(t, srv, srv.AdminToken(), "POST", path, []byte(`{"exit_code":-1}`)); status != http.StatusNoContent {
		t.Fatalf("exit_code -1: %d %s", status, body)
	}
}

// mcpRawSession is an MCP session driven with raw JSON-RPC bodies, for arguments no MCP client library
// would encode (their JSON encoders repair bad text before it is sent).
type mcpRawSession struct {
	t       *testing.T
	srv     *cli.Server
	token   string
	session string
}

func openRawMCPSession(t *testing.T, srv *cli.Server, token string) *mcpRawSession {
	t.Helper()
	m := &mcpRawSession{t: t, srv: srv, token: token}
	init := `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18",` +
		`"capabilities":{},"clientInfo":{"name":"front-door-test","version":"1"}}}`
	status, _, hdr := m.post([]byte(init))
	if status != http.StatusOK || hdr.Get("Mcp-Session-Id") == "" {
		t.Fatalf("initialize: status %d, session %q", status, hdr.Get("Mcp-Session-Id"))
	}
	m.session = hdr.Get("Mcp-Session-Id")
	return m
}

// post sends one JSON-RPC body and returns the status and the JSON-RPC answer (the data of
// the first SSE event when the answer streams).
func (m *mcpRawSession) post(body []byte) (int, []byte, http.Header) {
	m.t.Helper()
	req, err := http.NewRequest("POST", m.srv.URL()+"/mcp", bytes.NewReader(body))
	if err != nil {
		m.t.Fatal(err)
	}
	req.Header.Set("Authorization", "Bearer "+m.token)
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	if m.session != "" {
		req.Header.Set("Mcp-Session-Id", m.session)
		req.Header.Set("Mcp-Protocol-Version", "2025-06-18")
	}
	resp, err := (&http.Client{Timeout: frontDoorWait}).Do(req)
	if err != nil {
		m.t.Fatal(err)
	}
	defer resp.Body.Close()
	out, _ := io.ReadAll(resp.Body)
	if strings.HasPrefix(resp.Header.Get("Content-Type"), "text/event-stream") {
		for _, line := range strings.Split(string(out), "\n") {
			if data, ok := strings.CutPrefix(line, "data: "); ok {
				return resp.StatusCode, []byte(data), resp.Header
			}
		}
	}
	return resp.StatusCode, out, resp.Header
}

// callTool calls a tool with raw JSON arguments and returns the tool result.
func (m *mcpRawSession) callTool(name, rawArgs string) (isError bool, text string) {
	m.t.Helper()
	body := `{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"` + name + `","arguments":` + rawArgs + `}}`
	status, out, _ := m.post([]byte(body))
	var rpc struct {
		Result struct {
			IsError bool `json:"isError"`
			Content []struct {
				Text string `json:"text"`
			} `json:"content"`
		} `json:"result"`
	}
	if err := json.Unmarshal(out, &rpc); err != nil || status != http.StatusOK || len(rpc.Result.Content) == 0 {
		m.t.Fatalf("tools/call %s: status %d %s", name, status, out)
	}
	return rpc.Result.IsError, rpc.Result.Content[0].Text
}

// badTextBodies are JSON texts that encoding/json would repair into U+FFFD without a word.
var badTextBodies = map[string]string{
	"lone high surrogate": `"deck \ud800"`,
	"lone low surrogate":  `"deck \udc00 x"`,
	"invalid UTF-8":       "\"deck \xff\xfe\"",
}

// attackRESTBadText: a REST body with invalid UTF-8 or a lone surrogate is refused with
// INVALID_ARGUMENT naming the field, and nothing is stored.
func attackRESTBadText(t *testing.T) {
	srv := startFrontDoor(t, nil)
	for name, value := range badTextBodies {
		t.Run(name, func(t *testing.T) {
			status, body := frontDoorCall(t, srv, srv.AdminToken(), "POST", "/api/v1/decks", []byte(`{"name":`+value+`}`))
			wantInvalidField(t, status, body, "name")
		})
	}
	ctx := backend.WithActor(context.Background(), backend.SystemActor)
	if decks, err := srv.Service().ListDecks(ctx); err != nil || len(decks) != 0 {
		t.Fatalf("decks after refused bodies: %v (err %v)", decks, err)
	}
}

// attackMCPBadText: tool arguments with invalid UTF-8 or a lone surrogate are refused with
// INVALID_ARGUMENT naming the parameter, also inside call_service_tool's string arguments.
func attackMCPBadText(t *testing.T) {
	srv := startFrontDoor(t, nil)
	m := openRawMCPSession(t, srv, frontDoorToken(t, srv, backend.ScopeAgent))
	for name, value := range badTextBodies {
		t.Run(name, func(t *testing.T) {
			isErr, text := m.callTool("create_deck", `{"name":`+value+`}`)
			if !isErr || !strings.Contains(text, `"INVALID_ARGUMENT"`) || !strings.Contains(text, `\"name\"`) {
				t.Fatalf("create_deck with %s: isError %v %s", name, isErr, text)
			}
		})
	}
	isErr, text := m.callTool("call_service_tool",
		`{"serviceId":"peer","toolName":"echo","arguments":"{\"message\":\"\\ud800\"}"}`)
	if !isErr || !strings.Contains(text, `"INVALID_ARGUMENT"`) || !strings.Contains(text, "arguments.message") {
		t.Fatalf("call_service_tool with a lone surrogate in string arguments: %s", text)
	}
	ctx := backend.WithActor(context.Background(), backend.SystemActor)
	if decks, err := srv.Service().ListDecks(ctx); err != nil || len(decks) != 0 {
		t.Fatalf("decks after refused calls: %v (err %v)", decks, err)
	}
}

// attackForeignOriginREST and attackForeignOriginMCP: a web page on another site makes the
// browser call the deck (with a token it got somehow, or through DNS rebinding). Requests whose
// Origin is not local, not the server's own and not listed by --allow-origin are refused 403;
// local and listed origins, and requests without an Origin, are served.
func attackForeignOriginREST(t *testing.T) { foreignOrigins(t, "REST") }

func attackForeignOriginMCP(t *testing.T) { foreignOrigins(t, "MCP") }

func foreignOrigins(t *testing.T, surface string) {
	srv := startFrontDoor(t, func(c *cli.ServeConfig) { c.AllowOrigins = []string{"https://deck.example.com"} })
	agent := frontDoorToken(t, srv, backend.ScopeAgent)
	initialize := []byte(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18",` +
		`"capabilities":{},"clientInfo":{"name":"origin-test","version":"1"}}}`)
	requests := []struct {
		name, token, method, path string
		body                      []byte
		ok                        int
	}{
		{"REST", srv.AdminToken(), "GET", "/api/v1/decks", nil, http.StatusOK},
		{"MCP", agent, "POST", "/mcp", initialize, http.StatusOK},
	}
	origins := []struct {
		origin string
		status int // 0: the request's success status
	}{
		{"https://evil.example.com", http.StatusForbidden},
		{"http://evil.example.com:" + strings.Split(srv.URL(), ":")[2], http.StatusForbidden},
		{"null", http.StatusForbidden},
		{"http://localhost:5173", 0},
		{srv.URL(), 0},
		{"https://deck.example.com", 0},
		{"", 0},
	}
	for _, rq := range requests {
		if rq.name != surface {
			continue
		}
		for _, o := range origins {
			want := o.status
			if want == 0 {
				want = rq.ok
			}
			var headers []string
			if o.origin != "" {
				headers = []string{"Origin", o.origin}
			}
			headers = append(headers, "Accept", "application/json, text/event-stream")
			status, body := frontDoorCall(t, srv, rq.token, rq.method, rq.path, rq.body, headers...)
			if status != want {
				t.Errorf("%s with Origin %q: status %d, want %d: %s", rq.name, o.origin, status, want, body)
			}
			if want == http.StatusForbidden && !strings.Contains(string(body), "--allow-origin") {
				t.Errorf("%s with Origin %q: the refusal does not say how to allow it: %s", rq.name, o.origin, body)
			}
		}
	}
}
