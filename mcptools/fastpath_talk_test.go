package mcptools

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/http"
	"regexp"
	"sync"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/server"

	"github.com/agent-deck/agent-deck/backend"
)

// streamRecorder is a ResponseWriter that can be read while the handler still writes: a test
// answers a request it finds on the stream before the call ends.
type streamRecorder struct {
	mu    sync.Mutex
	hdr   http.Header
	sent  http.Header // the headers as they were when written
	code  int
	body  bytes.Buffer
	wrote chan struct{}
}

func newStreamRecorder() *streamRecorder {
	return &streamRecorder{hdr: http.Header{}, wrote: make(chan struct{}, 1)}
}

func (s *streamRecorder) Header() http.Header { return s.hdr }

func (s *streamRecorder) WriteHeader(code int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.code == 0 {
		s.code, s.sent = code, s.hdr.Clone()
	}
}

func (s *streamRecorder) Write(p []byte) (int, error) {
	s.WriteHeader(http.StatusOK)
	s.mu.Lock()
	n, err := s.body.Write(p)
	s.mu.Unlock()
	select {
	case s.wrote <- struct{}{}:
	default:
	}
	return n, err
}

func (s *streamRecorder) Flush() {}

func (s *streamRecorder) snapshot() (int, http.Header, string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.code, s.sent, s.body.String()
}

// waitFor waits until the body holds want; the bound is for a broken build, not a timing claim.
func (s *streamRecorder) waitFor(want string) (string, error) {
	deadline := time.After(30 * time.Second)
	for {
		if _, _, body := s.snapshot(); bytes.Contains([]byte(body), []byte(want)) {
			return body, nil
		}
		select {
		case <-s.wrote:
		case <-deadline:
			_, _, body := s.snapshot()
			return body, fmt.Errorf("the stream never carried %s:\n%s", want, body)
		}
	}
}

var askIDRE = regexp.MustCompile(`"id":"(adk-[^"]+)"`)

// talk runs a call_service_tool call of tool talk, by the fast path or (fast false) by the
// transport, answering its elicitation when ask; it returns what the client received and
// whether the fast path served it.
func (f *fastFixture) talk(t *testing.T, session, body string, ask, fast bool) (int, http.Header, string, bool) {
	t.Helper()
	w := newStreamRecorder()
	r := f.request(session, body, "application/json")
	served := make(chan bool, 1)
	failed := make(chan error, 1)
	if !fast {
		saved := f.h.fast
		f.h.fast = map[string]server.ToolHandlerFunc{}
		defer func() { f.h.fast = saved }()
	}
	go func() {
		if !fast {
			f.h.ServeHTTP(w, r)
			served <- false
			return
		}
		st, _, err := f.h.prepare(w, r)
		if err != nil {
			failed <- err
			return
		}
		ctx := withState(backend.WithActor(r.Context(), st.actor), st)
		served <- f.h.serveFast(ctx, w, r, st)
	}()
	if ask {
		out, err := w.waitFor(`"method":"elicitation/create"`)
		if err != nil {
			t.Fatal(err)
		}
		m := askIDRE.FindStringSubmatch(out)
		if m == nil {
			t.Fatalf("no request id of Agent Deck's on the stream:\n%s", out)
		}
		rec := f.post(t, session, `{"jsonrpc":"2.0","id":"`+m[1]+`","result":{"action":"accept","content":{"name":"Ada"}}}`)
		if rec.Code != http.StatusAccepted {
			t.Fatalf("the answer was taken with %d %s", rec.Code, rec.Body)
		}
	}
	var ok bool
	select {
	case ok = <-served:
	case err := <-failed:
		t.Fatal(err)
	}
	code, hdr, out := w.snapshot()
	return code, hdr, out, ok
}

// TestFastPathTalksBack holds issue 24: a call of a client that declared elicitation, sampling
// and roots, whose downstream talks back before its result, takes the fast path. Its answer
// becomes an SSE stream at the first message (progress, a log message, an elicitation the
// client answers in another POST), and the client receives the bytes and headers the transport
// sends for the same call, Agent Deck's request ids aside (a counter). A log message under the
// session's level is not sent, and the answer stays plain JSON.
func TestFastPathTalksBack(t *testing.T) {
	f := newFastFixture(t)
	host := f.openWith(t, "fast", hostCaps)
	f.setLevel(t, host, "info")
	unleveled := f.openWith(t, "fast", hostCaps) // set no log level: log messages are not for it
	call := func(id, meta, args string) string {
		return `{"jsonrpc":"2.0","id":` + id + `,"method":"tools/call","params":{"name":"call_service_tool"` + meta +
			`,"arguments":{"serviceId":"peer","toolName":"talk","arguments":` + args + `}}}`
	}
	tests := []struct {
		name    string
		session string
		body    string
		ask     bool
		sse     bool
		want    []string // in this order
	}{
		{"progress and a log message", host, call(`"p1"`, `,"_meta":{"progressToken":"tok"}`, `{}`), false, true,
			[]string{`"method":"notifications/progress"`, `"progressToken":"tok"`, `"method":"notifications/message"`, `"id":"p1"`, `talked`}},
		{"a log message", host, call("2", "", `{}`), false, true,
			[]string{`"method":"notifications/message"`, `"data":"half way"`, `"id":2`, `talked`}},
		{"an elicitation answered", host, call("3", "", `{"ask":true}`), true, true,
			[]string{`"method":"notifications/message"`, `"method":"elicitation/create"`, `"message":"Your name?"`, `"id":3`, `answered {\"action\":\"accept\",\"content\":{\"name\":\"Ada\"}}`}},
		{"a log message the session did not ask for", unleveled, call("4", "", `{}`), false, false,
			[]string{`"id":4`, `talked`}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			code, hdr, got, served := f.talk(t, tc.session, tc.body, tc.ask, true)
			if !served {
				t.Fatal("the fast path did not serve the call")
			}
			libCode, libHdr, lib, _ := f.talk(t, tc.session, tc.body, tc.ask, false)
			norm := func(s string) string { return askIDRE.ReplaceAllString(s, `"id":"adk-…"`) }
			if code != libCode || norm(got) != norm(lib) {
				t.Fatalf("fast path answered %d\n%s\nthe transport %d\n%s", code, got, libCode, lib)
			}
			for _, h := range []string{"Content-Type", "Content-Length", "Cache-Control", "Connection"} {
				if a, b := hdr.Get(h), libHdr.Get(h); a != b {
					t.Errorf("%s: fast path %q, transport %q", h, a, b)
				}
			}
			wantType := "application/json"
			if tc.sse {
				wantType = "text/event-stream"
			}
			if ct := hdr.Get("Content-Type"); ct != wantType {
				t.Errorf("answered as %q, want %q:\n%s", ct, wantType, got)
			}
			rest := got
			for _, w := range tc.want {
				i := bytes.Index([]byte(rest), []byte(w))
				if i < 0 {
					t.Fatalf("the answer lacks %s (in this order):\n%s", w, got)
				}
				rest = rest[i+len(w):]
			}
		})
	}
}

// BenchmarkComponentFastPathCall is one proxied call of a client that declared elicitation,
// sampling and roots, through the whole ServeHTTP of /mcp in process, over a downstream that
// answers at once: the hub's own allocations per call (make bench reports allocs/op and B/op).
// BenchmarkMCPProxyOverhead measures the same call end to end.
func BenchmarkComponentFastPathCall(b *testing.B) {
	f := newFastFixture(b)
	session := f.openWith(b, "fast", hostCaps)
	body := `{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"call_service_tool",` +
		`"arguments":{"serviceId":"peer","toolName":"echo","arguments":{"message":"bench"}}}}`
	reqs := make([]*http.Request, 0, 64)
	w := &discardWriter{hdr: http.Header{}}
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if len(reqs) == 0 {
			b.StopTimer()
			for range cap(reqs) {
				reqs = append(reqs, f.request(session, body, "application/json"))
			}
			b.StartTimer()
		}
		r := reqs[len(reqs)-1]
		reqs = reqs[:len(reqs)-1]
		clear(w.hdr)
		f.h.ServeHTTP(w, r)
		if w.code != http.StatusOK {
			b.Fatalf("answered %d", w.code)
		}
	}
}

// discardWriter is a ResponseWriter that keeps the status and drops the body.
type discardWriter struct {
	hdr  http.Header
	code int
}

func (d *discardWriter) Header() http.Header         { return d.hdr }
func (d *discardWriter) WriteHeader(code int)        { d.code = code }
func (d *discardWriter) Write(p []byte) (int, error) { return len(p), nil }
func (d *discardWriter) Flush()                      {}

// TestFastPathEncodesAsEncodingJSON: the fast path's own encoders write what encoding/json
// writes — raw downstream values compacted and HTML-escaped, request ids as decoded into any.
func TestFastPathEncodesAsEncodingJSON(t *testing.T) {
	for _, raw := range []string{
		`{"type":"text","text":"echo: <hi> & \u00e9"}`,
		"{ \"a\" : [ 1 , 2 ,\n\t{\"b\" : \"x y\\\" <z>\" } ] , \"c\":\"\u2028\u2029 & \\\\\" }",
		`"plain"`, `[ ]`, `{"k":"\\u003c already \" escaped"}`, `{"s":"é 中文 😀"}`, `  12.5e3 `, `null`,
	} {
		want, err := json.Marshal(json.RawMessage(raw))
		if err != nil {
			t.Fatal(err)
		}
		if got := appendCompactHTML(nil, []byte(raw)); string(got) != string(want) {
			t.Errorf("%q: got %s, encoding/json %s", raw, got, want)
		}
	}
	for _, raw := range []string{`7`, `0`, `-3`, `1.5`, `12345678901234567890`, `9007199254740993`, `1e3`, `"a\"<b>"`, `""`} {
		var id any
		if err := json.Unmarshal([]byte(raw), &id); err != nil {
			t.Fatal(err)
		}
		want, _ := json.Marshal(id)
		if got, err := appendID(nil, id); err != nil || string(got) != string(want) {
			t.Errorf("id %s: got %s (%v), encoding/json %s", raw, got, err, want)
		}
	}
}
