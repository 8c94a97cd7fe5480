package proxy

import (
	"bytes"
	"context"
	"errors"
	"io"
	"net/http"
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
//
// It also charges what it reads to the result budget (budget.go): to tk, the ticket of the call
// the body answers, or one of its own (own) for a body no call waits on, given back on Close. On
// an event stream each event that is over is given back once the next one starts: the one a
// call waits on is the last, and stays charged until the call is done with it.
type capBody struct {
	rc     io.ReadCloser
	max    int64
	stream bool
	// When the cap is passed, rec (when set) records it and onCut (when set) is told of req.
	rec   *statusRecorder
	onCut func(*http.Request)
	req   *http.Request
	ctx   context.Context
	tk    *ticket
	own   bool

	n      int64
	last   byte  // the previous byte, ignoring '\r', to find blank lines
	event  int64 // bytes of the current event charged
	passed int64 // bytes of events over, given back when the next read brings more
	over   bool
}

func (b *capBody) Read(p []byte) (int, error) {
	if b.over {
		return 0, errResultTooLarge
	}
	n, err := b.rc.Read(p)
	if n > 0 {
		b.tk.give(b.passed)
		b.passed = 0
		if terr := b.tk.take(b.ctx, n); terr != nil {
			_ = b.rc.Close()
			return 0, terr
		}
		b.event += int64(n)
	}
	if !b.stream {
		b.n += int64(n)
	} else {
		for _, c := range p[:n] {
			switch {
			case c == '\r':
				continue
			case c == '\n' && b.last == '\n':
				b.n = 0
				b.passed, b.event = b.passed+b.event, 0
			default:
				b.n++
			}
			b.last = c
		}
		if b.own && b.passed > 0 {
			// No call holds what a stream of its own carried (the legacy SSE stream, a GET
			// stream): an event that is over is given back now, not when the next one starts,
			// which on an idle stream could keep the charge, and the budget's privilege, for good.
			b.tk.give(b.passed)
			b.passed = 0
		}
	}
	if b.n > b.max {
		b.over = true
		if b.rec != nil {
			b.rec.tooLarge.Store(true)
		}
		if b.onCut != nil {
			b.onCut(b.req)
		}
		_ = b.rc.Close() // stop the download at once
		return 0, errResultTooLarge
	}
	return n, err
}

func (b *capBody) Close() error {
	if b.own {
		b.tk.release()
	}
	return b.rc.Close()
}

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
//
// It also charges what it reads to the result budget (budget.go), on a ticket of its own: a
// line that answers a call waiting for it (claim finds the call's ticket by the line's id) is
// handed over to that call, which holds it until it is done with the result; any other line is
// given back once the transport asks for more.
type lineCap struct {
	r     io.Reader
	max   int
	cut   *cutIDs
	ctx   context.Context
	tk    *ticket
	claim func(rawID string) *ticket

	buf       []byte
	out       []byte
	outBuf    []byte
	err       error
	n         int    // bytes of the current line passed on
	head      []byte // the current line's first bytes
	tail      []byte // the current line's last bytes
	skipping  bool
	lineBytes int64 // bytes of the current line read (and charged)
	passed    int64 // bytes of lines over that no call claimed, given back on the next read
}

// newLineCap caps the lines of r; with tk, it charges them to the budget while reading under
// ctx, and claim (optional) finds the ticket of the call a line answers.
func newLineCap(r io.Reader, max int, cut *cutIDs) *lineCap {
	return &lineCap{r: r, max: max, cut: cut, buf: make([]byte, 64*1024), ctx: context.Background()}
}

func (l *lineCap) Read(p []byte) (int, error) {
	for len(l.out) == 0 {
		if l.err != nil {
			return 0, l.err
		}
		l.tk.give(l.passed)
		l.passed = 0
		n, err := l.r.Read(l.buf)
		if terr := l.tk.take(l.ctx, n); terr != nil {
			return 0, terr
		}
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
		l.lineBytes += int64(len(seg))
		l.keepTail(seg)
		if !l.skipping && l.n+len(seg) > l.max+1 { // +1: the newline is not part of the message
			l.out = append(l.out, '\n')
			l.keepHead(seg)
			l.skipping = true
		}
		if l.skipping {
			if ended {
				l.answerCut()
				l.n, l.head, l.tail, l.skipping, l.lineBytes = 0, l.head[:0], l.tail[:0], false, 0
			}
			continue
		}
		l.out = append(l.out, seg...)
		l.keepHead(seg)
		l.n += len(seg)
		if ended {
			l.lineEnded()
			l.n, l.head, l.tail = 0, l.head[:0], l.tail[:0]
		}
	}
}

// keepTail keeps the last bytes of the current line, where some encoders put the id.
func (l *lineCap) keepTail(seg []byte) {
	l.tail = append(l.tail, seg[max(0, len(seg)-lineEdge):]...)
	if len(l.tail) > 2*lineEdge {
		l.tail = append(l.tail[:0], l.tail[len(l.tail)-lineEdge:]...)
	}
}

// lineEnded hands the charge of a line passed on to the call it answers, if one waits for it;
// else it is given back on the next read.
func (l *lineCap) lineEnded() {
	n := l.lineBytes
	l.lineBytes = 0
	if l.tk == nil || l.claim == nil {
		l.passed += n
		return
	}
	if id := lineID(l.head, l.tail); id != "" {
		if to := l.claim(id); to != nil {
			l.tk.handOver(to, n)
			return
		}
	}
	l.passed += n
}

// lineID finds a line's JSON-RPC id (as JSON text) at its end or its start; "" when neither
// holds one.
func lineID(head, tail []byte) string {
	if m := tailID.FindSubmatch(tail); m != nil {
		return string(m[1])
	}
	if m := headID.FindSubmatch(head); m != nil {
		return string(m[1])
	}
	return ""
}

func (l *lineCap) keepHead(seg []byte) {
	if len(l.head) < lineEdge {
		l.head = append(l.head, seg[:min(len(seg), lineEdge-len(l.head))]...)
	}
}

// answerCut passes on an error answer to the request whose answer was cut, if its id is found.
// What was read of the cut line is given back.
func (l *lineCap) answerCut() {
	l.passed += l.lineBytes
	id := lineID(l.head, l.tail)
	if id == "" {
		return // the caller's own deadline ends its wait
	}
	l.cut.add(id)
	l.out = append(l.out, `{"jsonrpc":"2.0","id":`...)
	l.out = append(l.out, id...)
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
