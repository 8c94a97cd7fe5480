package proxy

import (
	"io"
	"net/http"
	"sync"
	"sync/atomic"
)

// A Streamable HTTP downstream announces list_changed between calls on the GET stream. While
// that stream is down (not yet open, cut by a restart, waiting to be opened again) Agent Deck
// cannot hear it, and a server restarted behind the same address may even accept the old
// session and serve other definitions without a word. So the stream is followed: its loss and
// its (re)opening each count as a possible change (service.epoch), and while it is down every
// call reads the tool list again before it goes out (conn.deaf). A server that offers no stream
// (405) can announce changes only on the calls' own streams, which are heard.

const (
	listenDown    int32 = iota // no GET stream open: a change would go unheard
	listenUp                   // the GET stream is open
	listenOffered              // the server offers no GET stream (405)
)

// listenState is a connection's view of its GET stream.
type listenState struct {
	state atomic.Int32
	epoch *atomic.Uint64
}

// follow notes a GET stream's answer and wraps its body so its end is noted too.
func (l *listenState) follow(status int, mediaType string, body io.ReadCloser) io.ReadCloser {
	switch {
	case status == http.StatusMethodNotAllowed:
		l.state.Store(listenOffered)
		return body
	case status != http.StatusOK || mediaType != "text/event-stream":
		return body
	}
	l.state.Store(listenUp)
	l.bump() // what was announced while no stream was open went unheard
	return &listenBody{ReadCloser: body, l: l}
}

func (l *listenState) bump() {
	if l.epoch != nil {
		l.epoch.Add(1)
	}
}

// down notes the stream's end.
func (l *listenState) down() {
	if l.state.CompareAndSwap(listenUp, listenDown) {
		l.bump()
	}
}

// listenBody is a GET stream's body; its first error or close marks the stream down.
type listenBody struct {
	io.ReadCloser
	l    *listenState
	once sync.Once
}

func (b *listenBody) Read(p []byte) (int, error) {
	n, err := b.ReadCloser.Read(p)
	if err != nil {
		b.once.Do(b.l.down)
	}
	return n, err
}

func (b *listenBody) Close() error {
	b.once.Do(b.l.down)
	return b.ReadCloser.Close()
}

// deaf reports whether a change the downstream announces now could go unheard: a Streamable
// HTTP connection whose GET stream is not open.
func (c *conn) deaf() bool {
	return c.kind == "streamable_http" && c.listen.state.Load() == listenDown
}

// deaf reports whether the service's current connection is deaf (no connection: the next one
// opens and bumps the epoch, so nothing needs reading ahead).
func (s *service) deaf() bool {
	s.mu.Lock()
	c := s.conn
	s.mu.Unlock()
	return c != nil && c.isReady() && c.deaf()
}
