package proxy

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"io"
)

// logTap reads the SSE answer of one Streamable HTTP call and takes the downstream's log
// messages (notifications/message) off it, handing each to onLog: on the call's own stream they
// belong to that call, which mcp-go's transport cannot say (it hands notifications over without
// their stream). Every other event passes through byte for byte.
type logTap struct {
	br    *bufio.Reader
	rc    io.Closer
	onLog func(params json.RawMessage)
	out   []byte // what is ready to be read
	event []byte // the event being gathered
	err   error  // the read error, returned once out is drained
}

var logMethod = []byte(`"notifications/message"`)

func newLogTap(rc io.ReadCloser, onLog func(json.RawMessage)) *logTap {
	return &logTap{br: bufio.NewReaderSize(rc, 16<<10), rc: rc, onLog: onLog}
}

func (t *logTap) Read(p []byte) (int, error) {
	for len(t.out) == 0 {
		if t.err != nil {
			return 0, t.err
		}
		t.fill()
	}
	n := copy(p, t.out)
	t.out = t.out[n:]
	return n, nil
}

// fill gathers lines up to the end of the next event and queues it, unless it is a log message.
func (t *logTap) fill() {
	line, err := t.br.ReadSlice('\n')
	for errors.Is(err, bufio.ErrBufferFull) { // a long data line: gather it whole
		t.event = append(t.event, line...)
		line, err = t.br.ReadSlice('\n')
	}
	t.event = append(t.event, line...)
	if err != nil {
		t.out, t.event, t.err = t.event, nil, err // pass a cut-off event on as it is
		return
	}
	if len(bytes.TrimRight(line, "\r\n")) > 0 {
		return // the event goes on
	}
	ev := t.event
	t.event = nil
	if bytes.Contains(ev, logMethod) {
		if params, ok := logParams(ev); ok {
			t.onLog(params)
			return
		}
	}
	t.out = ev
}

// logParams returns the params of an SSE event whose data is a notifications/message.
func logParams(ev []byte) (json.RawMessage, bool) {
	var data []byte
	for line := range bytes.Lines(ev) {
		line = bytes.TrimRight(line, "\r\n")
		if d, ok := bytes.CutPrefix(line, []byte("data:")); ok {
			if data != nil {
				data = append(data, '\n')
			}
			data = append(data, bytes.TrimPrefix(d, []byte(" "))...)
		}
	}
	var msg struct {
		ID     json.RawMessage `json:"id"`
		Method string          `json:"method"`
		Params json.RawMessage `json:"params"`
	}
	if json.Unmarshal(data, &msg) != nil || msg.ID != nil || msg.Method != "notifications/message" {
		return nil, false
	}
	return msg.Params, true
}

func (t *logTap) Close() error { return t.rc.Close() }
