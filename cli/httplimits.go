package cli

import (
	"io"
	"net/http"
	"time"
)

// Defaults of the HTTP server's limits (ServeConfig.HTTP).
const (
	defaultReadHeaderTimeout = 10 * time.Second
	defaultBodyReadTimeout   = 30 * time.Second
	defaultIdleTimeout       = 2 * time.Minute
)

// HTTPLimits bound what a slow or idle client can hold: a connection that trickles its headers
// or body, or sits idle between requests, is closed. There is no write timeout: MCP streams
// (GET /mcp and streamed POST answers) and proxied tool calls last as long as they need to.
// Zero values take the defaults.
type HTTPLimits struct {
	// ReadHeaderTimeout bounds reading a request's headers (default 10 s).
	ReadHeaderTimeout time.Duration
	// BodyReadTimeout bounds reading a request's body, from the end of its headers (default
	// 30 s). It applies to the body only, so a long-running request is not cut off.
	BodyReadTimeout time.Duration
	// IdleTimeout closes a keep-alive connection with no request for this long (default 2 min).
	IdleTimeout time.Duration
}

func (l HTTPLimits) withDefaults() HTTPLimits {
	if l.ReadHeaderTimeout <= 0 {
		l.ReadHeaderTimeout = defaultReadHeaderTimeout
	}
	if l.BodyReadTimeout <= 0 {
		l.BodyReadTimeout = defaultBodyReadTimeout
	}
	if l.IdleTimeout <= 0 {
		l.IdleTimeout = defaultIdleTimeout
	}
	return l
}

// newHTTPServer is the one http.Server of `serve`, with its limits.
func newHTTPServer(h http.Handler, l HTTPLimits) *http.Server {
	l = l.withDefaults()
	return &http.Server{
		Handler:           bodyDeadline(l.BodyReadTimeout, h),
		ReadHeaderTimeout: l.ReadHeaderTimeout,
		IdleTimeout:       l.IdleTimeout,
	}
}

// bodyDeadline gives a request's body d to arrive, then clears the connection's read deadline
// once the body has been read to its end: http.Server.ReadTimeout would instead also cancel a
// long-running request (an MCP stream, a slow tool call) after d. A body the handler never reads
// (a refused request) keeps the deadline, so the server drops it instead of waiting for it.
func bodyDeadline(d time.Duration, next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Body != nil && r.Body != http.NoBody {
			rc := http.NewResponseController(w)
			if rc.SetReadDeadline(time.Now().Add(d)) == nil {
				// A shallow copy: the server must still see its own body type to decide, when a
				// refused body is large, to close the connection rather than read it.
				r = r.WithContext(r.Context())
				r.Body = &deadlineBody{ReadCloser: r.Body, rc: rc}
			}
		}
		next.ServeHTTP(w, r)
	})
}

// deadlineBody clears the read deadline when the body ends.
type deadlineBody struct {
	io.ReadCloser
	rc   *http.ResponseController
	done bool
}

func (b *deadlineBody) Read(p []byte) (int, error) {
	n, err := b.ReadCloser.Read(p)
	if err == io.EOF && !b.done {
		b.done = true
		_ = b.rc.SetReadDeadline(time.Time{})
	}
	return n, err
}
