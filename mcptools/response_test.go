package mcptools

import (
	"net/http"
	"net/http/httptest"
	"testing"
)

// TestCallStreamSend: a message Agent Deck sends during a call turns the answer into an SSE
// stream, whatever mcp-go has written so far, and never lands inside one of mcp-go's events;
// after the answer it is refused.
func TestCallStreamSend(t *testing.T) {
	const ask = `{"jsonrpc":"2.0","id":"adk-r-1","method":"roots/list"}`
	const answer = `{"jsonrpc":"2.0","id":1,"result":{}}`
	writeJSON := func(j *jsonResponse) {
		j.Header().Set("Content-Type", "application/json")
		j.WriteHeader(http.StatusOK)
		_, _ = j.Write([]byte(answer + "\n"))
	}
	event := func(msg string) string { return "event: message\ndata: " + msg + "\n\n" }
	tests := []struct {
		name string
		run  func(j *jsonResponse)
		want string
	}{
		{"before mcp-go writes", func(j *jsonResponse) {
			if err := j.send([]byte(ask)); err != nil {
				t.Fatal(err)
			}
			writeJSON(j)
		}, event(ask) + event(answer)},
		{"while mcp-go holds its JSON answer", func(j *jsonResponse) {
			writeJSON(j)
			if err := j.send([]byte(ask)); err != nil {
				t.Fatal(err)
			}
		}, event(ask) + event(answer)},
		{"between mcp-go's event id and its event", func(j *jsonResponse) {
			j.Header().Set("Content-Type", "text/event-stream")
			j.WriteHeader(http.StatusOK)
			_, _ = j.Write([]byte("id: 7\n"))
			if err := j.send([]byte(ask)); err != nil {
				t.Fatal(err)
			}
			_, _ = j.Write([]byte(event(answer)))
		}, "id: 7\n" + event(answer) + event(ask)},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			rec := httptest.NewRecorder()
			j := newJSONResponse(rec, &bufferPool{})
			tc.run(j)
			j.finish()
			if got := rec.Body.String(); got != tc.want {
				t.Errorf("wrote %q, want %q", got, tc.want)
			}
			if ct := rec.Result().Header.Get("Content-Type"); ct != "text/event-stream" {
				t.Errorf("Content-Type %q", ct)
			}
			if err := j.send([]byte(ask)); err != errStreamGone {
				t.Errorf("send after the answer: %v", err)
			}
		})
	}
	// A plain answer with nothing sent stays one JSON body with its length.
	rec := httptest.NewRecorder()
	j := newJSONResponse(rec, &bufferPool{})
	writeJSON(j)
	j.finish()
	if rec.Body.String() != answer+"\n" || rec.Header().Get("Content-Length") == "" {
		t.Errorf("plain answer: %q %v", rec.Body.String(), rec.Header())
	}
}
