package tests

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agent-deck/agent-deck/backend"
	"github.com/agent-deck/agent-deck/backend/core"
	"github.com/agent-deck/agent-deck/cli"
)

// attackExitCodeOverflow: an exit code outside int32 is a 400 that names the field and the
// range, not a 500 from the database.
func attackExitCodeOverflow(t *testing.T) {
	srv := startFrontDoor(t, nil)
	ctx := backend.WithActor(context.Background(), backend.SystemActor)
	cred, err := srv.Service().CreateCredential(ctx, core.CredentialInput{Label: "Exit probe", Value: "v-" + randHex(8)})
	if err != nil {
		t.Fatal(err)
	}
	grant, err := srv.Service().StartExec(ctx, core.ExecInput{CredentialIDs: []string{cred.ID}, Command: []string{"true"}})
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

// attackMCPOutageHidden: when a tool fails because the deck cannot use what it stores (here the
// service's sealed headers no longer open), the agent gets the coded UNAVAILABLE error with its
// own message and hint, as isError: not a generic "database unavailable" or "internal error",
// and never the cause.
func attackMCPOutageHidden(t *testing.T) {
	var dbURL string
	srv := startFrontDoor(t, func(c *cli.ServeConfig) { dbURL = c.DatabaseURL })
	ctx := backend.WithActor(context.Background(), backend.SystemActor)
	peer, err := srv.Service().CreateService(ctx, core.ServiceInput{Name: "peer", Type: backend.ServiceRemote,
		URL: startHTTPPeer(t), Headers: map[string]string{"X-Api-Key": "k-" + randHex(8)}})
	if err != nil {
		t.Fatal(err)
	}
	deck, err := srv.Service().CreateDeck(ctx, core.DeckInput{Name: "outage"})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := srv.Service().LinkCard(ctx, core.LinkCardInput{CardRef: core.CardRef{Deck: deck.ID,
		CardType: backend.CardService, CardID: peer.ID}}); err != nil {
		t.Fatal(err)
	}
	psql := exec.Command(psqlPath(t), dbURL, "-v", "ON_ERROR_STOP=1", "-c",
		`UPDATE services SET sealed_headers = decode(repeat('ab', 64), 'hex') WHERE name = 'peer'`)
	if out, err := psql.CombinedOutput(); err != nil {
		t.Fatalf("psql: %v\n%s", err, out)
	}
	m := openRawMCPSession(t, srv, frontDoorToken(t, srv, backend.ScopeAgent))
	if isErr, text := m.callTool("bind_workspace", `{"workspaceRoot":"/tmp/outage","deckId":"outage"}`); isErr {
		t.Fatalf("bind_workspace: %s", text)
	}
	isErr, text := m.callTool("call_service_tool", `{"serviceId":"peer","toolName":"echo","arguments":{"message":"hi"}}`)
	var body struct {
		Error struct {
			Code    backend.Code `json:"code"`
			Message string       `json:"message"`
			Hint    string       `json:"hint"`
		} `json:"error"`
	}
	if err := json.Unmarshal([]byte(text), &body); err != nil || !isErr {
		t.Fatalf("isError %v, body %s", isErr, text)
	}
	e := body.Error
	// The classified message says what is wrong (the secret key), not a generic outage.
	if e.Code != backend.CodeUnavailable || e.Hint == "" || !strings.Contains(e.Message+e.Hint, "key") ||
		strings.Contains(e.Message, "internal error") || strings.Contains(e.Message, "database") ||
		strings.Contains(text, "cipher") || strings.Contains(text, "authentication failed") {
		t.Fatalf("the outage reached the agent as %s, want UNAVAILABLE with its own message and hint", text)
	}
}

// psqlPath finds psql beside the PostgreSQL server binaries the tests already need.
func psqlPath(t *testing.T) string {
	t.Helper()
	if p, err := exec.LookPath("psql"); err == nil {
		return p
	}
	if m, _ := filepath.Glob("/usr/lib/postgresql/*/bin/psql"); len(m) > 0 {
		return m[len(m)-1]
	}
	t.Fatal("psql not found on PATH or under /usr/lib/postgresql/*/bin")
	return ""
}

// attackRESTDuplicateKeys: a JSON object that names a key twice is read by Go as its last
// value, while another reader (a downstream server, an audit reviewer) may take the first. Every
// body that does so is refused with INVALID_ARGUMENT naming the key, at any depth, and nothing
// is stored or sent.
func attackRESTDuplicateKeys(t *testing.T) {
	srv := startFrontDoor(t, nil)
	ctx := backend.WithActor(context.Background(), backend.SystemActor)
	peer := startHTTPPeer(t)
	svc, err := srv.Service().CreateService(ctx, core.ServiceInput{Name: "peer", Type: backend.ServiceRemote, URL: peer})
	must(t, err)
	bodies := []struct{ method, path, body, field string }{
		{"POST", "/api/v1/decks", `{"name":"first","name":"second"}`, "name"},
		{"POST", "/api/v1/decks", `{"name":"n", "description":"d", "\u006eame":"escaped"}`, "name"},
		{"PATCH", "/api/v1/services/" + svc.ID, `{"headers":{"X-Team":"a","X-Team":"b"}}`, "headers.X-Team"},
		{"POST", "/api/v1/services/" + svc.ID + "/call", `{"tool_name":"echo","arguments":{"message":"shown","message":"sent"}}`, "arguments.message"},
		{"POST", "/api/v1/import", `{"format":"agent-deck-bundle","version":1,"decks":[{"name":"a","name":"b"}]}`, "decks[0].name"},
	}
	for _, b := range bodies {
		status, body := frontDoorCall(t, srv, srv.AdminToken(), b.method, b.path, []byte(b.body))
		wantInvalidField(t, status, body, b.field)
	}
	if decks, err := srv.Service().ListDecks(ctx); err != nil || len(decks) != 0 {
		t.Fatalf("decks after refused bodies: %v (err %v)", decks, err)
	}
	if got, err := srv.Service().GetService(ctx, svc.ID); err != nil || len(got.Headers) != 0 {
		t.Fatalf("headers after a refused patch: %v (err %v)", got.Headers, err)
	}
	// The same keys in different objects are no duplicate.
	if status, body := frontDoorCall(t, srv, srv.AdminToken(), "POST", "/api/v1/services/"+svc.ID+"/call",
		[]byte(`{"tool_name":"echo","arguments":{"message":"a"}}`)); status != http.StatusOK {
		t.Fatalf("a plain call: %d %s", status, body)
	}
}

// attackMCPDuplicateKeys: tool arguments that name a key twice, at the top or inside
// call_service_tool's arguments, are refused with INVALID_ARGUMENT naming the key.
func attackMCPDuplicateKeys(t *testing.T) {
	srv := startFrontDoor(t, nil)
	m := openRawMCPSession(t, srv, frontDoorToken(t, srv, backend.ScopeAgent))
	for _, c := range []struct{ tool, args, field string }{
		{"create_deck", `{"name":"first","name":"second"}`, `\"name\"`},
		{"call_service_tool", `{"serviceId":"peer","toolName":"echo","arguments":{"message":"shown","message":"sent"}}`, "arguments.message"},
		{"call_service_tool", `{"serviceId":"peer","toolName":"echo","arguments":"{\"message\":\"a\",\"message\":\"b\"}"}`, "arguments.message"},
	} {
		isErr, text := m.callTool(c.tool, c.args)
		if !isErr || !strings.Contains(text, `"INVALID_ARGUMENT"`) || !strings.Contains(text, c.field) {
			t.Errorf("%s with %s: isError %v %s", c.tool, c.args, isErr, text)
		}
	}
	ctx := backend.WithActor(context.Background(), backend.SystemActor)
	if decks, err := srv.Service().ListDecks(ctx); err != nil || len(decks) != 0 {
		t.Fatalf("decks after refused calls: %v (err %v)", decks, err)
	}
}

// attackRESTForeignHost: a page on evil.example whose name is rebound to 127.0.0.1 reaches the
// loopback listener with Host: evil.example. REST (with a token or without one, as the OAuth
// registration is) refuses every Host that is not a loopback name or address, the server's own
// or the host of an --allow-origin entry, as MCP does; those keep working on both surfaces.
func attackRESTForeignHost(t *testing.T) {
	srv := startFrontDoor(t, func(c *cli.ServeConfig) { c.AllowOrigins = []string{"https://deck.example.com"} })
	port := strings.Split(srv.URL(), ":")[2]
	agent := frontDoorToken(t, srv, backend.ScopeAgent)
	initialize := `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18",` +
		`"capabilities":{},"clientInfo":{"name":"host-test","version":"1"}}}`
	send := func(host, token, method, path, body string) (int, string) {
		req, err := http.NewRequest(method, srv.URL()+path, strings.NewReader(body))
		must(t, err)
		req.Host = host
		req.Header.Set("Authorization", "Bearer "+token)
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
		resp, err := (&http.Client{Timeout: frontDoorWait}).Do(req)
		must(t, err)
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		return resp.StatusCode, string(b)
	}
	for _, c := range []struct {
		host string
		ok   bool
	}{
		{"evil.example:" + port, false}, {"evil.example", false}, {"127.0.0.1.evil.example:" + port, false},
		{"deck.example.com.evil.example", false}, {"10.0.0.1:" + port, false},
		{"127.0.0.1:" + port, true}, {"localhost:" + port, true}, {"LOCALHOST", true}, {"[::1]:" + port, true},
		{"deck.example.com", true}, {"deck.example.com:443", true},
	} {
		status, body := send(c.host, srv.AdminToken(), "GET", "/api/v1/decks", "")
		if c.ok != (status == http.StatusOK) {
			t.Errorf("REST with Host %q: %d %s", c.host, status, body)
		}
		if !c.ok && (status != http.StatusForbidden || !strings.Contains(body, "--allow-origin")) {
			t.Errorf("REST with Host %q: %d %s, want 403 saying how to allow a public name", c.host, status, body)
		}
		status, body = send(c.host, "", "POST", "/oauth/register", `{"redirect_uris":["http://127.0.0.1:9/cb"]}`)
		if c.ok != (status == http.StatusCreated) {
			t.Errorf("OAuth registration with Host %q: %d %s", c.host, status, body)
		}
		if status, body := send(c.host, agent, "POST", "/mcp", initialize); c.ok != (status == http.StatusOK) {
			t.Errorf("MCP with Host %q: %d %s", c.host, status, body)
		}
	}
}
