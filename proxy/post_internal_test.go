package proxy

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"reflect"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/agent-deck/agent-deck/backend"
)

// postScenario is one way a downstream answers a tools/call.
type postScenario struct {
	name string
	// answer writes the answer to the call with id (raw JSON); n counts the calls so far.
	answer func(w http.ResponseWriter, id string, n int, answered <-chan struct{})
}

// postScenarios are the answers a tools/call may get: one JSON message, and each thing that is
// not one (an event stream that talks back first, refusals, a forgotten session, odd JSON).
var postScenarios = []postScenario{
	{"json", func(w http.ResponseWriter, id string, _ int, _ <-chan struct{}) {
		writeJSON(w, 200, `{"jsonrpc":"2.0","id":`+id+`,"result":{"content":[{"type":"text","text":"hi"}]}}`)
	}},
	{"json with a charset and spaces", func(w http.ResponseWriter, id string, _ int, _ <-chan struct{}) {
		w.Header().Set("Content-Type", "application/json; charset=utf-8")
		_, _ = io.WriteString(w, "{ \"id\" : "+id+" ,\n \"jsonrpc\":\"2.0\", \"result\" : {\"content\":[],\"isError\":true} }\n")
	}},
	{"json then more text", func(w http.ResponseWriter, id string, _ int, _ <-chan struct{}) {
		writeJSON(w, 200, `{"jsonrpc":"2.0","id":`+id+`,"result":{"content":[]}} trailing`)
	}},
	{"json with an escaped member name", func(w http.ResponseWriter, id string, _ int, _ <-chan struct{}) {
		writeJSON(w, 200, `{"jsonrpc":"2.0","\u0069d":`+id+`,"result":{"content":[]}}`)
	}},
	{"json-rpc error", func(w http.ResponseWriter, id string, _ int, _ <-chan struct{}) {
		writeJSON(w, 200, `{"jsonrpc":"2.0","id":`+id+`,"error":{"code":-32602,"message":"bad arguments","data":{"x":1}}}`)
	}},
	{"json with a null result", func(w http.ResponseWriter, id string, _ int, _ <-chan struct{}) {
		writeJSON(w, 200, `{"jsonrpc":"2.0","id":`+id+`,"result":null}`)
	}},
	{"json without an id", func(w http.ResponseWriter, _ string, _ int, _ <-chan struct{}) {
		writeJSON(w, 200, `{"jsonrpc":"2.0","result":{"content":[]}}`)
	}},
	{"json with another id", func(w http.ResponseWriter, _ string, _ int, _ <-chan struct{}) {
		writeJSON(w, 200, `{"jsonrpc":"2.0","id":"other","result":{"content":[]}}`)
	}},
	{"json with a numeric id", func(w http.ResponseWriter, _ string, _ int, _ <-chan struct{}) {
		writeJSON(w, 200, `{"jsonrpc":"2.0","id":7,"result":{"content":[]}}`)
	}},
	{"not json", func(w http.ResponseWriter, _ string, _ int, _ <-chan struct{}) {
		writeJSON(w, 200, `<html>`)
	}},
	{"event stream: log message, then the result", func(w http.ResponseWriter, id string, _ int, _ <-chan struct{}) {
		w.Header().Set("Content-Type", "text/event-stream")
		_, _ = io.WriteString(w, "event: message\ndata: {\"jsonrpc\":\"2.0\",\"method\":\"notifications/message\",\"params\":{\"level\":\"info\",\"data\":\"working\"}}\n\n")
		_, _ = io.WriteString(w, "event: message\ndata: {\"jsonrpc\":\"2.0\",\"id\":"+id+",\"result\":{\"content\":[{\"type\":\"text\",\"text\":\"streamed\"}]}}\n\n")
	}},
	{"event stream: a ping asked of the client, then the result", func(w http.ResponseWriter, id string, _ int, answered <-chan struct{}) {
		w.Header().Set("Content-Type", "text/event-stream")
		_, _ = io.WriteString(w, "event: message\ndata: {\"jsonrpc\":\"2.0\",\"id\":\"srv-1\",\"method\":\"ping\"}\n\n")
		w.(http.Flusher).Flush()
		select { // the result follows the client's answer to the ping
		case <-answered:
		case <-time.After(5 * time.Second):
		}
		_, _ = io.WriteString(w, "event: message\ndata: {\"jsonrpc\":\"2.0\",\"id\":"+id+",\"result\":{\"content\":[]}}\n\n")
	}},
	{"500 with a json-rpc error", func(w http.ResponseWriter, id string, _ int, _ <-chan struct{}) {
		writeJSON(w, 500, `{"jsonrpc":"2.0","id":`+id+`,"error":{"code":-32603,"message":"it broke"}}`)
	}},
	{"500 with text", func(w http.ResponseWriter, _ string, _ int, _ <-chan struct{}) {
		w.WriteHeader(500)
		_, _ = io.WriteString(w, "it broke")
	}},
	{"401", func(w http.ResponseWriter, _ string, _ int, _ <-chan struct{}) {
		w.Header().Set("WWW-Authenticate", `Bearer resource_metadata="http://127.0.0.1:1/.well-known/oauth-protected-resource"`)
		w.WriteHeader(401)
	}},
	{"202 with json", func(w http.ResponseWriter, id string, _ int, _ <-chan struct{}) {
		writeJSON(w, 202, `{"jsonrpc":"2.0","id":`+id+`,"result":{"content":[]}}`)
	}},
	{"404 once: the session is gone, the call goes out again on a new one", func(w http.ResponseWriter, id string, n int, _ <-chan struct{}) {
		if n == 1 {
			http.NotFound(w, nil)
			return
		}
		writeJSON(w, 200, `{"jsonrpc":"2.0","id":`+id+`,"result":{"content":[{"type":"text","text":"again"}]}}`)
	}},
}

func writeJSON(w http.ResponseWriter, status int, body string) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_, _ = io.WriteString(w, body)
}

// postSeen is what the downstream saw of one run.
type postSeen struct {
	calls     []string      // each tools/call body, as decoded JSON re-encoded
	headers   []http.Header // each tools/call's headers that matter
	responses int           // the client's answers to the downstream's requests
}

// postOutcome is what the caller got.
type postOutcome struct {
	raw     string
	isError bool
	code    backend.Code
	msg     string
	seen    postSeen
}

// runPostScenario makes one call against a downstream answering as sc does, with the direct
// post on or off.
func runPostScenario(t *testing.T, sc postScenario, direct bool) postOutcome {
	t.Helper()
	var (
		mu       sync.Mutex
		seen     postSeen
		sessions int
		answered = make(chan struct{}, 8)
	)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodPost {
			w.WriteHeader(http.StatusMethodNotAllowed)
			return
		}
		body, _ := io.ReadAll(r.Body)
		var msg struct {
			ID     json.RawMessage `json:"id"`
			Method string          `json:"method"`
		}
		_ = json.Unmarshal(body, &msg)
		mu.Lock()
		locked := true
		defer func() {
			if locked {
				mu.Unlock()
			}
		}()
		switch msg.Method {
		case "initialize":
			sessions++
			w.Header().Set("Mcp-Session-Id", fmt.Sprintf("session-%d", sessions))
			writeJSON(w, 200, `{"jsonrpc":"2.0","id":`+string(msg.ID)+`,"result":{"protocolVersion":"2025-11-25","capabilities":{"tools":{"listChanged":true}},"serverInfo":{"name":"fake","version":"1"}}}`)
		case "tools/list":
			writeJSON(w, 200, `{"jsonrpc":"2.0","id":`+string(msg.ID)+`,"result":{"tools":[{"name":"t","inputSchema":{"type":"object"}}]}}`)
		case "tools/call":
			var v map[string]any
			_ = json.Unmarshal(body, &v)
			delete(v, "id") // numbered per connection: how many lists went before differs
			norm, _ := json.Marshal(v)
			seen.calls = append(seen.calls, string(norm))
			h := http.Header{}
			for _, k := range []string{"Content-Type", "Accept", "Mcp-Session-Id", "Mcp-Protocol-Version", "Authorization", "X-Extra"} {
				h[k] = r.Header.Values(k)
			}
			seen.headers = append(seen.headers, h)
			n := len(seen.calls)
			mu.Unlock()
			locked = false
			sc.answer(w, string(msg.ID), n, answered)
		case "":
			seen.responses++ // a client's answer to a request of the server
			answered <- struct{}{}
			w.WriteHeader(http.StatusAccepted)
		default:
			w.WriteHeader(http.StatusAccepted)
		}
	}))
	defer srv.Close()
	p := New(Options{ConnectTimeout: 5 * time.Second, Home: t.TempDir(), noDirectPost: !direct})
	defer func() { _ = p.Close(context.Background()) }()
	tg := backend.Target{
		ServiceID: "svc-" + strings.NewReplacer(" ", "-", ":", "", ",", "").Replace(sc.name), ServiceName: "fake",
		Type: backend.ServiceRemote, URL: srv.URL, Transport: backend.TransportStreamableHTTP, Revision: "1",
		Headers:    map[string]string{"x-extra": "1", "Authorization": "Bearer downstream-secret"},
		Credential: nil,
	}
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	res, err := p.CallTool(ctx, tg, "t", json.RawMessage(`{"message":"<b>&</b>","n":[1, 2]}`))
	out := postOutcome{raw: string(res.Raw), isError: res.IsError}
	var be *backend.Error
	if errors.As(err, &be) {
		out.code, out.msg = be.Code, be.Error()
	} else if err != nil {
		out.msg = err.Error()
	}
	mu.Lock()
	out.seen = seen
	mu.Unlock()
	return out
}

// TestDirectPostParity: a tools/call posted directly gets what the transport's own send gets,
// for every way a downstream may answer; the downstream sees the same requests, each once, with
// the same headers; and an answer that is not one JSON message (an event stream, a refusal, a
// forgotten session) is read by the transport without the request going out twice.
func TestDirectPostParity(t *testing.T) {
	for _, sc := range postScenarios {
		t.Run(sc.name, func(t *testing.T) {
			want := runPostScenario(t, sc, false)
			got := runPostScenario(t, sc, true)
			if !reflect.DeepEqual(got, want) {
				t.Errorf("posted directly:\n%+v\nthrough the transport:\n%+v", got, want)
			}
			if len(got.seen.calls) == 0 {
				t.Error("the call never reached the downstream")
			}
		})
	}
}
