package tests

import (
	"bytes"
	"io"
	"net/http"
	"net/http/httputil"
	"net/url"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/agent-deck/agent-deck/backend"
	"github.com/agent-deck/agent-deck/backend/core"
	"github.com/agent-deck/agent-deck/cli"
)

var retryIn = regexp.MustCompile(`retry in (\d+) s`)

// retrySeconds reads the wait a RATE_LIMITED hint names.
func retrySeconds(t *testing.T, hint string) int {
	t.Helper()
	m := retryIn.FindStringSubmatch(hint)
	if m == nil {
		t.Fatalf("hint %q names no retry time", hint)
	}
	n, _ := strconv.Atoi(m[1])
	return n
}

// restCall calls the peer's echo tool over REST with token, through deck ops.
func limitedCall(t *testing.T, s *mcpStack, token, service string) (int, http.Header, []byte) {
	t.Helper()
	a := s.api().Do(t, token, http.MethodPost, "/api/v1/services/"+url.PathEscape(service)+"/call",
		map[string]any{"tool_name": "echo", "arguments": map[string]any{"message": "hi"}, "deck": "ops"})
	return a.Status, a.Header, a.Body
}

// TestRateLimitedToken: one token driven past its calls a minute is refused with RATE_LIMITED
// (MCP) and 429 with Retry-After (REST), told when to retry, and gets through once that time
// has passed; a second token is not touched. The refusals are counted in /metrics.
func TestRateLimitedToken(t *testing.T) {
	const perMinute = 30 // one call every 2 s
	s := startMCPStack(t, mcpStackOptions{Serve: func(c *cli.ServeConfig) { c.TokenCallsPerMinute = perMinute }})
	fx := s.seedDeck(t, "ops", startHTTPPeer(t))
	first, second := s.token(backend.ScopeAgent), s.token(backend.ScopeAgent)
	m := s.connect(t, first, nil, "")
	m.ok("bind_workspace", map[string]any{"workspaceRoot": "/srv/app", "deckId": "ops"}, nil)
	call := map[string]any{"serviceId": fx.Service.Name, "toolName": "echo", "arguments": map[string]any{"message": "hi"}}
	for i := range perMinute {
		if res := m.call("call_service_tool", call); res.IsError {
			t.Fatalf("call %d: %s", i+1, mcpText(res))
		}
	}
	e := m.fails("call_service_tool", call)
	if e.Code != string(backend.CodeRateLimited) || !strings.Contains(e.Message, "30 calls a minute") {
		t.Fatalf("past the limit over MCP: %+v, want RATE_LIMITED naming 30 calls a minute", e)
	}
	if wait := retrySeconds(t, e.Hint); wait < 1 || wait > 2 {
		t.Errorf("retry in %d s, want 1 or 2 (a call every 2 s)", wait)
	}

	status, header, body := limitedCall(t, s, first, fx.Service.Name)
	wait, err := strconv.Atoi(header.Get("Retry-After"))
	if status != http.StatusTooManyRequests || err != nil || wait < 1 || wait > 2 ||
		!bytes.Contains(body, []byte(`"retry_after_seconds":`+strconv.Itoa(wait))) {
		t.Fatalf("past the limit over REST: %d Retry-After %q %s", status, header.Get("Retry-After"), body)
	}
	for i := range perMinute {
		if status, _, body := limitedCall(t, s, second, fx.Service.Name); status != http.StatusOK {
			t.Fatalf("the second token's call %d: %d %s", i+1, status, body)
		}
	}
	time.Sleep(time.Duration(wait) * time.Second)
	if status, _, body := limitedCall(t, s, first, fx.Service.Name); status != http.StatusOK {
		t.Errorf("after waiting the %d s it was told: %d %s", wait, status, body)
	}
	metrics := s.api().Do(t, s.AdminToken, http.MethodGet, "/metrics", nil)
	if !strings.Contains(string(metrics.Body), `agent_deck_rate_limited_total{limit="calls_per_minute",scope="token"} 2`) {
		t.Errorf("metrics do not count the two refusals:\n%s", grepLines(string(metrics.Body), "agent_deck_rate_limit"))
	}
}

// TestRateLimitOverrides: a person limits a service on a deck with the CLI; calls past it are
// refused naming the service, the deck and the command that changes it, whichever token makes
// them; a service's own limit bounds its calls in flight; --clear goes back to the server's.
func TestRateLimitOverrides(t *testing.T) {
	s := startMCPStack(t, mcpStackOptions{})
	fx := s.seedDeck(t, "ops", startHTTPPeer(t))
	svc := fx.Service.Name
	bad := runCLI(s.home, strings.NewReader(""), "deck", "limits", "ops", svc, "--calls-per-minute", "-1").wantCode(t, 1)
	if !strings.Contains(bad.stderr, "calls_per_minute") {
		t.Errorf("a negative limit: %s", bad.stderr)
	}
	out := runCLI(s.home, strings.NewReader(""), "deck", "limits", "ops", svc, "--calls-per-minute", "2").wantCode(t, 0)
	if !strings.Contains(out.stdout, "2 (deck_service)") || !strings.Contains(out.stdout, "no limit (server)") {
		t.Errorf("deck limits ops %s:\n%s", svc, out.stdout)
	}
	for i := range 2 {
		if status, _, body := limitedCall(t, s, s.token(backend.ScopeAgent), svc); status != http.StatusOK {
			t.Fatalf("call %d: %d %s", i+1, status, body)
		}
	}
	status, _, body := limitedCall(t, s, s.token(backend.ScopeAgent), svc)
	for _, want := range []string{"RATE_LIMITED", `through deck \"ops\"`, "2 calls a minute", "agent-deck deck limits ops " + svc} {
		if status != http.StatusTooManyRequests || !strings.Contains(string(body), want) {
			t.Errorf("a third call by another token: %d %s; want 429 with %s", status, body, want)
		}
	}
	runCLI(s.home, strings.NewReader(""), "deck", "limits", "ops", svc, "--clear").wantCode(t, 0)
	runCLI(s.home, strings.NewReader(""), "service", "limits", svc, "--concurrent-calls", "1").wantCode(t, 0)
	var lim core.RateLimits
	s.api().Do(t, s.AdminToken, http.MethodGet, "/api/v1/decks/ops/services/"+svc+"/limits", nil).Decode(t, &lim)
	if lim.CallsPerMinute != 0 || lim.CallsPerMinuteSource != "server" || lim.ConcurrentCalls != 1 || lim.ConcurrentCallsSource != "service" {
		t.Errorf("effective limits %+v", lim)
	}

	token := s.token(backend.ScopeAgent)
	done := make(chan struct{})
	go func() {
		defer close(done)
		for { // the probes below may hold the one place when it arrives: then it tries again
			a := s.api().Do(t, token, http.MethodPost, "/api/v1/services/"+svc+"/call",
				map[string]any{"tool_name": "sleep", "arguments": map[string]any{"ms": 3000}, "deck": "ops"})
			if a.Status != http.StatusTooManyRequests {
				return
			}
		}
	}()
	refused := false
	for !refused {
		select {
		case <-done:
			t.Fatal("the long call ended and no call beside it was refused")
		default:
		}
		time.Sleep(20 * time.Millisecond) // leave the place free most of the time
		status, _, body := limitedCall(t, s, token, svc)
		refused = status == http.StatusTooManyRequests && strings.Contains(string(body), "1 calls in flight at once")
	}
	<-done
	if status, _, body := limitedCall(t, s, token, svc); status != http.StatusOK {
		t.Errorf("after the long call ended: %d %s", status, body)
	}
}

// TestRateLimitAcrossReplicas: two replicas on one database, one token calling through both as
// fast as each can, admit together no more than the limit, the bucket's refill meanwhile and the
// documented tolerance (one slice, a twentieth of the limit, per other replica); and not much
// less than the limit.
func TestRateLimitAcrossReplicas(t *testing.T) {
	const perMinute, attempts = 60, 100
	a := startMCPStack(t, mcpStackOptions{Serve: func(c *cli.ServeConfig) { c.TokenCallsPerMinute = perMinute }})
	b := startMCPReplica(t, a)
	fx := a.seedDeck(t, "ops", startHTTPPeer(t))
	token := a.token(backend.ScopeAgent)
	var admitted atomic.Int64
	var wg sync.WaitGroup
	start := time.Now()
	for _, s := range []*mcpStack{a, b} {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for range attempts {
				switch status, _, body := limitedCall(t, s, token, fx.Service.Name); status {
				case http.StatusOK:
					admitted.Add(1)
				case http.StatusTooManyRequests:
				default:
					t.Errorf("call: %d %s", status, body)
					return
				}
			}
		}()
	}
	wg.Wait()
	elapsed := time.Since(start)
	refill := int(elapsed.Seconds()*perMinute/60) + 1
	tolerance := perMinute / 20
	got := int(admitted.Load())
	t.Logf("%d of %d calls admitted in %s", got, 2*attempts, elapsed)
	if got > perMinute+refill+tolerance {
		t.Errorf("two replicas admitted %d calls in %s; the limit allows %d + %d refilled + %d tolerance",
			got, elapsed, perMinute, refill, tolerance)
	}
	if got < perMinute-tolerance {
		t.Errorf("two replicas admitted only %d calls, want at least %d", got, perMinute-tolerance)
	}
}

// tallyProxy forwards to target and counts the tools/call requests it passed; it returns its
// own URL (same path).
func tallyProxy(t *testing.T, target string) (string, *atomic.Int64) {
	t.Helper()
	u, err := url.Parse(target)
	if err != nil {
		t.Fatal(err)
	}
	calls := &atomic.Int64{}
	rp := httputil.NewSingleHostReverseProxy(&url.URL{Scheme: u.Scheme, Host: u.Host})
	srv := &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		if bytes.Contains(body, []byte(`"tools/call"`)) {
			calls.Add(1)
		}
		r.Body = io.NopCloser(bytes.NewReader(body))
		rp.ServeHTTP(w, r)
	})}
	ln := mcpListenRetry(t, "127.0.0.1:0")
	go func() { _ = srv.Serve(ln) }()
	t.Cleanup(func() { _ = srv.Close() })
	return "http://" + ln.Addr().String() + u.Path, calls
}

// attackQuotaLoop: an agent in a loop calls a paid service over and over with the person's key.
// With the service limited on its deck, no more calls than the limit reach the service, and
// the agent is told to stop, with when to retry.
func attackQuotaLoop(t *testing.T) {
	s := startMCPStack(t, mcpStackOptions{})
	paid, reached := tallyProxy(t, startHTTPPeer(t))
	fx := s.seedDeck(t, "ops", paid)
	if a := s.api().Do(t, s.AdminToken, http.MethodPut, "/api/v1/decks/ops/services/"+fx.Service.Name+"/limits",
		map[string]any{"calls_per_minute": 5}); a.Status != http.StatusOK {
		t.Fatalf("limiting the paid service: %d %s", a.Status, a.Body)
	}
	m := s.connect(t, s.token(backend.ScopeAgent), nil, "")
	m.ok("bind_workspace", map[string]any{"workspaceRoot": "/srv/app", "deckId": "ops"}, nil)
	var last mcpToolError
	for range 25 {
		res := m.call("call_service_tool", map[string]any{"serviceId": fx.Service.Name, "toolName": "echo",
			"arguments": map[string]any{"message": "again"}})
		if res.IsError {
			var body struct {
				Error mcpToolError `json:"error"`
			}
			_ = jsonInto([]byte(mcpText(res)), &body)
			last = body.Error
		}
	}
	if n := reached.Load(); n > 5 {
		t.Errorf("%d calls reached the paid service, its limit on the deck is 5", n)
	}
	if last.Code != string(backend.CodeRateLimited) || !strings.Contains(last.Hint, "retry in") {
		t.Errorf("the looping agent was told %+v, want RATE_LIMITED with when to retry", last)
	}
}
