package mcptools

import (
	"net/http"
	"net/http/httptest"
	"testing"
)

// TestResultJSONResponse holds issue 9 item 2: a plain JSON answer is held and sent in one piece
// with its length; streams, flushes and other statuses pass through as they come.
func TestResultJSONResponse(t *testing.T) {
	tests := []struct {
		name        string
		contentType string
		status      int
		flush       bool
		wantHeld    bool // nothing reaches the client before finish
		wantLength  bool // sent with a Content-Length
	}{
		{"JSON answer", "application/json", http.StatusOK, false, true, true},
		{"SSE stream", "text/event-stream", http.StatusOK, false, false, false},
		{"JSON answer that flushes", "application/json", http.StatusOK, true, false, false},
		{"accepted notification", "application/json", http.StatusAccepted, false, false, false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			rec := httptest.NewRecorder()
			j := newJSONResponse(rec, &bufferPool{})
			j.Header().Set("Content-Type", tc.contentType)
			j.WriteHeader(tc.status)
			for _, part := range []string{`{"jsonrpc":"2.0",`, `"id":1,`, `"result":{}}`} {
				if _, err := j.Write([]byte(part)); err != nil {
					t.Fatal(err)
				}
				if tc.flush {
					j.Flush()
				}
			}
			if held := rec.Body.Len() == 0; held != tc.wantHeld {
				t.Errorf("held before finish = %v, want %v", held, tc.wantHeld)
			}
			j.finish()
			const body = `{"jsonrpc":"2.0","id":1,"result":{}}`
			if rec.Code != tc.status || rec.Body.String() != body {
				t.Errorf("got %d %q, want %d %q", rec.Code, rec.Body.String(), tc.status, body)
			}
			if got := rec.Header().Get("Content-Length") != ""; got != tc.wantLength {
				t.Errorf("Content-Length set = %v, want %v", got, tc.wantLength)
			}
		})
	}
}
