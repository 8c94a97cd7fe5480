package tests

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/agent-deck/agent-deck/backend"
	"github.com/agent-deck/agent-deck/backend/postgres/pgtest"
	"github.com/agent-deck/agent-deck/cli"
)

// restDeck is a whole deck server started by cli.Start on a random port, driven over REST.
type restDeck struct {
	srv  *cli.Server
	logs *syncBuffer

	mu     sync.Mutex
	bodies [][]byte // every response body, for secret scans
}

func startRESTDeck(t testing.TB) *restDeck {
	t.Helper()
	logs := &syncBuffer{}
	srv, err := cli.Start(context.Background(), cli.ServeConfig{
		Home:        t.TempDir(),
		Addr:        "127.0.0.1:0",
		DatabaseURL: pgtest.NewDB(t),
		Profile:     "standard",
		Logger:      slog.New(slog.NewJSONHandler(logs, &slog.HandlerOptions{Level: slog.LevelDebug})),
	})
	if err != nil {
		t.Fatalf("cli.Start: %v", err)
	}
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 15*time.Second)
		defer cancel()
		if err := srv.Close(ctx); err != nil {
			t.Errorf("closing the deck: %v", err)
		}
	})
	return &restDeck{srv: srv, logs: logs}
}

// restAnswer is an HTTP answer of the REST API.
type restAnswer struct {
	Status int
	Body   []byte
}

// Err decodes an error body.
func (a restAnswer) Err() (code backend.Code, message string, details map[string]any) {
	var e struct {
		Error struct {
			Code    backend.Code   `json:"code"`
			Message string         `json:"message"`
			Details map[string]any `json:"details"`
		} `json:"error"`
	}
	_ = json.Unmarshal(a.Body, &e)
	return e.Error.Code, e.Error.Message, e.Error.Details
}

// call sends a request with token; body is nil, a string sent as is, or a value to encode.
func (d *restDeck) call(t testing.TB, token, method, path string, body any) restAnswer {
	t.Helper()
	a := restRequest(t, d.srv.URL(), token, method, path, body)
	d.mu.Lock()
	d.bodies = append(d.bodies, a.Body)
	d.mu.Unlock()
	return a
}

// restRequest sends one request to the server at base with token (none when empty); body is
// nil, a string sent as is, or a value to encode as JSON.
func restRequest(t testing.TB, base, token, method, path string, body any) restAnswer {
	t.Helper()
	var rd io.Reader
	switch b := body.(type) {
	case nil:
	case string:
		rd = strings.NewReader(b)
	default:
		enc, err := json.Marshal(b)
		if err != nil {
			t.Fatal(err)
		}
		rd = bytes.NewReader(enc)
	}
	req, err := http.NewRequest(method, base+path, rd)
	if err != nil {
		t.Fatal(err)
	}
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatalf("%s %s: %v", method, path, err)
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return restAnswer{Status: resp.StatusCode, Body: data}
}

// admin sends a request as admin, checks the status and decodes the answer into out.
func (d *restDeck) admin(t testing.TB, want int, method, path string, body, out any) restAnswer {
	t.Helper()
	a := d.call(t, d.srv.AdminToken(), method, path, body)
	if a.Status != want {
		t.Fatalf("%s %s: status %d, want %d: %s", method, path, a.Status, want, a.Body)
	}
	if out != nil {
		if err := json.Unmarshal(a.Body, out); err != nil {
			t.Fatalf("%s %s: decoding %s: %v", method, path, a.Body, err)
		}
	}
	return a
}
