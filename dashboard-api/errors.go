package dashboardapi

import (
	"encoding/json"
	"log/slog"
	"net/http"
	"strconv"

	"github.com/gin-gonic/gin"

	"github.com/agent-deck/agent-deck/backend"
)

const jsonContentType = "application/json; charset=utf-8"

// writeError classifies err, logs what an operator needs and sends the problem document.
func (a *api) writeError(c *gin.Context, err error) {
	e := backend.AsError(err)
	rid := requestID(c)
	pub := backend.Public(e, rid)
	status := pub.Status
	if status >= http.StatusInternalServerError {
		level := slog.LevelWarn
		if status == http.StatusInternalServerError {
			level = slog.LevelError
		}
		attrs := []any{"request_id", rid, "code", string(e.Code), "route", c.FullPath()}
		if e.Err != nil {
			attrs = append(attrs, "cause", e.Err.Error())
		}
		a.log.Log(c.Request.Context(), level, "request failed", attrs...)
	}
	if status == http.StatusUnauthorized {
		c.Header("WWW-Authenticate", `Bearer realm="agent-deck"`)
	}
	if secs, ok := pub.Details[backend.DetailRetryAfter].(int); ok && status == http.StatusTooManyRequests {
		c.Header("Retry-After", strconv.Itoa(secs))
	}
	instance := c.Request.URL.EscapedPath()
	b, err := json.Marshal(problemFor(pub, status, instance))
	if err != nil {
		// Details that cannot be encoded are dropped rather than risking a broken body.
		a.log.Error("encoding an error body", "request_id", rid, "cause", err.Error())
		status = http.StatusInternalServerError
		b = mustJSON(problemFor(backend.Public(backend.Internal("encoding", err), rid), status, instance))
	}
	c.Data(status, problemContentType, b)
}
