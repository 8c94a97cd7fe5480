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
	"testing"
	"time"

	"github.com/agent-deck/agent-deck/backend"
	"github.com/agent-deck/agent-deck/backend/core"
	"github.com/agent-deck/agent-deck/backend/postgres/pgtest"
	"github.com/agent-deck/agent-deck/cli"
	"github.com/agent-deck/agent-deck/tests/resttest"
)

// frontDoorWait is the generous deadline of the HTTP-limit attacks: far beyond the short limits
// the tests configure, far below "held forever".
const frontDoorWait = 20 * time.Second

// startFrontDoor starts a whole deck with cfg changed by tune.
func startFrontDoor(t testing.TB, tune func(*cli.ServeConfig)) *cli.Server {
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
func frontDoorToken(t testing.TB, srv *cli.Server, scope backend.Scope) string {
	t.Helper()
	ctx := backend.WithActor(context.Background(), backend.SystemActor)
	tok, err := srv.Service().CreateToken(ctx, core.TokenInput{Name: "fd-" + randHex(4), Scope: scope})
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

// frontDoorCall sends one request with a JSON body (raw bytes, sent as they are) and returns
// the status and body.
func frontDoorCall(t testing.TB, srv *cli.Server, token, method, path string, body []byte, headers ...string) (int, []byte) {
	t.Helper()
	// No reused connection racing a shortened idle timeout.
	fresh := http.DefaultTransport.(*http.Transport).Clone()
	fresh.DisableKeepAlives = true
	api := &resttest.Client{URL: srv.URL(), HTTP: &http.Client{Timeout: frontDoorWait, Transport: fresh}}
	a := api.Do(t, token, method, path, body, append([]string{"Content-Type", "application/json"}, headers...)...)
	return a.Status, a.Body
}

// wantInvalidField fails unless the answer is 400 INVALID_ARGUMENT naming field in details.field
// and in the message.
func wantInvalidField(t *testing.T, status int, body []byte, field string) {
	t.Helper()
	code, message, details := resttest.Answer{Status: status, Body: body}.Err()
	if status != http.StatusBadRequest || code != backend.CodeInvalidArgument ||
		details["field"] != field || !strings.Contains(message, field) {
		t.Fatalf("status %d %s, want 400 INVALID_ARGUMENT naming %q", status, body, field)
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
	// A fresh connection each time: tests that shorten the server's idle timeout would otherwise
	// race it, the client reusing a connection the server is closing (EOF on a POST).
	req.Close = true
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
