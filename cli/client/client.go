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
}

// Options says which server to talk to. Empty Server means the local one, found through Home.
type Options struct {
	Home   string
	Server string
	Token  string
	// Timeout bounds each request; 0 means 30 s.
	Timeout time.Duration
}

// ServerInfo is what `serve` writes to <home>/server.json while it runs.
type ServerInfo struct {
	URL string `json:"url"`
	PID int    `json:"pid"`
	// Database (password redacted) and Profile are written by servers that report them.
	Database string `json:"database,omitempty"`
	Profile  string `json:"profile,omitempty"`
}

// ReadServerInfo reads <home>/server.json; ok is false when no server has written one.
func ReadServerInfo(home string) (ServerInfo, bool) {
	var info ServerInfo
	b, err := os.ReadFile(filepath.Join(home, "server.json"))
	if err != nil || json.Unmarshal(b, &info) != nil || info.URL == "" {
		return ServerInfo{}, false
	}
	return info, true
}

// New builds a client from options: an explicit server and token, or the local server's address
// and admin token from the data home.
func New(o Options) (*Client, error) {
	base := strings.TrimRight(o.Server, "/")
	token := o.Token
	if base == "" {
		base = DefaultURL
		if info, ok := ReadServerInfo(o.Home); ok {
			base = strings.TrimRight(info.URL, "/")
		}
		if token == "" && o.Home != "" {
			b, err := os.ReadFile(filepath.Join(o.Home, "admin.token"))
			if err == nil {
				token = strings.TrimSpace(string(b))
			}
		}
	}
	if u, err := url.Parse(base); err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return nil, backend.Errorf(backend.CodeInvalidArgument, "--server %q is not an http:// or https:// URL", base)
	}
	timeout := o.Timeout
	if timeout <= 0 {
		timeout = 30 * time.Second
	}
	return &Client{BaseURL: base, Token: token, HTTP: &http.Client{Timeout: timeout}}, nil
}

// UnreachableError means nothing answered at the server's address.
type UnreachableError struct {
	URL string
	Err error
}

func (e *UnreachableError) Error() string {
	return fmt.Sprintf("no server at %s — start it with `agent-deck serve`", e.URL)
}

func (e *UnreachableError) Unwrap() error { return e.Err }

// StatusError is an error answer of the server: the public form it sent (the hint is taken out
// of details.hint) and the HTTP status, which classifies a code this client does not know.
type StatusError struct {
	Status int
	Err    *backend.Error
}

func (e *StatusError) Error() string { return e.Err.Error() }

func (e *StatusError) Unwrap() error { return e.Err }

// errorBody is the REST error envelope: {"error":{"code","message","details":{"hint",…}}}.
type errorBody struct {
	Error struct {
		Code    backend.Code   `json:"code"`
		Message string         `json:"message"`
		Details map[string]any `json:"details"`
	} `json:"error"`
}

// Do sends one request to /api/v1+path with an optional JSON body and decodes a JSON answer
// into out (nil to ignore it). Error bodies come back as *backend.Error.
func (c *Client) Do(ctx context.Context, method, path string, query url.Values, in, out any) error {
	var body io.Reader
	if raw, ok := in.(json.RawMessage); ok {
		body = bytes.NewReader(raw)
	} else if in != nil {
		b, err := json.Marshal(in)
		if err != nil {
			return fmt.Errorf("encoding the request: %w", err)
		}
		body = bytes.NewReader(b)
	}
	u := c.BaseURL + "/api/v1" + path
	if len(query) > 0 {
		u += "?" + query.Encode()
	}
	req, err := http.NewRequestWithContext(ctx, method, u, body)
	if err != nil {
		return fmt.Errorf("building the request: %w", err)
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
		return c.transportError(err)
	}
	defer resp.Body.Close()
	if resp.StatusCode >= 300 {
		return decodeError(resp)
	}
	if out == nil {
		_, _ = io.Copy(io.Discard, resp.Body)
		return nil
	}
	if raw, ok := out.(*json.RawMessage); ok {
		b, err := io.ReadAll(resp.Body)
		*raw = b
		return err
	}
	if err := json.NewDecoder(resp.Body).Decode(out); err != nil {
		return backend.Internal("decoding the server's answer", err)
	}
	return nil
}

func (c *Client) transportError(err error) error {
	var op *net.OpError
	var dns *net.DNSError
	if errors.As(err, &op) || errors.As(err, &dns) || errors.Is(err, io.EOF) {
		return &UnreachableError{URL: c.BaseURL, Err: err}
	}
	var ue *url.Error
	if errors.As(err, &ue) && ue.Timeout() {
		return &backend.Error{Code: backend.CodeUnavailable, Message: "the server at " + c.BaseURL +
			" did not answer in time", Err: err}
	}
	if errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
		return err
	}
	return &UnreachableError{URL: c.BaseURL, Err: err}
}

func decodeError(resp *http.Response) error {
	b, _ := io.ReadAll(io.LimitReader(resp.Body, 1<<20))
	var eb errorBody
	if json.Unmarshal(b, &eb) == nil && eb.Error.Code != "" {
		e := &backend.Error{Code: eb.Error.Code, Message: eb.Error.Message, Details: eb.Error.Details}
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
