package tests

import (
	"bytes"
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/agent-deck/agent-deck/backend/postgres/pgtest"
	"github.com/agent-deck/agent-deck/cli"
)

// TestAuditLogFormat: `serve --log-format json` writes one JSON object per line for log
// shippers; text stays the default; anything else is refused naming the accepted values.
func TestAuditLogFormat(t *testing.T) {
	t.Run("json", func(t *testing.T) {
		lines := serveLogLines(t, "--log-format", "json")
		for _, l := range lines {
			var rec map[string]any
			if err := json.Unmarshal([]byte(l), &rec); err != nil || rec["msg"] == nil || rec["level"] == nil {
				t.Errorf("not a JSON log record: %q", l)
			}
		}
	})
	t.Run("environment", func(t *testing.T) {
		t.Setenv("AGENT_DECK_LOG_FORMAT", "json")
		for _, l := range serveLogLines(t) {
			if !json.Valid([]byte(l)) {
				t.Errorf("AGENT_DECK_LOG_FORMAT=json: not JSON: %q", l)
			}
		}
	})
	t.Run("text by default", func(t *testing.T) {
		for _, l := range serveLogLines(t) {
			if json.Valid([]byte(l)) || !strings.Contains(l, "msg=") {
				t.Errorf("not a text log line: %q", l)
			}
		}
	})
	t.Run("unknown format", func(t *testing.T) {
		var out, errb bytes.Buffer
		code := cli.Run(context.Background(), []string{"agent-deck", "--home", t.TempDir(), "serve",
			"--addr", "127.0.0.1:0", "--log-format", "xml"}, nil, &out, &errb)
		if code == 0 || !strings.Contains(errb.String(), "expected text or json") {
			t.Errorf("exit %d, stderr %q", code, errb.String())
		}
	})
}

// serveLogLines runs `agent-deck serve` in process until it is ready and returns its log lines.
func serveLogLines(t *testing.T, flags ...string) []string {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	logs := &syncBuffer{}
	args := append([]string{"agent-deck", "--home", t.TempDir(), "serve", "--addr", "127.0.0.1:0",
		"--database-url", pgtest.NewDB(t)}, flags...)
	done := make(chan int, 1)
	go func() { done <- cli.Run(ctx, args, nil, &bytes.Buffer{}, logs) }()
	deadline := time.Now().Add(60 * time.Second)
	for !strings.Contains(logs.String(), "agent deck ready") {
		select {
		case code := <-done:
			t.Fatalf("serve ended with %d before it was ready: %s", code, logs.String())
		default:
		}
		if time.Now().After(deadline) {
			t.Fatalf("serve not ready: %s", logs.String())
		}
		time.Sleep(20 * time.Millisecond)
	}
	cancel()
	if code := <-done; code != 0 {
		t.Errorf("serve exited %d: %s", code, logs.String())
	}
	return strings.Split(strings.TrimSpace(logs.String()), "\n")
}
