package mcptools

import (
	"bytes"
	"errors"
	"net/http"
	"strconv"
	"strings"
	"sync"
)

// maxBufferedResponse is the largest JSON answer sent in one piece; a larger one streams on.
const maxBufferedResponse = 1 << 20

// bufferPool reuses response buffers between requests: most answers are a few KB, a bound
// deck about 20 KB.
type bufferPool struct{ pool sync.Pool }

func (p *bufferPool) get() *bytes.Buffer {
	if b, ok := p.pool.Get().(*bytes.Buffer); ok {
		return b
	}
	return new(bytes.Buffer)
}

func (p *bufferPool) put(b *bytes.Buffer) {
	if b.Cap() <= 256<<10 {
		b.Reset()
		p.pool.Put(b)
	}
}

// errStreamGone refuses a message for a POST whose answer is written already, or is not a stream.
var errStreamGone = errors.New("the call's response stream is closed")

// jsonResponse is the writer of one POST's answer. It holds a plain JSON answer (not an SSE
// stream) until the handler returns, then sends it with a Content-Length in one write. Encoded
// piecewise, a bound deck went out as HTTP chunks of 2–4 KB, one write system call each, and the
// client was woken for each. Anything else (SSE streams, a flush, a non-200 status, an answer
// over maxBufferedResponse) passes through from that point on.
//
// It is also the call's own stream for the requests Agent Deck sends the client during the call
// (send, asks.go): the first one turns the answer into an SSE stream if mcp-go has not, and the
// JSON answer mcp-go then writes goes out as the stream's last event. Every method holds mu:
// mcp-go and the relay write from different goroutines. mcp-go sets its headers in a map of its
// own (hdr), copied out when it writes its header, so a send never reads a map mcp-go writes.
type jsonResponse struct {
	http.ResponseWriter
	buffers *bufferPool
	hdr     http.Header

	mu      sync.Mutex
	ctype   string        // the Content-Type of the answer as sent
	status  int           // held while buf is in use
	buf     *bytes.Buffer // non-nil while holding a JSON answer
	through bool          // passing everything through
	// own says the stream was opened by send: mcp-go's headers are not sent again, and its JSON
	// answer (wrapped) is held to go out as an event.
	own     bool
	wrapped []byte
	// mid says the last write ended inside an SSE event; sends wait for its end in queued.
	mid    bool
	queued [][]byte
	done   bool
}

func newJSONResponse(w http.ResponseWriter, buffers *bufferPool) *jsonResponse {
	return &jsonResponse{ResponseWriter: w, buffers: buffers, hdr: http.Header{}}
}

// Header is mcp-go's header map.
func (j *jsonResponse) Header() http.Header { return j.hdr }

// sendHeaderLocked copies mcp-go's headers out and sends them with code.
func (j *jsonResponse) sendHeaderLocked(code int) {
	out := j.ResponseWriter.Header()
	for k, v := range j.hdr {
		out[k] = v
	}
	j.ctype = out.Get("Content-Type")
	j.ResponseWriter.WriteHeader(code)
}

// WriteHeader holds a 200 JSON answer's header; anything else goes straight out.
func (j *jsonResponse) WriteHeader(code int) {
	j.mu.Lock()
	defer j.mu.Unlock()
	j.writeHeaderLocked(code)
}

func (j *jsonResponse) writeHeaderLocked(code int) {
	if j.own {
		if strings.HasPrefix(j.Header().Get("Content-Type"), "application/json") {
			j.wrapped = []byte{} // the answer comes as plain JSON: it becomes the last event
		}
		return
	}
	if j.through || j.buf != nil {
		if j.through {
			j.sendHeaderLocked(code)
		}
		return
	}
	if code == http.StatusOK && strings.HasPrefix(j.Header().Get("Content-Type"), "application/json") {
		j.status, j.buf = code, j.buffers.get()
		return
	}
	j.through = true
	j.sendHeaderLocked(code)
}

func (j *jsonResponse) Write(p []byte) (int, error) {
	j.mu.Lock()
	defer j.mu.Unlock()
	if j.own && j.wrapped != nil {
		j.wrapped = append(j.wrapped, p...)
		return len(p), nil
	}
	if !j.through && j.buf == nil {
		j.writeHeaderLocked(http.StatusOK)
	}
	if j.buf != nil && j.buf.Len()+len(p) > maxBufferedResponse {
		j.releaseLocked()
	}
	if j.buf != nil {
		return j.buf.Write(p)
	}
	n, err := j.ResponseWriter.Write(p)
	j.mid = len(p) > 0 && !bytes.HasSuffix(p, []byte("\n\n"))
	if !j.mid && len(j.queued) > 0 {
		for _, ev := range j.queued {
			_, _ = j.ResponseWriter.Write(ev)
		}
		j.queued = nil
	}
	return n, err
}

// send writes one message to the client as an SSE event on this POST's stream, opening the
// stream when the answer has not begun; it fails when the answer is written already.
func (j *jsonResponse) send(msg []byte) error {
	ev := make([]byte, 0, len(msg)+len(eventPrefix)+2)
	ev = append(ev, eventPrefix...)
	ev = append(ev, msg...)
	ev = append(ev, "\n\n"...)
	j.mu.Lock()
	defer j.mu.Unlock()
	switch {
	case j.done:
		return errStreamGone
	case j.buf != nil:
		// The JSON answer is being held: it goes out as the stream's last event instead.
		j.wrapped = append([]byte{}, j.buf.Bytes()...)
		j.buffers.put(j.buf)
		j.buf = nil
		j.openStreamLocked()
	case !j.through:
		j.openStreamLocked()
	case !j.own && !strings.HasPrefix(j.ctype, "text/event-stream"):
		return errStreamGone // a large plain answer is streaming out
	}
	if j.mid {
		j.queued = append(j.queued, ev)
		return nil
	}
	if _, err := j.ResponseWriter.Write(ev); err != nil {
		return err
	}
	if f, ok := j.ResponseWriter.(http.Flusher); ok {
		f.Flush()
	}
	return nil
}

// openStreamLocked turns the answer into an SSE stream: mcp-go's own headers are not sent.
func (j *jsonResponse) openStreamLocked() {
	h := j.ResponseWriter.Header()
	h.Set("Content-Type", "text/event-stream")
	h.Set("Cache-Control", "no-cache")
	h.Set("Connection", "keep-alive")
	h.Del("Content-Length")
	j.ctype = "text/event-stream"
	j.ResponseWriter.WriteHeader(http.StatusOK)
	j.through, j.own = true, true
}

// Flush sends what is held and passes everything through from now on (a stream began).
func (j *jsonResponse) Flush() {
	j.mu.Lock()
	defer j.mu.Unlock()
	j.releaseLocked()
	if f, ok := j.ResponseWriter.(http.Flusher); ok {
		f.Flush()
	}
}

// Unwrap lets http.ResponseController reach the connection (write deadlines).
func (j *jsonResponse) Unwrap() http.ResponseWriter { return j.ResponseWriter }

// releaseLocked sends the held header and bytes without a length and switches to pass-through.
func (j *jsonResponse) releaseLocked() {
	if j.buf == nil {
		j.through = true
		return
	}
	buf := j.buf
	j.buf, j.through = nil, true
	j.sendHeaderLocked(j.status)
	_, _ = j.ResponseWriter.Write(buf.Bytes())
	j.buffers.put(buf)
}

// answer sends the fast path's JSON answer (fastpath.go), as the transport's would go out: in
// one write with its length, or, when send has turned the answer into an SSE stream, as the
// stream's last event. Nothing is sent on this stream after it.
func (j *jsonResponse) answer(body []byte) {
	j.mu.Lock()
	defer j.mu.Unlock()
	j.done = true
	for _, ev := range j.queued {
		_, _ = j.ResponseWriter.Write(ev)
	}
	j.queued = nil
	if j.own {
		if t := bytes.TrimSpace(body); len(t) > 0 {
			ev := make([]byte, 0, len(t)+len(eventPrefix)+2)
			ev = append(append(append(ev, eventPrefix...), t...), "\n\n"...)
			_, _ = j.ResponseWriter.Write(ev)
		}
		return
	}
	h := j.ResponseWriter.Header()
	h.Set("Content-Type", "application/json")
	h.Set("Content-Length", strconv.Itoa(len(body)))
	j.ResponseWriter.WriteHeader(http.StatusOK)
	_, _ = j.ResponseWriter.Write(body)
}

// close ends the stream unanswered (the client is gone): later messages go elsewhere.
func (j *jsonResponse) close() {
	j.mu.Lock()
	defer j.mu.Unlock()
	j.done = true
}

// eventPrefix starts every SSE event Agent Deck writes.
const eventPrefix = "event: message\ndata: "

// finish sends a held answer in one piece, with its length, or as the last event of a stream
// send opened.
func (j *jsonResponse) finish() {
	j.mu.Lock()
	defer j.mu.Unlock()
	j.done = true
	for _, ev := range j.queued {
		_, _ = j.ResponseWriter.Write(ev)
	}
	j.queued = nil
	if j.own && len(bytes.TrimSpace(j.wrapped)) > 0 {
		ev := append([]byte(eventPrefix), bytes.TrimSpace(j.wrapped)...)
		_, _ = j.ResponseWriter.Write(append(ev, "\n\n"...))
		j.wrapped = nil
		return
	}
	if j.buf == nil {
		return
	}
	buf := j.buf
	j.buf, j.through = nil, true
	j.hdr.Set("Content-Length", strconv.Itoa(buf.Len()))
	j.sendHeaderLocked(j.status)
	_, _ = j.ResponseWriter.Write(buf.Bytes())
	j.buffers.put(buf)
}
