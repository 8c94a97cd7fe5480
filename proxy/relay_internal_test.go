package proxy

import (
	"bufio"
	"context"
	"encoding/json"
	"io"
	"strings"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/client/transport"

	"github.com/agent-deck/agent-deck/backend"
)

// waitingRelay is an agent session whose client never answers: Request waits for its context.
type waitingRelay struct {
	asked     chan string
	cancelled chan struct{}
}

func (w *waitingRelay) SessionID() string                               { return "session-1" }
func (w *waitingRelay) Wants() backend.RelayWants                       { return backend.RelayWants{Elicitation: true} }
func (w *waitingRelay) ProgressToken() any                              { return nil }
func (w *waitingRelay) Notify(context.Context, string, json.RawMessage) {}
func (w *waitingRelay) Request(ctx context.Context, method string, _ json.RawMessage) (json.RawMessage, error) {
	w.asked <- method
	<-ctx.Done()
	close(w.cancelled)
	return nil, ctx.Err()
}

// TestSharedConnDownstreamCancels: the shared connection declares every capability a session
// may have, and a downstream that cancels its own elicitation request (notifications/cancelled)
// ends the agent-side request it caused and is told it was cancelled.
func TestSharedConnDownstreamCancels(t *testing.T) {
	p := New(Options{})
	t.Cleanup(func() { _ = p.Close(context.Background()) })
	s := newService(p, "svc-1", "svc")
	relay := &waitingRelay{asked: make(chan string, 1), cancelled: make(chan struct{})}
	c := newConn(s, backend.Target{Type: backend.ServiceLocal}, "fp")
	leave, err := c.floor.enter(context.Background(), relay, false)
	if err != nil {
		t.Fatal(err)
	}
	defer leave()

	toProxy, fromServer := io.Pipe()
	toServer, fromProxy := io.Pipe()
	t.Cleanup(func() { fromServer.Close(); fromProxy.Close() })
	lines := make(chan string, 16)
	go func() { // the downstream: answer initialize, read everything else
		sc := bufio.NewScanner(toServer)
		for sc.Scan() {
			line := sc.Text()
			if strings.Contains(line, `"method":"initialize"`) {
				lines <- line
				_, _ = io.WriteString(fromServer, `{"jsonrpc":"2.0","id":`+idOf(line)+`,"result":{"protocolVersion":"2025-11-25","capabilities":{},"serverInfo":{"name":"fake","version":"1"}}}`+"\n")
				continue
			}
			lines <- line
		}
	}()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	if err := c.handshake(ctx, transport.NewIO(toProxy, fromProxy, io.NopCloser(strings.NewReader("")))); err != nil {
		t.Fatal(err)
	}
	// Whatever the sessions declare, the connection declares elicitation, sampling and roots.
	if init := <-lines; !strings.Contains(init, `"elicitation":{`) || !strings.Contains(init, `"sampling":{`) ||
		!strings.Contains(init, `"roots":{"listChanged":true}`) {
		t.Errorf("the connection's initialize declared %s", init)
	}
	if note := <-lines; !strings.Contains(note, "notifications/initialized") {
		t.Fatalf("after initialize the proxy sent %s", note)
	}
	_, _ = io.WriteString(fromServer, `{"jsonrpc":"2.0","id":"e1","method":"elicitation/create","params":{"message":"q","requestedSchema":{"type":"object"}}}`+"\n")
	select {
	case m := <-relay.asked:
		if m != "elicitation/create" {
			t.Fatalf("the agent was asked %s", m)
		}
	case <-ctx.Done():
		t.Fatal("the elicitation never reached the agent session")
	}
	_, _ = io.WriteString(fromServer, `{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":"e1","reason":"gave up"}}`+"\n")
	select {
	case <-relay.cancelled:
	case <-ctx.Done():
		t.Fatal("the downstream's cancellation did not reach the agent-side request")
	}
	for {
		select {
		case line := <-lines:
			if strings.Contains(line, `"id":"e1"`) {
				if !strings.Contains(line, "the request was cancelled") {
					t.Errorf("the downstream got %s", line)
				}
				return
			}
		case <-ctx.Done():
			t.Fatal("the downstream got no answer to its cancelled request")
		}
	}
}

// idOf returns the raw JSON id of a request line.
func idOf(line string) string {
	var m struct {
		ID json.RawMessage `json:"id"`
	}
	_ = json.Unmarshal([]byte(line), &m)
	return string(m.ID)
}
