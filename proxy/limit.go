package proxy

import (
	"bytes"
	"errors"
	"io"
	"regexp"
	"sync"
)

// Results are read by mcp-go's transports, which hold a whole JSON-RPC message in memory before
// handing it over. The readers below sit under those transports and cut a message off once it
// passes the hard cap, so memory never exceeds the cap (times the copies the transport makes)
// plus a constant, whatever a downstream sends, and the session stays usable.

// errResultTooLarge is a downstream message cut off at the hard cap.
var errResultTooLarge = errors.New("result over the hard cap")

// capBody bounds one HTTP response body: the whole body, or for an event stream each event
// (the bytes since the last blank line), so a long-lived stream of small events is never cut.
type capBody struct {
	rc     io.ReadCloser
	max    int64
	stream bool
	onOver func()

	n    int64
	last byte // the previous byte, ignoring '\r', to find blank lines
	over bool
}

func (b *capBody) Read(p []byte) (int, error) {
	if b.over {
		return 0, errResultTooLarge
	}
	n, err := b.rc.Read(p)
	if !b.stream {
		b.n += int64(n)
	} else {
		for _, c := range p[:n] {
			switch {
			case c == '\r':
				continue
			case c == '\n' && b.last == '\n':
				b.n = 0
			default:
				b.n++
			}
			b.last = c
		}
	}
	if b.n > b.max {
		b.over = true
		b.onOver()
		_ = b.rc.Close() // stop the download at once
		return 0, errResultTooLarge
	}
	return n, err
}

func (b *capBody) Close() error { return b.rc.Close() }

// codeResultTooLarge is the JSON-RPC error code of the answer lineCap puts in place of a line
// it cut off. A downstream sending it itself is believed only for ids lineCap cut.
const codeResultTooLarge = -32099

// headID finds a JSON-RPC message's id near its start, where Go encoders put it; tailID at its
// very end, where encoders that write the result first (the TypeScript SDK) put it.
var (
	headID = regexp.MustCompile(`^\s*\{\s*(?:"jsonrpc"\s*:\s*"2\.0"\s*,\s*)?"id"\s*:\s*("(?:[^"\\]|\\.)*"|-?[0-9]+)`)
	tailID = regexp.MustCompile(`[,{]\s*"id"\s*:\s*("(?:[^"\\]|\\.)*"|-?[0-9]+)\s*\}\s*$`)
)

// lineEdge is how much of each line's start and end is kept to find its id.
const lineEdge = 512

// lineCap bounds a stdio server's output line by line (one line is one JSON-RPC message). A
// line longer than max is cut: what was passed on is ended with a newline (the transport drops
// it as malformed), the rest is discarded as it arrives, and once the line ends an error answer
// to the same request id is passed on instead, so the caller is told and the session goes on.
type lineCap struct {
	r   io.Reader
	max int
	cut *cutIDs

	buf      []byte
	out      []byte
	outBuf   []byte
	err      error
	n        int    // bytes of the current line passed on
	head     []byte // the current line's first bytes
	tail     []byte // the last bytes of a line being discarded
	skipping bool
}

func newLineCap(r io.Reader, max int, cut *cutIDs) *lineCap {
	return &lineCap{r: r, max: max, cut: cut, buf: make([]byte, 64*1024)}
}

func (l *lineCap) Read(p []byte) (int, error) {
	for len(l.out) == 0 {
		if l.err != nil {
			return 0, l.err
		}
		n, err := l.r.Read(l.buf)
		l.out = l.outBuf[:0]
		l.feed(l.buf[:n])
		l.outBuf = l.out[:0]
		l.err = err
	}
	n := copy(p, l.out)
	l.out = l.out[n:]
	return n, nil
}

func (l *lineCap) feed(chunk []byte) {
	for len(chunk) > 0 {
		seg := chunk
		i := bytes.IndexByte(chunk, '\n')
		if i >= 0 {
			seg = chunk[:i+1]
		}
		chunk = chunk[len(seg):]
		ended := i >= 0
		if !l.skipping && l.n+len(seg) > l.max+1 { // +1: the newline is not part of the message
			l.out = append(l.out, '\n')
			l.keepHead(seg)
			l.skipping, l.tail = true, l.tail[:0]
		}
		if l.skipping {
			l.tail = append(l.tail, seg...)
			if len(l.tail) > 2*lineEdge {
				l.tail = append(l.tail[:0], l.tail[len(l.tail)-lineEdge:]...)
			}
			if ended {
				l.answerCut()
				l.n, l.head, l.skipping = 0, l.head[:0], false
			}
			continue
		}
		l.out = append(l.out, seg...)
		l.keepHead(seg)
		l.n += len(seg)
		if ended {
			l.n, l.head = 0, l.head[:0]
		}
	}
}

func (l *lineCap) keepHead(seg []byte) {
	if len(l.head) < lineEdge {
		l.head = append(l.head, seg[:min(len(seg), lineEdge-len(l.head))]...)
	}
}

// answerCut passes on an error answer to the request whose answer was cut, if its id is found.
func (l *lineCap) answerCut() {
	m := tailID.FindSubmatch(l.tail)
	if m == nil {
		m = headID.FindSubmatch(l.head)
	}
	if m == nil {
		return // the caller's own deadline ends its wait
	}
	l.cut.add(string(m[1]))
	l.out = append(l.out, `{"jsonrpc":"2.0","id":`...)
	l.out = append(l.out, m[1]...)
	l.out = append(l.out, `,"error":{"code":-32099,"message":"result over the hard cap"}}`+"\n"...)
}

// cutIDs remembers the request ids whose answers lineCap cut off.
type cutIDs struct{ m sync.Map }

func (c *cutIDs) add(rawID string) { c.m.Store(rawID, true) }

// take reports whether rawID (the id as JSON) was cut, forgetting it.
func (c *cutIDs) take(rawID string) bool {
	_, ok := c.m.LoadAndDelete(rawID)
	return ok
}
