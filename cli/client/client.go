// Package client is the typed REST client every data command of the agent-deck CLI uses. It
// finds the local server from the data home (server.json, admin.token) unless a server URL and
// token are given, and turns error bodies back into *backend.Error.
package client

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/agent-deck/agent-deck/backend"
)

// DefaultURL is where a local server listens when server.json says nothing else.
const DefaultURL = "http://127.0.0.1:1110"

// Client calls one deck server's REST API with one bearer token.
type Client struct {
	// BaseURL is the server root, without /api/v1.
	BaseURL string
	Token   string
	HTTP    *http.Client
	// PageSize is how many items a list asks for per page; 0 means defaultPageSize.
	PageSize int
	// stopped: no server runs on the data home now; BaseURL is where the last one ran.
	stopped bool
	// foreign: the server was given (--server), is not this machine's own, and no token was; a
	// refusal then says which flag or variable to set.
	foreign bool
}

// Options says which server to talk to. Empty Server means the local one, found through Home.
type Options struct {
	Home   string
	Server string
	Token  string
	// Timeout bounds each request; 0 means 30 s.
	Timeout time.Duration
}

// ServerInfo is what `serve` writes to <home>/server.json while it runs (and to
// <home>/last-server.json, which stays after it stops).
type ServerInfo struct {
	URL string `json:"url"`
	PID int    `json:"pid"`
	// Database (password redacted) and Profile are written by servers that report them.
	Database string `json:"database,omitempty"`
	Profile  string `json:"profile,omitempty"`
}

// Files in the data home the client reads.
const (
	ServerInfoFile = "server.json"
	LastServerFile = "last-server.json"
	adminTokenFile = "admin.token"
)

// ReadServerInfo reads <home>/server.json; ok is false when no server has written one.
func ReadServerInfo(home string) (ServerInfo, bool) { return readInfo(home, ServerInfoFile) }

// ReadLastServer reads <home>/last-server.json, the address of the last server started on the
// home, kept after it stops so a client can say where it ran.
func ReadLastServer(home string) (ServerInfo, bool) { return readInfo(home, LastServerFile) }

func readInfo(home, name string) (ServerInfo, bool) {
	var info ServerInfo
	b, err := os.ReadFile(filepath.Join(home, name))
	if err != nil || json.Unmarshal(b, &info) != nil || info.URL == "" {
		return ServerInfo{}, false
	}
	return info, true
}

// New builds a client from options: an explicit server and token, or the local server's address
// and admin token from the data home. The local admin token goes to a given --server only when
// it is the server running on this home (its server.json URL), never to any other.
func New(o Options) (*Client, error) {
	base := strings.TrimRight(o.Server, "/")
	token := o.Token
	running, isRunning := ReadServerInfo(o.Home)
	stopped, foreign := false, false
	switch {
	case base == "" && isRunning:
		base = strings.TrimRight(running.URL, "/")
	case base == "":
		base = DefaultURL
		if last, ok := ReadLastServer(o.Home); ok {
			base, stopped = strings.TrimRight(last.URL, "/"), true
		}
	case token == "" && !(isRunning && SameServer(base, running.URL)):
		foreign = true
	}
	if token == "" && !foreign && o.Home != "" {
		if b, err := os.ReadFile(filepath.Join(o.Home, adminTokenFile)); err == nil {
			token = strings.TrimSpace(string(b))
		}
	}
	if u, err := url.Parse(base); err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return nil, backend.Errorf(backend.CodeInvalidArgument, "--server %q is not an http:// or https:// URL", base)
	}
	timeout := o.Timeout
	if timeout <= 0 {
		timeout = 30 * time.Second
	}
	return &Client{BaseURL: base, Token: token, HTTP: &http.Client{Timeout: timeout}, stopped: stopped,
		foreign: foreign}, nil
}

// SameServer reports whether two server URLs name the same scheme, host and port (case and a
// default port aside).
func SameServer(a, b string) bool {
	ua, erra := url.Parse(strings.TrimRight(a, "/"))
	ub, errb := url.Parse(strings.TrimRight(b, "/"))
	if erra != nil || errb != nil || ua.Host == "" {
		return false
	}
	return strings.EqualFold(ua.Scheme, ub.Scheme) && hostPort(ua) == hostPort(ub) && ua.Path == ub.Path
}

func hostPort(u *url.URL) string {
	port := u.Port()
	if port == "" {
		port = map[string]string{"http": "80", "https": "443"}[strings.ToLower(u.Scheme)]
	}
	return strings.ToLower(u.Hostname()) + ":" + port
}

// UnreachableError means nothing answered at the server's address. Stopped says the address is
// where the data home's last server ran, which has stopped since.
type UnreachableError struct {
	URL     string
	Stopped bool
	Err     error
}

func (e *UnreachableError) Error() string {
	if e.Stopped {
		return fmt.Sprintf("the server that ran at %s is not running; start it with `make run` or `agent-deck serve`", e.URL)
	}
	return fmt.Sprintf("no server at %s — start it with `agent-deck serve`", e.URL)
}

// StatusError is an error answer of the server: the public form it sent (the hint is taken out
// of details.hint) and the HTTP status, which classifies a code this client does not know.
type StatusError struct {
	Status int
	Err    *backend.Error
}

func (e *StatusError) Error() string { return e.Err.Error() }

func (e *StatusError) Unwrap() error { return e.Err }

// problem is the REST API's error answer, an RFC 9457 problem document: the code, detail,
// hint and details members. A server older than problem documents sent only the error object,
// which is read when code is absent.
type problem struct {
	Code    backend.Code   `json:"code"`
	Detail  string         `json:"detail"`
	Hint    string         `json:"hint"`
	Details map[string]any `json:"details"`
	Error   struct {
		Code    backend.Code   `json:"code"`
		Message string         `json:"message"`
		Details map[string]any `json:"details"`
	} `json:"error"`
}

// Do sends one request to /api/v1+path with an optional JSON body and decodes a JSON answer
// into out (nil to ignore it). Error bodies come back as *backend.Error.
func (c *Client) Do(ctx context.Context, method, path string, query url.Values, in, out any) error {
	u := c.BaseURL + "/api/v1" + path
	if len(query) > 0 {
		u += "?" + query.Encode()
	}
	_, err := c.send(ctx, method, u, in, out)
	return err
}

// send is Do for a whole URL; it returns the answer's headers.
func (c *Client) send(ctx context.Context, method, u string, in, out any) (http.Header, error) {
	var body io.Reader
	if raw, ok := in.(json.RawMessage); ok {
		body = bytes.NewReader(raw)
	} else if in != nil {
		b, err := json.Marshal(in)
		if err != nil {
			return nil, fmt.Errorf("encoding the request: %w", err)
		}
		body = bytes.NewReader(b)
	}
	req, err := http.NewRequestWithContext(ctx, method, u, body)
	if err != nil {
		return nil, fmt.Errorf("building the request: %w", err)
	}
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	req.Header.Set("Accept", "application/json")
	if c.Token != "" {
		req.Header.Set("Authorization", "Bearer "+c.Token)
	}
	resp, err := c.HTTP.Do(req)
	if err != nil {
		return nil, c.transportError(err)
	}
	defer resp.Body.Close()
	if resp.StatusCode >= 300 {
		return resp.Header, c.explain(decodeError(resp))
	}
	if out == nil {
		_, _ = io.Copy(io.Discard, resp.Body)
		return resp.Header, nil
	}
	if raw, ok := out.(*json.RawMessage); ok {
		b, err := io.ReadAll(resp.Body)
		*raw = b
		return resp.Header, err
	}
	if err := json.NewDecoder(resp.Body).Decode(out); err != nil {
		return resp.Header, backend.Internal("decoding the server's answer", err)
	}
	return resp.Header, nil
}

func (c *Client) transportError(err error) error {
	var op *net.OpError
	var dns *net.DNSError
	if errors.As(err, &op) || errors.As(err, &dns) || errors.Is(err, io.EOF) {
		return &UnreachableError{URL: c.BaseURL, Stopped: c.stopped, Err: err}
	}
	var ue *url.Error
	if errors.As(err, &ue) && ue.Timeout() {
		return &backend.Error{Code: backend.CodeUnavailable, Message: "the server at " + c.BaseURL +
			" did not answer in time", Err: err}
	}
	if errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
		return err
	}
	return &UnreachableError{URL: c.BaseURL, Stopped: c.stopped, Err: err}
}

// explain adds to a refused token what to set when no token was sent to a foreign server.
func (c *Client) explain(err error) error {
	var se *StatusError
	if !c.foreign || !errors.As(err, &se) || se.Status != http.StatusUnauthorized {
		return err
	}
	se.Err.Hint = "pass --token or set AGENT_DECK_TOKEN: the local admin token is only sent to " +
		"this machine's own server (the URL in <home>/server.json), not to " + c.BaseURL
	return err
}

func decodeError(resp *http.Response) error {
	b, _ := io.ReadAll(io.LimitReader(resp.Body, 1<<20))
	var p problem
	if json.Unmarshal(b, &p) == nil && p.Code != "" {
		e := &backend.Error{Code: p.Code, Message: p.Detail, Hint: p.Hint, Details: p.Details}
		return &StatusError{Status: resp.StatusCode, Err: e}
	}
	if p.Error.Code != "" {
		e := &backend.Error{Code: p.Error.Code, Message: p.Error.Message, Details: p.Error.Details}
		if hint, ok := e.Details["hint"].(string); ok {
			e.Hint = hint
			delete(e.Details, "hint")
		}
		return &StatusError{Status: resp.StatusCode, Err: e}
	}
	return &StatusError{Status: resp.StatusCode, Err: &backend.Error{Code: statusCode(resp.StatusCode),
		Message: fmt.Sprintf("the server answered %s", resp.Status)}}
}

// statusCode classifies an error status that came without an error body.
func statusCode(status int) backend.Code {
	switch status {
	case http.StatusBadRequest:
		return backend.CodeInvalidArgument
	case http.StatusUnauthorized:
		return backend.CodeUnauthenticated
	case http.StatusForbidden:
		return backend.CodeForbidden
	case http.StatusNotFound:
		return backend.CodeNotFound
	case http.StatusConflict:
		return backend.CodeConflict
	case http.StatusServiceUnavailable:
		return backend.CodeUnavailable
	}
	return backend.CodeInternal
}

// Ready asks /readyz whether the server and its database answer.
func (c *Client) Ready(ctx context.Context) error {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, c.BaseURL+"/readyz", nil)
	if err != nil {
		return err
	}
	resp, err := c.HTTP.Do(req)
	if err != nil {
		return c.transportError(err)
	}
	defer resp.Body.Close()
	_, _ = io.Copy(io.Discard, resp.Body)
	if resp.StatusCode != http.StatusOK {
		return &backend.Error{Code: backend.CodeUnavailable, Message: "the server is up but not ready: " + resp.Status}
	}
	return nil
}

func esc(s string) string { return url.PathEscape(s) }
