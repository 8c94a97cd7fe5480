package proxy

import (
	"encoding/json"
	"io"
	"strings"
	"testing"
)

// TestLogTap: the log messages of a call's SSE answer are handed over and taken off the stream;
// every other event passes byte for byte, a long one and a cut-off last one included.
func TestLogTap(t *testing.T) {
	long := strings.Repeat("x", 40<<10)
	in := "id: 1\nevent: message\ndata: {\"jsonrpc\":\"2.0\",\"method\":\"notifications/progress\",\"params\":{\"progress\":1}}\n\n" +
		"event: message\ndata: {\"jsonrpc\":\"2.0\",\"method\":\"notifications/message\",\"params\":{\"level\":\"info\",\"data\":\"hi\"}}\n\n" +
		"event: message\r\ndata: {\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{\"text\":\"" + long + "\"}}\r\n\r\n" +
		"data: {\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"notifications/message\"}\n\n" +
		"data: cut"
	var logs []string
	tap := newLogTap(io.NopCloser(strings.NewReader(in)), func(p json.RawMessage) { logs = append(logs, string(p)) })
	out, err := io.ReadAll(tap)
	if err != nil {
		t.Fatal(err)
	}
	want := strings.Replace(in, "event: message\ndata: {\"jsonrpc\":\"2.0\",\"method\":\"notifications/message\",\"params\":{\"level\":\"info\",\"data\":\"hi\"}}\n\n", "", 1)
	if string(out) != want {
		t.Errorf("stream changed beyond the log message:\n%.300q", out)
	}
	if len(logs) != 1 || logs[0] != `{"level":"info","data":"hi"}` {
		t.Errorf("logs handed over: %v", logs)
	}
}
