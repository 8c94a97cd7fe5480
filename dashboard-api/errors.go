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

// ErrorResponse is the body of every failed request (SPEC §6).
type ErrorResponse struct {
	Error ErrorBody `json:"error"`
}

// ErrorBody carries a stable code, a message safe to show a person, and structured details
// (the field at fault, accepted values, dependent playbooks, the hint on what to do next).
type ErrorBody struct {
	Code    backend.Code   `json:"code"`
	Message string         `json:"message"`
	Details map[string]any `json:"details"`
}

// errorBodyFor renders the public form of an error (backend.Public decides it); the hint
// travels in details.hint.
func errorBodyFor(p backend.PublicError) ErrorBody {
	details := p.Details
	if details == nil {
		details = map[string]any{}
	}
	if p.Hint != "" {
		details["hint"] = p.Hint
	}
	return ErrorBody{Code: p.Code, Message: p.Message, Details: details}
}

// writeError classifies err, logs what an operator needs and sends the error body.
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
	b, err := json.Marshal(ErrorResponse{Error: errorBodyFor(pub)})
	if err != nil {
		// Details that cannot be encoded are dropped rather than risking a broken body.
		a.log.Error("encoding an error body", "request_id", rid, "cause", err.Error())
		status = http.StatusInternalServerError
		b, _ = json.Marshal(ErrorResponse{Error: errorBodyFor(backend.Public(backend.Internal("encoding", err), rid))})
	}
	c.Data(status, jsonContentType, b)
}
