package proxy

import (
	"context"
	"crypto/tls"
	"errors"
	"net"
	"net/http/httptrace"
	"sync/atomic"
)

// A tools/call admitted on a tool list may stall between its last check (the gate in
// conn.request) and the moment its POST takes a TCP connection. Meanwhile the server behind the
// address may have restarted with other definitions (even accepting the old session), and
// another request may have dialed it and left that new connection in the pool: the call would
// take it and reach a server whose definitions it was never checked against. So each TCP
// connection of a remote service carries its birth (service.births, in the order of dials), a
// list remembers the youngest connection it may vouch for (toolSet.born), and when the call's
// POST gets its connection (httptrace GotConn) a younger one is refused before a byte of the
// request is written: the call reads the list again and is admitted again (errRelist).
//
// Nothing is written on a refused connection: over HTTP/1 it is the request's alone, and its
// first write fails (bornConn.refuse); over HTTP/2 the request's context is cancelled before
// the stream's headers are written, which net/http checks under the connection's write lock.

// errYoungConn cancels a call's POST that got a connection younger than its tool list.
var errYoungConn = errors.New("the connection is younger than the tool list the call was admitted on")

// bornConn is a TCP connection of a remote service and its birth.
type bornConn struct {
	net.Conn
	// n orders the connection among the service's dials: a list read on a connection of n or
	// later vouches for it. A call admitted again after a refused dial (allowDial) gives the
	// connection it dials the birth of its own list.
	n uint64
	// refuse fails every write: an HTTP/1 connection a call was refused on.
	refuse atomic.Bool
}

func (b *bornConn) Write(p []byte) (int, error) {
	if b.refuse.Load() {
		return 0, errYoungConn
	}
	return b.Conn.Write(p)
}

// born wraps a connection the dialer made. admitted is the recorder of the call that dialed it
// after reading the list again, nil for any other request.
func (s *service) born(nc net.Conn, admitted *statusRecorder) *bornConn {
	if admitted != nil {
		return &bornConn{Conn: nc, n: admitted.limit.Load()}
	}
	return &bornConn{Conn: nc, n: s.births.Add(1)}
}

// bornOf finds the bornConn under a connection net/http reports (a TLS one wraps it).
func bornOf(nc net.Conn) *bornConn {
	for range 4 {
		switch c := nc.(type) {
		case *bornConn:
			return c
		case interface{ NetConn() net.Conn }:
			nc = c.NetConn()
		default:
			return nil
		}
	}
	return nil
}

// traceBirths has the requests made with ctx report the connections they get (httptrace
// GotConn): a list notes how young a connection it was read on, a call's own POST is refused one
// younger than its list (limit). The answers to what the downstream asks during a call share its
// context but are not the call: only the POST sent while noDial holds is checked.
func (r *statusRecorder) traceBirths(ctx context.Context) context.Context {
	ctx, r.cancel = context.WithCancelCause(ctx)
	r.trace.GotConn = r.gotConn
	return httptrace.WithClientTrace(ctx, &r.trace)
}

func (r *statusRecorder) gotConn(info httptrace.GotConnInfo) {
	bc := bornOf(info.Conn)
	if !r.limited.Load() {
		if bc != nil {
			r.got.Store(bc.n) // a list's
		}
		return
	}
	if !r.noDial.Load() || (bc != nil && bc.n <= r.limit.Load()) {
		return
	}
	// Younger than the list, or not one the dialer made: not sent.
	r.young.Store(true)
	if tc, ok := info.Conn.(*tls.Conn); bc != nil && (!ok || tc.ConnectionState().NegotiatedProtocol != "h2") {
		bc.refuse.Store(true)
	}
	r.cancel(errYoungConn)
}
