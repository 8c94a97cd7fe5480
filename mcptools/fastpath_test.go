package mcptools

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/mark3labs/mcp-go/server"

	"github.com/agent-deck/agent-deck/backend"
	"github.com/agent-deck/agent-deck/backend/core"
	"github.com/agent-deck/agent-deck/backend/postgres/pgtest"
	"github.com/agent-deck/agent-deck/backend/secret"
)

func TestMain(m *testing.M) {
	pgtest.Main(m)
}

// noDownstream stands in for the proxy: two tools. echo answers every call with the same
// result, kept byte for byte (content with characters JSON escapes, structured content, key
// order). talk talks back through the call's relay first, as the proxy does for a downstream:
// progress (for a call that asked for it) and a log message, then, with "ask" in its arguments,
// an elicitation whose answer it returns.
type noDownstream struct{}

const downstreamResult = `{"content":[{"type":"text","text":"echo: <hi> & \u00e9"}],"structuredContent":{"b":1,"a":[2]}}`

func (noDownstream) ListTools(context.Context, backend.Target) ([]backend.DownstreamTool, error) {
	var out []backend.DownstreamTool
	for _, name := range []string{"echo", "talk"} {
		out = append(out, backend.DownstreamTool{Name: name, Enabled: true, InputSchema: json.RawMessage(`{"type":"object"}`),
			Raw: json.RawMessage(`{"name":"` + name + `","inputSchema":{"type":"object"}}`)})
	}
	return out, nil
}
func (noDownstream) CallTool(ctx context.Context, _ backend.Target, tool string, args json.RawMessage) (backend.CallResult, error) {
	r := backend.RelayFrom(ctx)
	if tool != "talk" || r == nil {
		return backend.CallResult{Raw: json.RawMessage(downstreamResult)}, nil
	}
	if tok := r.ProgressToken(); tok != nil {
		p, _ := json.Marshal(map[string]any{"progressToken": tok, "progress": 1, "total": 2})
		r.Notify(ctx, "notifications/progress", p)
	}
	r.Notify(ctx, "notifications/message", json.RawMessage(`{"level":"info","data":"half way"}`))
	if !bytes.Contains(args, []byte(`"ask"`)) {
		return backend.CallResult{Raw: json.RawMessage(`{"content":[{"type":"text","text":"talked"}]}`)}, nil
	}
	answer, err := r.Request(ctx, backend.MethodElicitation,
		json.RawMessage(`{"message":"Your name?","requestedSchema":{"type":"object","properties":{"name":{"type":"string"}}}}`))
	if err != nil {
		return backend.CallResult{}, err
	}
	text, _ := json.Marshal("answered " + string(answer))
	return backend.CallResult{Raw: json.RawMessage(`{"content":[{"type":"text","text":` + string(text) + `}]}`)}, nil
}
func (noDownstream) Check(context.Context, backend.Target) backend.Health { return backend.Health{} }
func (noDownstream) Status(string) (backend.DownstreamStatus, bool) {
	return backend.DownstreamStatus{}, false
}
func (noDownstream) Forget(string)       {}
func (noDownstream) SessionEnded(string) {}

// fastFixture is the /mcp handler over a real database with a deck whose text needs escaping.
type fastFixture struct {
	h     *Handler
	token string
}

func newFastFixture(t testing.TB) *fastFixture {
	t.Helper()
	key, err := secret.GenerateKey()
	if err != nil {
		t.Fatal(err)
	}
	sealer, err := secret.NewSealer(key)
	if err != nil {
		t.Fatal(err)
	}
	svc := core.NewHub(pgtest.NewStore(t), noDownstream{}, sealer, nil, nil, core.Config{})
	admin := backend.WithActor(context.Background(), backend.Actor{Scope: backend.ScopeAdmin, Kind: backend.ActorUser})
	must := func(err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	_, err = svc.CreateDeck(admin, core.DeckInput{Name: "fast"})
	must(err)
	off := false
	for i := range 12 {
		// HTML characters, accents, quotes and backslashes: all escaped by encoding/json.
		pb, err := svc.CreatePlaybook(admin, backend.PlaybookInput{
			Title: fmt.Sprintf("Runbook <%d> & \"é\" %d", i, i), Body: "Steps.",
			Triggers: []string{fmt.Sprintf("run <book> %d", i)}, AutoDetectDependencies: &off})
		must(err)
		_, err = svc.LinkCard(admin, core.LinkCardInput{CardRef: core.CardRef{Deck: "fast",
			CardType: backend.CardPlaybook, CardID: pb.ID}})
		must(err)
		cred, err := svc.CreateCredential(admin, core.CredentialInput{Label: fmt.Sprintf("Key \\ %d", i), Value: "v"})
		must(err)
		_, err = svc.LinkCard(admin, core.LinkCardInput{CardRef: core.CardRef{Deck: "fast",
			CardType: backend.CardCredential, CardID: cred.ID}})
		must(err)
	}
	svcCard, err := svc.CreateService(admin, core.ServiceInput{Name: "peer", Type: backend.ServiceRemote,
		URL: "http://127.0.0.1:9/mcp"})
	must(err)
	_, err = svc.LinkCard(admin, core.LinkCardInput{CardRef: core.CardRef{Deck: "fast",
		CardType: backend.CardService, CardID: svcCard.ID}})
	must(err)
	tok, err := svc.CreateToken(admin, core.TokenInput{Name: "fast", Scope: backend.ScopeAgent})
	must(err)
	h, err := NewHandler(svc, Options{})
	must(err)
	t.Cleanup(func() { _ = h.Close(context.Background()) })
	return &fastFixture{h: h, token: tok.Secret}
}

// post sends body to the handler through its whole ServeHTTP.
func (f *fastFixture) post(t testing.TB, session, body string) *httptest.ResponseRecorder {
	t.Helper()
	rec := httptest.NewRecorder()
	f.h.ServeHTTP(rec, f.request(session, body, "application/json"))
	return rec
}

func (f *fastFixture) request(session, body, contentType string) *http.Request {
	r := httptest.NewRequest(http.MethodPost, "/mcp", strings.NewReader(body))
	r.Header.Set("Authorization", "Bearer "+f.token)
	r.Header.Set("Content-Type", contentType)
	r.Header.Set("Accept", "application/json, text/event-stream")
	if session != "" {
		r.Header.Set(backend.HeaderMCPSession, session)
		r.Header.Set(backend.HeaderMCPProtocolVersion, SessionProtocolVersions[0])
	}
	return r
}

// open initializes a session and, with deck set, binds it through the transport.
func (f *fastFixture) open(t testing.TB, deck string) string {
	t.Helper()
	return f.openWith(t, deck, `{}`)
}

// openWith is open for a client declaring capabilities caps (a JSON object).
func (f *fastFixture) openWith(t testing.TB, deck, caps string) string {
	t.Helper()
	rec := f.post(t, "", `{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"`+
		SessionProtocolVersions[0]+`","capabilities":`+caps+`,"clientInfo":{"name":"parity","version":"1"}}}`)
	id := rec.Header().Get(backend.HeaderMCPSession)
	if rec.Code != http.StatusOK || id == "" {
		t.Fatalf("initialize: %d %s", rec.Code, rec.Body)
	}
	f.post(t, id, `{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	if deck != "" {
		rec = f.post(t, id, `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"bind_workspace",`+
			`"arguments":{"workspaceRoot":"/w","deckId":"`+deck+`"}}}`)
		if rec.Code != http.StatusOK || strings.Contains(rec.Body.String(), `"isError":true`) {
			t.Fatalf("bind: %d %s", rec.Code, rec.Body)
		}
	}
	return id
}

// hostCaps is what the official TypeScript SDK client of Claude Code, VS Code and Cursor
// declares.
const hostCaps = `{"elicitation":{"form":{}},"sampling":{},"roots":{"listChanged":true}}`

// setLevel sets the session's log level through the transport.
func (f *fastFixture) setLevel(t testing.TB, session, level string) {
	t.Helper()
	rec := f.post(t, session, `{"jsonrpc":"2.0","id":3,"method":"logging/setLevel","params":{"level":"`+level+`"}}`)
	if rec.Code != http.StatusOK {
		t.Fatalf("setLevel: %d %s", rec.Code, rec.Body)
	}
}

// TestFastPathParity holds issue 9 item 2 (second round) and issue 24: plain get_bound_deck and
// call_service_tool calls are answered without mcp-go's transport, with the same bytes the
// transport writes for the same request — bound or not, with bad arguments, with ids of every
// JSON kind, asking for progress or not, whatever the session's client declared — and anything
// the fast path does not cover goes to the transport. TestFastPathTalksBack covers a downstream
// that talks back during the call.
func TestFastPathParity(t *testing.T) {
	f := newFastFixture(t)
	bound, unbound := f.open(t, "fast"), f.open(t, "")
	// Sessions a downstream could talk back to: their calls take the fast path all the same, and
	// are answered as plain JSON while the downstream says nothing.
	elicits := f.openWith(t, "fast", `{"elicitation":{}}`)
	samples := f.openWith(t, "fast", `{"sampling":{}}`)
	logs := f.open(t, "fast")
	f.setLevel(t, logs, "info")
	// What Claude Code, VS Code and Cursor declare (the TypeScript SDK's client).
	host := f.openWith(t, "fast", hostCaps)
	proxied := `{"name":"call_service_tool","arguments":{"serviceId":"peer","toolName":"echo","arguments":{"message":"hi"}}}`
	call := func(id, params string) string {
		return `{"jsonrpc":"2.0","id":` + id + `,"method":"tools/call","params":` + params + `}`
	}
	plain := `{"name":"get_bound_deck"}`
	tests := []struct {
		name        string
		session     string
		body        string
		contentType string
		host        string // a Host header on a loopback listener (DNS rebinding)
		wantFast    bool
	}{
		{"bound deck", bound, call("7", plain), "", "", true},
		{"bound deck with arguments", bound, call("8", `{"name":"get_bound_deck","arguments":{"card_type":"playbook"}}`), "", "", true},
		{"bound deck next page", bound, call("9", `{"name":"get_bound_deck","arguments":{"query":"book 3"}}`), "", "", true},
		{"string id that needs escaping", bound, call(`"a\"b<c>é"`, plain), "", "", true},
		{"large number id", bound, call("12345678901234567890", plain), "", "", true},
		{"fraction id", bound, call("1.50", plain), "", "", true},
		{"arguments of the wrong type", bound, call("10", `{"name":"get_bound_deck","arguments":{"card_type":5}}`), "", "", true},
		{"unknown argument value", bound, call("11", `{"name":"get_bound_deck","arguments":{"card_type":"nope"}}`), "", "", true},
		{"unbound session", unbound, call("12", plain), "", "", true},
		{"progress token", bound, call("13", `{"name":"get_bound_deck","_meta":{"progressToken":"p"}}`), "", "", true},
		{"null _meta", bound, call("31", `{"name":"get_bound_deck","_meta":null}`), "", "", true},
		{"_meta not an object", bound, call("32", `{"name":"get_bound_deck","_meta":"p"}`), "", "", false},
		{"task", bound, call("14", `{"name":"get_bound_deck","task":{}}`), "", "", false},
		{"null id", bound, call("null", plain), "", "", false},
		{"notification", bound, `{"jsonrpc":"2.0","method":"tools/call","params":` + plain + `}`, "", "", false},
		{"wrong JSON-RPC version", bound, `{"jsonrpc":"1.0","id":15,"method":"tools/call","params":` + plain + `}`, "", "", false},
		{"not JSON content type", bound, call("16", plain), "text/plain", "", false},
		{"proxied call", bound, call("21", proxied), "", "", true},
		{"proxied call to a service not on the deck", bound, call("22", `{"name":"call_service_tool","arguments":{"serviceId":"nope","toolName":"echo"}}`), "", "", true},
		{"proxied call without a bound deck", unbound, call("23", `{"name":"call_service_tool","arguments":{"serviceId":"peer","toolName":"echo"}}`), "", "", true},
		{"proxied call missing its tool", bound, call("24", `{"name":"call_service_tool","arguments":{"serviceId":"peer"}}`), "", "", true},
		{"proxied call asking for progress", bound, call("26", `{"name":"call_service_tool","_meta":{"progressToken":1},"arguments":{"serviceId":"peer","toolName":"echo"}}`), "", "", true},
		{"proxied call of a client that declared elicitation", elicits, call("27", proxied), "", "", true},
		{"proxied call of a client that declared sampling", samples, call("28", proxied), "", "", true},
		{"proxied call of a session that set a log level", logs, call("29", proxied), "", "", true},
		{"proxied call of a client declaring elicitation, sampling and roots", host, call("33", proxied), "", "", true},
		{"proxied call of that client asking for progress", host, call("34", `{"name":"call_service_tool","_meta":{"progressToken":"t"},"arguments":{"serviceId":"peer","toolName":"echo"}}`), "", "", true},
		{"get_bound_deck of a client that declared elicitation", elicits, call("30", plain), "", "", true},
		{"other tool", bound, call("17", `{"name":"list_decks"}`), "", "", false},
		{"loopback host", bound, call("25", plain), "", "localhost:4000", true},
		{"DNS rebinding", bound, call("19", plain), "", "evil.example:4000", false},
	}
	answers := map[string]string{ // what some answers must hold, so parity is not of two failures
		"bound deck":   `display_summary`,
		"proxied call": `"structuredContent":{"b":1,"a":[2]}`,
		"proxied call of a client declaring elicitation, sampling and roots": `"structuredContent":{"b":1,"a":[2]}`,
		"proxied call to a service not on the deck":                          `NOT_ON_BOUND_DECK`,
		"unbound session": `NOT_BOUND`,
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			ct := tc.contentType
			if ct == "" {
				ct = "application/json"
			}
			// The fast path's decision and bytes, on the request as ServeHTTP prepares it.
			fastRec := httptest.NewRecorder()
			mk := func() *http.Request {
				r := f.request(tc.session, tc.body, ct)
				if tc.host != "" {
					r.Host = tc.host
					r = r.WithContext(context.WithValue(r.Context(), http.LocalAddrContextKey,
						&net.TCPAddr{IP: net.IPv4(127, 0, 0, 1), Port: 4000}))
				}
				return r
			}
			r := mk()
			st, _, err := f.h.prepare(fastRec, r)
			if tc.name == "DNS rebinding" { // refused before either path runs
				if err == nil || backend.ErrorCode(err) != backend.CodeForbidden {
					t.Fatalf("prepare: %v, want FORBIDDEN", err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			ctx := withState(backend.WithActor(r.Context(), st.actor), st)
			served := f.h.serveFast(ctx, fastRec, r, st)
			if served != tc.wantFast {
				t.Fatalf("served by the fast path = %v, want %v", served, tc.wantFast)
			}
			if !served {
				return
			}
			// The transport's bytes for the same request.
			fast := f.h.fast
			f.h.fast = map[string]server.ToolHandlerFunc{}
			libRec := httptest.NewRecorder()
			f.h.ServeHTTP(libRec, mk())
			f.h.fast = fast
			lib, got := libRec.Body.Bytes(), fastRec.Body.Bytes()
			if libRec.Code != fastRec.Code || !bytes.Equal(lib, got) {
				t.Fatalf("fast path answered %d\n%s\nthe transport %d\n%s", fastRec.Code, got, libRec.Code, lib)
			}
			if want := answers[tc.name]; want != "" && !bytes.Contains(got, []byte(want)) {
				t.Errorf("answer lacks %s:\n%s", want, got)
			}
			if ct := fastRec.Header().Get("Content-Type"); ct != "application/json" {
				t.Errorf("a call whose downstream said nothing is answered as %q, want plain JSON", ct)
			}
			for _, hdr := range []string{"Content-Type", "Content-Length"} {
				if a, b := fastRec.Header().Get(hdr), libRec.Header().Get(hdr); a != b {
					t.Errorf("%s: fast path %q, transport %q", hdr, a, b)
				}
			}
		})
	}
	// Through ServeHTTP, a fast answer reads as any other: the deck's escaped text decodes.
	rec := f.post(t, bound, call("20", plain))
	var resp struct {
		Result struct {
			Content []struct{ Text string } `json:"content"`
		} `json:"result"`
	}
	if err := json.NewDecoder(io.Reader(rec.Body)).Decode(&resp); err != nil || len(resp.Result.Content) != 1 ||
		!json.Valid([]byte(resp.Result.Content[0].Text)) || !strings.Contains(resp.Result.Content[0].Text, `"display_summary"`) {
		t.Fatalf("fast answer does not decode to the deck: %v %s", err, rec.Body)
	}
}
