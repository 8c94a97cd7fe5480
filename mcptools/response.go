package mcptools

import (
	"bytes"
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

// jsonResponse holds a plain JSON answer (not an SSE stream) until the handler returns, then
// sends it with a Content-Length in one write. Encoded piecewise, a bound deck went out as
// HTTP chunks of 2–4 KB, one write system call each, and the client was woken for each.
// Anything else (SSE streams, a flush, a non-200 status, an answer over maxBufferedResponse)
// passes through untouched from that point on.
type jsonResponse struct {
	http.ResponseWriter
	buffers *bufferPool
	status  int           // held while buf is in use
	buf     *bytes.Buffer // non-nil while holding a JSON answer
	through bool          // passing everything through
}

// WriteHeader holds a 200 JSON answer's header; anything else goes straight out.
func (j *jsonResponse) WriteHeader(code int) {
	if j.through || j.buf != nil {
		if j.through {
			j.ResponseWriter.WriteHeader(code)
		}
		return
	}
	if code == http.StatusOK && strings.HasPrefix(j.Header().Get("Content-Type"), "application/json") {
		j.status, j.buf = code, j.buffers.get()
		return
	}
	j.through = true
	j.ResponseWriter.WriteHeader(code)
}

func (j *jsonResponse) Write(p []byte) (int, error) {
	if !j.through && j.buf == nil {
		j.WriteHeader(http.StatusOK)
	}
	if j.buf != nil && j.buf.Len()+len(p) > maxBufferedResponse {
		j.release()
	}
	if j.buf != nil {
		return j.buf.Write(p)
	}
	return j.ResponseWriter.Write(p)
}

// Flush sends what is held and passes everything through from now on (a stream began).
func (j *jsonResponse) Flush() {
	j.release()
	if f, ok := j.ResponseWriter.(http.Flusher); ok {
		f.Flush()
	}
}

// Unwrap lets http.ResponseController reach the connection (write deadlines).
func (j *jsonResponse) Unwrap() http.ResponseWriter { return j.ResponseWriter }

// release sends the held header and bytes without a length and switches to pass-through.
func (j *jsonResponse) release() {
	if j.buf == nil {
		j.through = true
		return
	}
	buf := j.buf
	j.buf, j.through = nil, true
	j.ResponseWriter.WriteHeader(j.status)
	_, _ = j.ResponseWriter.Write(buf.Bytes())
	j.buffers.put(buf)
}

// finish sends a held answer in one piece, with its length.
func (j *jsonResponse) finish() {
	if j.buf == nil {
		return
	}
	buf := j.buf
	j.buf, j.through = nil, true
	j.Header().Set("Content-Length", strconv.Itoa(buf.Len()))
	j.ResponseWriter.WriteHeader(j.status)
	_, _ = j.ResponseWriter.Write(buf.Bytes())
	j.buffers.put(buf)
}
