package tests

import (
	"io"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/agent-deck/agent-deck/cli"
	"github.com/agent-deck/agent-deck/tests/resttest"
)

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
	api := &resttest.Client{URL: srv.URL(), HTTP: &http.Client{Timeout: frontDoorWait}}
	for i := 0; i < 2000; i++ {
		api.Do(t, "", "X"+strings.ToUpper(randHex(6)), "/api/v1/decks", nil)
	}
	body := api.Do(t, srv.AdminToken(), "GET", "/metrics", nil).Body
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
