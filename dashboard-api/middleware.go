package dashboardapi

import (
	"crypto/rand"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"runtime/debug"
	"strings"
	"time"

	"github.com/gin-gonic/gin"

	"github.com/agent-deck/agent-deck/backend"
)

// RequestIDHeader carries the request id in and out; an incoming well-formed id is kept so a
// client can correlate its logs with the server's.
const RequestIDHeader = "X-Request-Id"

const (
	requestIDKey = "agent-deck.request-id"
	tokenIDKey   = "agent-deck.token-id"
)

// assignRequestID gives every request an id, echoed in the response header and in every log
// line and internal-error message about it.
func (a *api) assignRequestID(c *gin.Context) {
	id := c.GetHeader(RequestIDHeader)
	if !validRequestID(id) {
		id = rand.Text()
	}
	c.Set(requestIDKey, id)
	c.Header(RequestIDHeader, id)
	c.Next()
}

func validRequestID(id string) bool {
	if id == "" || len(id) > 64 {
		return false
	}
	for _, r := range id {
		ok := r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' ||
			r == '-' || r == '_' || r == '.'
		if !ok {
			return false
		}
	}
	return true
}

// requestID returns the id assigned to the request.
func requestID(c *gin.Context) string {
	return c.GetString(requestIDKey)
}

// observe logs one line per request (never bodies, headers or query values) and turns a panic
// into an internal error with the stack in the log.
func (a *api) observe(c *gin.Context) {
	start := time.Now()
	defer func() {
		if p := recover(); p != nil {
			if p == http.ErrAbortHandler {
				panic(p)
			}
			a.log.Error("panic serving request", "request_id", requestID(c),
				"route", c.FullPath(), "panic", fmt.Sprint(p), "stack", string(debug.Stack()))
			if !c.Writer.Written() {
				a.writeError(c, backend.Internal("serving the request", fmt.Errorf("panic: %v", p)))
			}
			c.Abort()
		}
		a.log.LogAttrs(c.Request.Context(), slog.LevelInfo, "http request",
			slog.String("request_id", requestID(c)),
			slog.String("method", c.Request.Method),
			slog.String("path", c.Request.URL.Path),
			slog.String("route", c.FullPath()),
			slog.Int("status", c.Writer.Status()),
			slog.Int("bytes", max(c.Writer.Size(), 0)),
			slog.Float64("duration_ms", float64(time.Since(start).Microseconds())/1000),
			slog.String("token_id", c.GetString(tokenIDKey)),
		)
	}()
	c.Next()
}

// checkOrigin refuses, before anything else runs, requests for a host the server does not answer
// to (DNS rebinding onto a loopback listener) and browser requests from origins it does not
// accept (a web page driving a local deck).
func (a *api) checkOrigin(c *gin.Context) {
	local, _ := c.Request.Context().Value(http.LocalAddrContextKey).(net.Addr)
	if err := a.opts.Origins.CheckHost(c.Request.Host, local); err != nil {
		a.writeError(c, err)
		c.Abort()
		return
	}
	if err := a.opts.Origins.Check(c.GetHeader("Origin")); err != nil {
		a.writeError(c, err)
		c.Abort()
		return
	}
	c.Next()
}

// authenticate turns the bearer token (or, without an Authorization header, the dashboard's
// session cookie) into the request's Actor. Scope checks are the Service's; this only
// establishes who is calling. Any refusal of the token is a 401; only a failure to check it
// (database down) is not.
func (a *api) authenticate(c *gin.Context) {
	if cookie, err := c.Request.Cookie(SessionCookie); err == nil && cookie.Value != "" && c.GetHeader("Authorization") == "" {
		if err := a.authenticateCookie(c, cookie.Value); err != nil {
			a.writeError(c, err)
			c.Abort()
			return
		}
		c.Next()
		return
	}
	secret, ok := bearerToken(c.GetHeader("Authorization"))
	if !ok {
		a.writeError(c, backend.Errorf(backend.CodeUnauthenticated, "a bearer token is required").
			WithHint("send Authorization: Bearer <token>; the admin token is in $AGENT_DECK_HOME/admin.token"))
		c.Abort()
		return
	}
	actor, err := a.svc.Authenticate(c.Request.Context(), secret, backend.ActorUser)
	if err != nil {
		switch backend.ErrorCode(err) {
		case backend.CodeUnauthenticated, backend.CodeUnavailable, backend.CodeInternal, backend.CodeCanceled:
		default:
			err = backend.Errorf(backend.CodeUnauthenticated, "the bearer token is not valid").
				WithHint("create one with: agent-deck token create")
		}
		a.writeError(c, err)
		c.Abort()
		return
	}
	c.Set(tokenIDKey, actor.TokenID)
	c.Request = c.Request.WithContext(backend.WithActor(c.Request.Context(), actor))
	c.Next()
}

// bearerToken extracts the token of an "Authorization: Bearer <token>" header.
func bearerToken(header string) (string, bool) {
	scheme, token, ok := strings.Cut(strings.TrimSpace(header), " ")
	if !ok || !strings.EqualFold(scheme, "Bearer") {
		return "", false
	}
	token = strings.TrimSpace(token)
	if token == "" || strings.ContainsAny(token, " \t") {
		return "", false
	}
	return token, true
}
