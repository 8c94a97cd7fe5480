// Package resttest is the REST client the tests of Agent Deck share: a request with a bearer
// token and a JSON body, its answer, and the coded error the API answers with. A client keeps
// every answer body it received, so that a test can scan them all for secrets. Only tests import
// it.
package resttest

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"runtime"
	"sync"
	"testing"

	"github.com/agent-deck/agent-deck/backend"
)

// Client sends requests to one server.
type Client struct {
	// URL is the server's base URL; a request's path is appended to it.
	URL string
	// Token is the bearer token Must sends ("" for none).
	Token string
	// HTTP sends the requests; nil means http.DefaultClient.
	HTTP *http.Client
	// Header is set on every request, before the request's own headers.
	Header http.Header

	mu     sync.Mutex
	bodies [][]byte
}

// New is a client of the server at url whose Must sends token.
func New(url, token string) *Client { return &Client{URL: url, Token: token} }

// Answer is an HTTP answer.
type Answer struct {
	Status int
	Header http.Header
	Body   []byte
}

// Problem is an error answer of the REST API: an RFC 9457 problem document with Agent Deck's
// code, hint and details.
type Problem struct {
	Type     string         `json:"type"`
	Title    string         `json:"title"`
	Status   int            `json:"status"`
	Detail   string         `json:"detail"`
	Instance string         `json:"instance"`
	Code     backend.Code   `json:"code"`
	Hint     string         `json:"hint"`
	Details  map[string]any `json:"details"`
}

// Problem decodes a problem document (the zero Problem for another body).
func (a Answer) Problem() Problem {
	var p Problem
	_ = json.Unmarshal(a.Body, &p)
	return p
}

// Err is the code, the detail (the message) and the details of a problem document; zero values
// for another body.
func (a Answer) Err() (code backend.Code, message string, details map[string]any) {
	p := a.Problem()
	return p.Code, p.Detail, p.Details
}

// Decode decodes the JSON body into out and fails the test when it cannot.
func (a Answer) Decode(t testing.TB, out any) {
	t.Helper()
	if err := json.Unmarshal(a.Body, out); err != nil {
		t.Fatalf("decoding the answer (status %d) %s: %v", a.Status, a.Body, err)
	}
}

// Do sends one request with token (no Authorization when empty). body is nil, a string or
// []byte sent as it is, or a value sent as JSON; a body that is not empty goes with Content-Type
// application/json. headers are name, value pairs, set last.
func (c *Client) Do(t testing.TB, token, method, path string, body any, headers ...string) Answer {
	t.Helper()
	var raw []byte
	switch b := body.(type) {
	case nil:
	case string:
		raw = []byte(b)
	case []byte:
		raw = b
	default:
		enc, err := json.Marshal(b)
		if err != nil {
			t.Fatal(err)
		}
		raw = enc
	}
	req, err := http.NewRequest(method, c.URL+path, bytes.NewReader(raw))
	if err != nil {
		t.Fatal(err)
	}
	if len(raw) > 0 {
		req.Header.Set("Content-Type", "application/json")
	}
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	for name, values := range c.Header {
		req.Header[name] = values
	}
	for i := 0; i+1 < len(headers); i += 2 {
		req.Header.Set(headers[i], headers[i+1])
	}
	hc := c.HTTP
	if hc == nil {
		hc = http.DefaultClient
	}
	resp, err := hc.Do(req)
	if err != nil {
		t.Fatalf("%s %s: %v", method, path, err)
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatalf("%s %s: reading the answer: %v", method, path, err)
	}
	c.mu.Lock()
	c.bodies = append(c.bodies, data)
	c.mu.Unlock()
	return Answer{Status: resp.StatusCode, Header: resp.Header, Body: data}
}

// Must sends a request with the client's token, fails the test unless the answer has status
// want, and decodes the body into out unless out is nil.
func (c *Client) Must(t testing.TB, want int, method, path string, body, out any) Answer {
	t.Helper()
	a := c.Do(t, c.Token, method, path, body)
	if a.Status != want {
		t.Fatalf("%s %s: status %d, want %d: %s", method, path, a.Status, want, a.Body)
	}
	if out != nil {
		a.Decode(t, out)
	}
	return a
}

// Bodies returns every answer body the client received, in order.
func (c *Client) Bodies() [][]byte {
	c.mu.Lock()
	defer c.mu.Unlock()
	return append([][]byte(nil), c.bodies...)
}

// ErrorBody is one error answer of the REST API as dashboard-api's golden file
// testdata/error_bodies.golden.json pins it: what the server really sends, for the tests of its
// clients to read back.
type ErrorBody struct {
	Status int             `json:"status"`
	Body   json.RawMessage `json:"body"`
}

// ServerErrorBodies reads the REST API's golden error bodies, by case name.
func ServerErrorBodies(t testing.TB) map[string]ErrorBody {
	t.Helper()
	_, here, _, ok := runtime.Caller(0)
	if !ok {
		t.Fatal("resttest: no source path to find dashboard-api/testdata from")
	}
	b, err := os.ReadFile(filepath.Join(filepath.Dir(here), "..", "..", "dashboard-api", "testdata", "error_bodies.golden.json"))
	if err != nil {
		t.Fatal(err)
	}
	var out map[string]ErrorBody
	if err := json.Unmarshal(b, &out); err != nil {
		t.Fatal(err)
	}
	return out
}
