package proxy_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"sync"
	"testing"
	"time"

	"github.com/agent-deck/agent-deck/backend"
	"github.com/agent-deck/agent-deck/proxy"
	"github.com/agent-deck/agent-deck/tests/peertest"
)

// logBuffer collects a proxy's log output so tests can search it.
type logBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (l *logBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.buf.Write(p)
}

func (l *logBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.buf.String()
}

// newProxy returns a proxy with debug logging into the returned buffer, closed at test end.
func newProxy(t *testing.T, opts proxy.Options) (*proxy.Proxy, *logBuffer) {
	t.Helper()
	logs := &logBuffer{}
	opts.Logger = slog.New(slog.NewTextHandler(logs, &slog.HandlerOptions{Level: slog.LevelDebug}))
	if opts.Home == "" {
		opts.Home = t.TempDir()
	}
	if opts.ConnectTimeout == 0 {
		opts.ConnectTimeout = 5 * time.Second
	}
	p := proxy.New(opts)
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		if err := p.Close(ctx); err != nil {
			t.Errorf("close proxy: %v", err)
		}
	})
	return p, logs
}

var serial struct {
	mu sync.Mutex
	n  int
}

// uniqueID returns a fresh service id (and env marker value) per call.
func uniqueID(prefix string) string {
	serial.mu.Lock()
	defer serial.mu.Unlock()
	serial.n++
	return fmt.Sprintf("%s-%d-%d", prefix, time.Now().UnixNano(), serial.n)
}

// localTarget is a local-mcp service running the peer over stdio. Its processes carry the
// returned marker in their env, so tests can find them.
func localTarget(t testing.TB, args ...string) (backend.Target, string) {
	t.Helper()
	id := uniqueID("local")
	marker := "PEER_MARKER=" + id
	return backend.Target{
		ServiceID: id, ServiceName: "peer-stdio", Type: backend.ServiceLocal,
		LocalCommand: peertest.Build(t), LocalArgs: append([]string{"-transport", "stdio"}, args...),
		LocalEnv: map[string]string{"PEER_MARKER": id}, Revision: "1",
	}, marker
}

// remoteTarget is an mcp service at url.
func remoteTarget(url string, tr backend.Transport) backend.Target {
	return backend.Target{
		ServiceID: uniqueID("remote"), ServiceName: "peer-" + string(tr), Type: backend.ServiceRemote,
		URL: url, Transport: tr, Revision: "1",
	}
}

// callResult is a decoded CallToolResult.
type callResult struct {
	Content []struct {
		Type     string `json:"type"`
		Text     string `json:"text"`
		Data     string `json:"data"`
		MimeType string `json:"mimeType"`
	} `json:"content"`
	StructuredContent json.RawMessage `json:"structuredContent"`
	IsError           bool            `json:"isError"`
}

func call(t *testing.T, p *proxy.Proxy, tg backend.Target, tool string, args any) (callResult, backend.CallResult) {
	t.Helper()
	res, err := tryCall(context.Background(), p, tg, tool, args)
	if err != nil {
		t.Fatalf("call %s: %v", tool, err)
	}
	var out callResult
	if err := json.Unmarshal(res.Raw, &out); err != nil {
		t.Fatalf("decode result of %s: %v\n%s", tool, err, res.Raw)
	}
	return out, res
}

func tryCall(ctx context.Context, p *proxy.Proxy, tg backend.Target, tool string, args any) (backend.CallResult, error) {
	var raw json.RawMessage
	switch a := args.(type) {
	case nil:
	case json.RawMessage:
		raw = a
	case string:
		raw = json.RawMessage(a)
	default:
		raw, _ = json.Marshal(a)
	}
	return p.CallTool(ctx, tg, tool, raw)
}

// wantCode fails unless err is a *backend.Error with code.
func wantCode(t testing.TB, err error, code backend.Code) *backend.Error {
	t.Helper()
	var be *backend.Error
	if !errors.As(err, &be) {
		t.Fatalf("error = %v, want a *backend.Error with code %s", err, code)
	}
	if be.Code != code {
		t.Fatalf("code = %s (%s), want %s", be.Code, be.Message, code)
	}
	return be
}

// pidOf asks the peer for its pid.
func pidOf(t *testing.T, p *proxy.Proxy, tg backend.Target) string {
	t.Helper()
	res, _ := call(t, p, tg, "pid", nil)
	return res.Content[0].Text
}
