package dashboardapi

import (
	"encoding/json"
	"log/slog"
	"net/http"

	"github.com/gin-gonic/gin"

	"github.com/agent-deck/agent-deck/backend"
)

const jsonContentType = "application/json; charset=utf-8"

// statusFor returns the HTTP status of a code (backend's one table); an unknown code is an
// internal error.
func statusFor(code backend.Code) int {
	s, _ := backend.HTTPStatus(code)
	return s
}

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

// errorBodyFor builds the client-facing body. Internal errors say only that something failed
// and which request id to look for in the log; their cause and details stay server-side.
func errorBodyFor(e *backend.Error, requestID string) ErrorBody {
	if statusFor(e.Code) == http.StatusInternalServerError {
		return ErrorBody{
			Code:    backend.CodeInternal,
			Message: "internal error (request id " + requestID + ")",
			Details: map[string]any{"request_id": requestID},
		}
	}
	details := make(map[string]any, len(e.Details)+1)
	for k, v := range e.Details {
		details[k] = v
	}
	if e.Hint != "" {
		details["hint"] = e.Hint
	}
	return ErrorBody{Code: e.Code, Message: e.Message, Details: details}
}

// writeError classifies err, logs what an operator needs and sends the error body.
func (a *api) writeError(c *gin.Context, err error) {
	e := backend.AsError(err)
	status := statusFor(e.Code)
	rid := requestID(c)
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
	b, err := json.Marshal(ErrorResponse{Error: errorBodyFor(e, rid)})
	if err != nil {
		// Details that cannot be encoded are dropped rather than risking a broken body.
		a.log.Error("encoding an error body", "request_id", rid, "cause", err.Error())
		status = http.StatusInternalServerError
		b, _ = json.Marshal(ErrorResponse{Error: errorBodyFor(backend.Internal("encoding", err), rid)})
	}
	c.Data(status, jsonContentType, b)
}
