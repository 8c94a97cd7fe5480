package mcptools

import (
	"context"
	"encoding/json"
	"testing"
	"time"
)

// TestAskEndsWithItsSession: a request waiting for a client is refused as soon as its session
// ends, not when the downstream gives up; another session's end or answer does not touch it,
// and once refused, a late answer finds nothing.
func TestAskEndsWithItsSession(t *testing.T) {
	a := newAsks(nil)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	sent := make(chan string, 1)
	done := make(chan error, 1)
	go func() {
		_, err := a.ask(ctx, "session-a", func(id string) error { sent <- id; return nil })
		done <- err
	}()
	id := <-sent
	answer := json.RawMessage(`{"jsonrpc":"2.0","id":"` + id + `","result":{}}`)
	a.sessionEnded("session-b")
	if a.deliver("session-b", id, answer) {
		t.Fatal("another session's answer was taken")
	}
	select {
	case err := <-done:
		t.Fatalf("the request ended with another session: %v", err)
	default:
	}
	a.sessionEnded("session-a")
	select {
	case err := <-done:
		if err != errSessionEnded {
			t.Errorf("refused with %v, want %v", err, errSessionEnded)
		}
	case <-ctx.Done():
		t.Fatal("the request still waits after its session ended")
	}
	if a.deliver("session-a", id, answer) {
		t.Error("an answer after the session ended was taken")
	}
}
