package proxy

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"log/slog"
	"mime"
	"net"
	"net/http"
	"net/http/httptrace"
	"strings"
	"sync/atomic"
	"time"

	"go.opentelemetry.io/otel/propagation"

	"github.com/agent-deck/agent-deck/backend"
	"github.com/mark3labs/mcp-go/client/transport"
)

// egressHeaders are the headers sent to a remote service: its own, then the linked credential.
func egressHeaders(t backend.Target) map[string]string {
	h := make(map[string]string, len(t.Headers)+1)
	for k, v := range t.Headers {
		h[k] = v
	}
	if c := t.Credential; c != nil && c.Secret != "" {
		switch c.Scheme {
		case backend.SchemeHeader:
			name := c.HeaderName
			if name == "" {
				name = "X-API-Key"
			}
			h[name] = c.Secret
		case backend.SchemeHTTPBasicUser:
			h["Authorization"] = "Basic " + base64.StdEncoding.EncodeToString([]byte(c.Secret+":"))
		default:
			h["Authorization"] = "Bearer " + c.Secret
		}
	}
	return h
}

// openRemote connects over the target's transport. Under auto, Streamable HTTP is tried first
// and SSE only when the server looks like an SSE-only one (not for auth, network, timeout or
// server errors, which SSE would not fix).
func (c *conn) openRemote(t backend.Target) error {
	c.httpc = c.httpClient(t.Hosts)
	headers := egressHeaders(t)
	switch t.Transport {
	case backend.TransportSSE:
		return c.openSSE(t.URL, headers)
	case backend.TransportStreamableHTTP:
		return c.openStreamable(t.URL, headers)
	}
	err := c.openStreamable(t.URL, headers)
	if err == nil || !sseMightWork(err) || c.ctx.Err() != nil {
		return err
	}
	c.svc.p.log.Debug("streamable HTTP refused, trying SSE", "service_id", c.svc.id)
	_ = c.client.Close()
	c.client, c.tr = nil, nil
	return c.openSSE(t.URL, headers)
}

func (c *conn) openStreamable(url string, headers map[string]string) error {
	c.kind = "streamable_http"
	tr, err := transport.NewStreamableHTTP(url,
		transport.WithHTTPBasicClient(c.httpc),
		transport.WithHTTPHeaders(headers),
		//lint:ignore SA1019 downstream sessions are pinned to 2025-11-25, which has the GET stream
		transport.WithContinuousListening(),
		transport.WithHTTPLogger(c.transportLogger()),
	)
	if err != nil {
		return err
	}
	if err := c.recordStatus(func(ctx context.Context) error { return c.handshake(ctx, tr) }); err != nil {
		return err
	}
	c.preparePost(tr, url, headers, c.version)
	return nil
}

func (c *conn) openSSE(url string, headers map[string]string) error {
	c.kind = "sse"
	tr, err := transport.NewSSE(url,
		transport.WithHTTPClient(c.httpc),
		transport.WithHeaders(headers),
		transport.WithEndpointTimeout(c.svc.p.opts.ConnectTimeout),
		transport.WithResponseTimeout(24*time.Hour), // each request's own deadline governs
		transport.WithSSELogger(c.transportLogger()),
	)
	if err != nil {
		return err
	}
	tr.SetConnectionLostHandler(func(error) { c.markDead(errors.New("event stream lost")) })
	return c.recordStatus(func(ctx context.Context) error { return c.handshake(ctx, tr) })
}

// recordStatus runs the handshake with an HTTP status recorder, so a refused handshake is
// reported with its status.
func (c *conn) recordStatus(fn func(ctx context.Context) error) error {
	var rec statusRecorder
	err := fn(withRecorder(c.ctx, &rec))
	if err != nil && rec.get() >= 300 {
		return &httpStatusError{status: rec.get(), err: err}
	}
	return err
}

// sseMightWork reports whether a failed Streamable HTTP handshake may succeed over SSE: the
// server answered, but not as a Streamable HTTP server would.
func sseMightWork(err error) bool {
	if isAuthFailure(err) || errors.Is(err, context.DeadlineExceeded) || errors.Is(err, context.Canceled) {
		return false
	}
	var status *httpStatusError
	if errors.As(err, &status) {
		return status.status >= 400 && status.status < 500
	}
	var netErr net.Error
	if errors.As(err, &netErr) {
		return false
	}
	var opErr *net.OpError
	return !errors.As(err, &opErr)
}

// httpClient is the connection's own client: its pool closes with it, it keeps enough idle
// connections for concurrent callers, and it dials only addresses the service's host policy
// allows (network.go).
func (c *conn) httpClient(hosts backend.HostPolicy) *http.Client {
	timeout := c.svc.p.opts.ConnectTimeout
	tr := c.svc.p.opts.Network.guard(hosts).transport(&http.Transport{
		ForceAttemptHTTP2:     true,
		MaxIdleConns:          128,
		MaxIdleConnsPerHost:   128,
		IdleConnTimeout:       90 * time.Second,
		TLSHandshakeTimeout:   timeout,
		ExpectContinueTimeout: time.Second,
	})
	tr.DialContext = c.dialer(tr.DialContext)
	return &http.Client{Transport: statusTransport{base: tr, max: int64(c.svc.p.opts.ResultHardCap), onCut: c.bodyCut,
		onLog: c.callLog, prop: c.svc.p.opts.Tracing.Propagator, budget: c.svc.p.budget, listen: &c.listen}}
}

// errConnChanged stops a tools/call that would have gone out on a new TCP connection: the
// server behind the address may have restarted (and even accepted the old session) with other
// tool definitions, so the list is read again first, and the call goes out on the connection
// that read it.
var errConnChanged = errors.New("the call would have needed a new connection to the server")

// dialer wraps a remote service's dial. A new TCP connection may reach another server behind
// the same address (a restart, which may even accept the old session, or another replica), and
// a restart always means the next request dials, even when the event stream has not yet noticed
// it. So a tools/call is not sent on a connection it dialed first (statusRecorder.noDial): the
// dial is refused with errConnChanged (counted in service.refusals), the call reads the tool
// list again — a list that started after the refusal, so it reads whatever server the address
// now reaches — is admitted again, and may then dial (allowDial). The dials of other requests
// than lists (notifications, the event stream) count as possible changes (service.epoch), so a
// call admitted before one of them does not go out on the connection it opened. Every
// connection made here carries its place in the order of the service's dials, so a call does
// not go out on a pooled connection younger than the list it was admitted on either (births.go).
// A call on a pooled connection never reaches this function: the hot path pays nothing here.
func (c *conn) dialer(dial func(ctx context.Context, network, addr string) (net.Conn, error)) func(ctx context.Context, network, addr string) (net.Conn, error) {
	return func(ctx context.Context, network, addr string) (net.Conn, error) {
		var admitted *statusRecorder
		if rec, _ := ctx.Value(recorderKey{}).(*statusRecorder); rec != nil && rec.noDial.Load() {
			if ctx.Value(allowDialKey{}) == nil {
				return nil, dialRefused{n: c.svc.refusals.Add(1)}
			}
			admitted = rec // admitted on a list read after its refusal
		} else if ctx.Value(listDialKey{}) == nil {
			c.svc.epoch.Add(1)
		}
		nc, err := dial(ctx, network, addr)
		if err != nil {
			return nil, err
		}
		return c.svc.born(nc, admitted), nil
	}
}

// dialRefused is errConnChanged with the refusal's number (service.refusals).
type dialRefused struct{ n uint64 }

func (r dialRefused) Error() string        { return errConnChanged.Error() }
func (r dialRefused) Is(target error) bool { return target == errConnChanged }

// allowDialKey marks a call already refused a dial once: it has read the list again since.
type allowDialKey struct{}

func allowDial(ctx context.Context) context.Context {
	if ctx.Value(allowDialKey{}) != nil {
		return ctx
	}
	return context.WithValue(ctx, allowDialKey{}, true)
}

// listDialKey marks a tools/list: its dial needs no count, since a list that reads other
// definitions than the cached ones moves the epoch itself (op.tools), and one that reads the
// same ones changes nothing.
type listDialKey struct{}

// bodyCut handles a response body cut at the hard cap. A POST's answer is reported by its own
// request (see statusRecorder). The legacy SSE transport carries every answer on its one event
// stream, so a cut there ends the session: the connection is closed at once, so that the
// request waiting for the cut answer fails now (as too large) rather than at its deadline.
func (c *conn) bodyCut(req *http.Request) {
	if req.Method != http.MethodGet || c.kind != "sse" {
		return
	}
	c.streamCut.Store(true)
	c.svc.p.closeAsync(c)
}

// transportLogger hands the MCP transport a logger that files everything at debug level: its
// retries and stream errors are routine, and failures are reported by the proxy itself.
func (c *conn) transportLogger() *slog.Logger {
	return slog.New(debugOnly{c.svc.p.log.Handler()}).With("service_id", c.svc.id, "component", "mcp-transport")
}

type debugOnly struct{ slog.Handler }

func (d debugOnly) Enabled(ctx context.Context, _ slog.Level) bool {
	return d.Handler.Enabled(ctx, slog.LevelDebug)
}

func (d debugOnly) Handle(ctx context.Context, r slog.Record) error {
	r.Level = slog.LevelDebug
	return d.Handler.Handle(ctx, r)
}

func (d debugOnly) WithAttrs(as []slog.Attr) slog.Handler { return debugOnly{d.Handler.WithAttrs(as)} }
func (d debugOnly) WithGroup(g string) slog.Handler       { return debugOnly{d.Handler.WithGroup(g)} }

// statusRecorder keeps the first unsuccessful HTTP status seen by requests made with a context
// carrying it (mcp-go reports some statuses only as text), and whether a body was cut off at
// the hard cap.
type statusRecorder struct {
	code     atomic.Int32
	tooLarge atomic.Bool
	// wantScope is the scope a 403 insufficient_scope challenge asked for (step-up).
	wantScope atomic.Pointer[string]
	// noDial marks a tools/call until its POST is answered: that POST may go out only on a
	// pooled connection (conn.dialer).
	noDial atomic.Bool
	// limit, once limited is set, is the birth of the youngest connection a tools/call's POST
	// may go out on: its tool list's (births.go). got is the birth of the connection a list's
	// last request got, and young is set when a call's POST was refused one for its age.
	limit   atomic.Uint64
	limited atomic.Bool
	got     atomic.Uint64
	young   atomic.Bool
	// trace and cancel follow the connections a call's or a list's requests get (births.go).
	trace  httptrace.ClientTrace
	cancel context.CancelCauseFunc
}

func (r *statusRecorder) get() int { return int(r.code.Load()) }

func (r *statusRecorder) set(code int) {
	if code >= 300 {
		r.code.CompareAndSwap(0, int32(code))
	}
}

type recorderKey struct{}

func withRecorder(ctx context.Context, r *statusRecorder) context.Context {
	return context.WithValue(ctx, recorderKey{}, r)
}

// statusTransport records statuses and bounds every response body by the hard cap (max), so
// no answer of a downstream is held in memory beyond it.
// replayableKey marks a request context whose POSTs may be sent twice: reading, not acting.
type replayableKey struct{}

func withReplayable(ctx context.Context) context.Context {
	return context.WithValue(ctx, replayableKey{}, true)
}

type statusTransport struct {
	base  http.RoundTripper
	max   int64
	onCut func(*http.Request)
	// onLog receives a log message the downstream sent on the stream of a call of relay.
	onLog func(relay backend.Relay, params json.RawMessage)
	// prop, when set, sends the request's trace context along (tracing.go).
	prop propagation.TextMapPropagator
	// budget bounds the answers held at once: a body charges the ticket of the call it answers
	// (in the request's context), else a ticket of its own (budget.go).
	budget *budget
	// listen, when set, follows the Streamable HTTP GET stream: where the downstream's
	// list_changed arrives between calls (conn.listening).
	listen *listenState
}

func (s statusTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	if resp := answeredFor(req.Context()); resp != nil {
		return resp, nil // a direct post's answer, left to the transport (post.go)
	}
	req = withTraceContext(s.prop, req)
	if req.Method == http.MethodPost && req.Context().Value(replayableKey{}) != nil {
		// net/http sends a POST again on a new connection when a kept-alive one turns out
		// closed (a restarted server) only if it is marked idempotent; the nil value sends no
		// header.
		req = req.Clone(req.Context())
		req.Header["Idempotency-Key"] = nil
	}
	resp, err := s.base.RoundTrip(req)
	rec, _ := req.Context().Value(recorderKey{}).(*statusRecorder)
	if rec != nil && req.Method == http.MethodPost {
		// Only the call's own POST is kept off new connections: the answers to what the
		// downstream asks while the call runs (elicitation, sampling) share its context and
		// may need a connection of their own.
		rec.noDial.Store(false)
	}
	if err != nil {
		return resp, err
	}
	if rec != nil {
		rec.set(resp.StatusCode)
		if resp.StatusCode == http.StatusForbidden {
			if ch := parseChallenge(resp.Header.Values("WWW-Authenticate")); ch.err == "insufficient_scope" && ch.scope != "" {
				rec.wantScope.CompareAndSwap(nil, &ch.scope)
			}
		}
	}
	mediaType := mediaTypeOf(resp.Header.Get("Content-Type"))
	if s.max > 0 {
		body := &capBody{rc: resp.Body, max: s.max, stream: mediaType == "text/event-stream",
			rec: rec, onCut: s.onCut, req: req, ctx: req.Context(), tk: ticketFrom(req.Context())}
		if body.tk == nil && s.budget != nil {
			body.tk, body.own = s.budget.ticket(), true
		}
		resp.Body = body
	}
	if req.Method == http.MethodGet && s.listen != nil && req.Header.Get("Accept") == "text/event-stream" {
		resp.Body = s.listen.follow(resp.StatusCode, mediaType, resp.Body)
	}
	if req.Method == http.MethodPost && mediaType == "text/event-stream" && s.onLog != nil {
		if relay := backend.RelayFrom(req.Context()); relay != nil {
			resp.Body = newLogTap(resp.Body, func(params json.RawMessage) { s.onLog(relay, params) })
		}
	}
	return resp, nil
}

// mediaTypeOf is the media type of a Content-Type as mime.ParseMediaType gives it, without
// building the parameter map for the two types every answer has.
func mediaTypeOf(contentType string) string {
	if !strings.Contains(contentType, ";") {
		switch mt := strings.TrimSpace(strings.ToLower(contentType)); mt {
		case "application/json", "text/event-stream":
			return mt
		}
	}
	mt, _, _ := mime.ParseMediaType(contentType)
	return mt
}

func (s statusTransport) CloseIdleConnections() {
	if ci, ok := s.base.(interface{ CloseIdleConnections() }); ok {
		ci.CloseIdleConnections()
	}
}
