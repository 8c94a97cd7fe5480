package dashboardapi

import (
	"strconv"
	"time"

	"github.com/gin-gonic/gin"

	"github.com/agent-deck/agent-deck/backend"
	"github.com/agent-deck/agent-deck/backend/core"
)

// toolCallQueryParams documents GET /tool-calls' filters.
var toolCallQueryParams = []queryParam{
	{name: "person", description: "person id or name"},
	{name: "service", description: "service id or name"},
	{name: "deck", description: "deck id or name"},
	{name: "session", description: "MCP session id"},
	{name: "tool", description: "downstream tool name"},
	{name: "outcome", description: "ok, is_error or error", enum: []string{"ok", "is_error", "error"}},
	{name: "since", description: "RFC 3339 time, or a duration before now such as 1h"},
	{name: "until", description: "RFC 3339 time, or a duration before now such as 10m"},
	{name: "cursor", description: "next_cursor of the previous page: continue there"},
	{name: "limit", description: "entries per page, 1 to 1000 (default 100)"},
}

func (a *api) listToolCalls(c *gin.Context) (backend.ToolCallPage, error) {
	f := backend.ToolCallFilter{Person: c.Query("person"), Service: c.Query("service"), Deck: c.Query("deck"), Session: c.Query("session"),
		Tool: c.Query("tool"), Outcome: c.Query("outcome"), Cursor: c.Query("cursor")}
	var err error
	if f.Since, err = timeParam(c, "since"); err != nil {
		return backend.ToolCallPage{}, err
	}
	if f.Until, err = timeParam(c, "until"); err != nil {
		return backend.ToolCallPage{}, err
	}
	if v := c.Query("limit"); v != "" {
		if f.Limit, err = strconv.Atoi(v); err != nil {
			return backend.ToolCallPage{}, badInput("limit", "query parameter limit must be a whole number, got %q", clipText(v, 40))
		}
	}
	return a.svc.ListToolCalls(ctx(c), f)
}

// timeParam reads an RFC 3339 time or a duration before now ("1h", "30m").
func timeParam(c *gin.Context, name string) (time.Time, error) {
	v := c.Query(name)
	if v == "" {
		return time.Time{}, nil
	}
	if t, err := time.Parse(time.RFC3339, v); err == nil {
		return t, nil
	}
	if d, err := time.ParseDuration(v); err == nil && d >= 0 {
		return time.Now().Add(-d), nil
	}
	return time.Time{}, badInput(name, "query parameter %s must be an RFC 3339 time or a duration such as 1h, got %q", name, clipText(v, 40))
}

func (a *api) setDeckArgumentCapture(c *gin.Context, in core.DeckArgumentCaptureInput) (core.DeckAuditSettings, error) {
	return a.svc.SetDeckArgumentCapture(ctx(c), c.Param("deck"), in.CaptureArguments)
}
