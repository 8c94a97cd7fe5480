package tests

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"log"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"regexp"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/mcp"

	"github.com/agent-deck/agent-deck/backend/core"
)

// roundRobin is the front anyone puts before two processes: each request goes to the next
// replica, with no session affinity. It notes which replica carried each request Agent Deck sent
// a client (its id starts with adk-) and which one got the client's answer, to show answers
// crossing between replicas.
type roundRobin struct {
	proxies []*httputil.ReverseProxy
	next    atomic.Int64

	mu      sync.Mutex
	sent    map[string]int // ask id → replica whose answer stream carried it
	crossed int            // answers that reached another replica than their request's
	calls   map[string]int // JSON-RPC id of a tools/call → replica it went to
}

var (
	askID  = regexp.MustCompile(`"id":"(adk-[0-9a-f]+-[0-9]+)"`)
	callID = regexp.MustCompile(`^\{"jsonrpc":"2.0","id":"(cx-[0-9]+)","method":"tools/call"`)
)

func startRoundRobin(t *testing.T, replicas ...*mcpStack) (string, *roundRobin) {
	t.Helper()
	rr := &roundRobin{sent: map[string]int{}, calls: map[string]int{}}
	for i, s := range replicas {
		target, _ := url.Parse(s.URL)
		rr.proxies = append(rr.proxies, &httputil.ReverseProxy{
			Rewrite:       func(pr *httputil.ProxyRequest) { pr.SetURL(target) },
			FlushInterval: -1,
			ErrorLog:      log.New(io.Discard, "", 0),
			ModifyResponse: func(resp *http.Response) error {
				resp.Body = &askTap{rc: resp.Body, seen: func(id string) {
					rr.mu.Lock()
					rr.sent[id] = i
					rr.mu.Unlock()
				}}
				return nil
			},
		})
	}
	front := httptest.NewServer(fullDuplex(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		i := int(rr.next.Add(1)) % len(rr.proxies)
		if r.Method == http.MethodPost {
			body, _ := io.ReadAll(r.Body)
			r.Body = io.NopCloser(bytes.NewReader(body))
			if m := askID.FindSubmatch(body); m != nil && !bytes.Contains(body, []byte(`"method"`)) {
				rr.mu.Lock()
				if from, ok := rr.sent[string(m[1])]; ok && from != i {
					rr.crossed++
				}
				rr.mu.Unlock()
			}
			if m := callID.FindSubmatch(body); m != nil {
				rr.mu.Lock()
				rr.calls[string(m[1])] = i
				rr.mu.Unlock()
			}
		}
		rr.proxies[i].ServeHTTP(w, r)
	})))
	t.Cleanup(front.Close)
	return front.URL, rr
}

// askTap reports the ids of the requests Agent Deck sends a client in a response as it is read.
type askTap struct {
	rc   io.ReadCloser
	seen func(id string)
	tail []byte
}

func (a *askTap) Read(p []byte) (int, error) {
	n, err := a.rc.Read(p)
	buf := append(a.tail, p[:n]...)
	for _, m := range askID.FindAllSubmatch(buf, -1) {
		a.seen(string(m[1]))
	}
	if len(buf) > 128 {
		buf = buf[len(buf)-128:]
	}
	a.tail = append(a.tail[:0], buf...)
	return n, err
}

func (a *askTap) Close() error { return a.rc.Close() }

// TestProxyAcrossReplicas: two serve replicas on one PostgreSQL behind a round-robin front. A
// session that declared elicitation and sampling, whose requests alternate between the replicas,
// gets progress, log messages, elicitation and sampling from a downstream over stdio and over
// Streamable HTTP, and its cancellations reach its calls, 20 times in a row: the client's answers
// and cancellations that reach the replica that does not wait for them are carried to the one
// that does through the database.
func TestProxyAcrossReplicas(t *testing.T) {
	a, services := startFaithfulDeck(t)
	b := startMCPReplica(t, a)
	allowed := true
	for _, svc := range services {
		if _, err := a.svc.SetDeckSampling(a.adminCtx(), core.DeckSamplingInput{Deck: "faithful", Service: svc, Allowed: &allowed}); err != nil {
			t.Fatal(err)
		}
	}
	front, rr := startRoundRobin(t, a, b)
	ag := dialFaithful(t, &mcpStack{t: t, URL: front, svc: a.svc, AdminToken: a.AdminToken}, "R", "faithful",
		agentCaps{elicit: true, sample: true})
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	//lint:ignore SA1019 the session speaks 2025-11-25, which has logging/setLevel
	if err := ag.c.SetLevel(ctx, mcp.SetLevelRequest{Params: mcp.SetLevelParams{Level: mcp.LoggingLevelWarning}}); err != nil {
		t.Fatalf("logging/setLevel: %v", err)
	}
	for round := range 20 {
		for _, service := range services {
			token := fmt.Sprintf("tok-%d-%s", round, service)
			if res := ag.peer(service, "progress", map[string]any{"count": 2, "tag": token, "gap_ms": 10}, token); mcpText(res) != "sent 2" {
				t.Fatalf("round %d %s: progress = %s", round, service, mcpText(res))
			}
			if got := ag.waitSeenWith("notifications/progress", token, 2); got != 2 {
				t.Fatalf("round %d %s: %d progress notifications with the call's token, want 2", round, service, got)
			}
			res := ag.peer(service, "elicit", map[string]any{"message": "Round " + token}, nil)
			if res.IsError || !strings.Contains(mcpText(res), "user of R") {
				t.Fatalf("round %d %s: elicitation = %s", round, service, mcpText(res))
			}
			res = ag.peer(service, "sample", map[string]any{"prompt": token}, nil)
			if res.IsError || !strings.Contains(mcpText(res), "the model of R answers") {
				t.Fatalf("round %d %s: sampling = %s", round, service, mcpText(res))
			}
		}
		// A cancellation reaches the call whichever replica runs it (the HTTP peer is one process
		// both replicas share, so its count of cancelled calls is one).
		ag.cancelBlock(t, services[1])
		cancelAcross(t, rr, front, []*mcpStack{a, b}, ag, services[1], round)
		// Log messages over HTTP: the stdio peer may write them after its result, and what
		// trails a call answered by a replica holding no stream of the session is dropped
		// (docs/architecture.md).
		tag := fmt.Sprintf("log-%d", round)
		ag.peer(services[1], "notify_log", map[string]any{"tag": tag}, nil)
		if got := ag.waitSeenWith("notifications/message", `"`+tag+` `, 2); got != 2 {
			t.Fatalf("round %d: %d log messages at warning and above, want 2 (warning, error): %v\nA:\n%s\nB:\n%s", round, got,
				ag.seen("notifications/message"), a.logs.String(), b.logs.String())
		}
	}
	rr.mu.Lock()
	defer rr.mu.Unlock()
	if rr.crossed == 0 {
		t.Errorf("no answer reached another replica than its request's (%d requests seen): the test proved nothing", len(rr.sent))
	}
}

// waitSeenWith polls until want notifications of method containing needle arrived, and returns
// how many did.
func (a *faithfulAgent) waitSeenWith(method, needle string, want int) int {
	a.t.Helper()
	count := func() int {
		n := 0
		for _, s := range a.seen(method) {
			if strings.Contains(s, needle) {
				n++
			}
		}
		return n
	}
	deadline := time.Now().Add(10 * time.Second)
	for count() < want && time.Now().Before(deadline) {
		// What trails a result waits for the session's next stream on its replica: a ping, which
		// the front sends to the next replica, opens one.
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		_ = a.c.Ping(ctx) //lint:ignore SA1019 the session speaks 2025-11-25, which has ping
		cancel()
		time.Sleep(10 * time.Millisecond)
	}
	return count()
}

// cancelAcross starts the peer's block tool in a plain POST that stays open, as the mcp-stdio
// bridge's does, and sends the client's notifications/cancelled straight to the replica that does
// not run the call: the call ends, and the downstream counts the cancellation.
func cancelAcross(t *testing.T, rr *roundRobin, front string, replicas []*mcpStack, ag *faithfulAgent, service string, round int) {
	t.Helper()
	count := func() string { return mcpText(ag.peer(service, "cancellations", nil, nil)) }
	before := count()
	session := ag.c.GetSessionId()
	id := fmt.Sprintf("cx-%d", round)
	post := func(url, body string) *http.Response {
		req, _ := http.NewRequest(http.MethodPost, url+"/mcp", strings.NewReader(body))
		for k, v := range map[string]string{"Content-Type": "application/json", "Accept": "application/json, text/event-stream",
			"Authorization": "Bearer " + ag.token, "Mcp-Session-Id": session, "Mcp-Protocol-Version": "2025-11-25"} {
			req.Header.Set(k, v)
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		return resp
	}
	resp := post(front, fmt.Sprintf(`{"jsonrpc":"2.0","id":%q,"method":"tools/call","params":{"name":"call_service_tool",`+
		`"_meta":{"progressToken":"p-%s"},"arguments":{"serviceId":%q,"toolName":"block"}}}`, id, id, service))
	defer resp.Body.Close()
	lines := make(chan string, 16)
	go func() {
		defer close(lines)
		buf := make([]byte, 64<<10)
		var text strings.Builder
		for {
			n, err := resp.Body.Read(buf)
			text.Write(buf[:n])
			if strings.Contains(text.String(), `"blocking"`) {
				lines <- "blocking"
				text.Reset()
			}
			if err != nil {
				lines <- "end " + text.String()
				return
			}
		}
	}()
	if got := <-lines; got != "blocking" {
		t.Fatalf("round %d: the block call never started: %s", round, got)
	}
	rr.mu.Lock()
	runs := rr.calls[id]
	rr.mu.Unlock()
	other := replicas[1-runs]
	c := post(other.URL, fmt.Sprintf(`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":%q,"reason":"test"}}`, id))
	c.Body.Close()
	var end string
	for l := range lines { // the call ends
		end = l
	}
	if !strings.Contains(end, "was cancelled") {
		t.Fatalf("round %d: the call sent to one replica and cancelled on the other ended with %s", round, end)
	}
	deadline := time.Now().Add(20 * time.Second)
	for count() == before {
		if time.Now().After(deadline) {
			t.Fatalf("round %d: the downstream never saw the cancellation sent to the other replica", round)
		}
		time.Sleep(20 * time.Millisecond)
	}
}
