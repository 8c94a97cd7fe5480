package dashboardapi

import (
	"fmt"
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
	{name: "token", description: "id or name of the token that made the calls"},
	{name: "outcome", description: "ok, is_error or error", enum: []string{"ok", "is_error", "error"}},
	{name: "since", description: "RFC 3339 time, or a duration before now such as 1h"},
	{name: "until", description: "RFC 3339 time, or a duration before now such as 10m"},
	{name: "cursor", description: "next_cursor of the previous page: continue there"},
	intParam("limit", fmt.Sprintf("entries per page (default %d)", backend.DefaultToolCallLimit), 1, backend.MaxToolCallLimit),
}

func (a *api) listToolCalls(c *gin.Context) (backend.ToolCallPage, error) {
	f := backend.ToolCallFilter{Person: c.Query("person"), Service: c.Query("service"), Deck: c.Query("deck"), Session: c.Query("session"),
		Tool: c.Query("tool"), Token: c.Query("token"), Outcome: c.Query("outcome"), Cursor: c.Query("cursor"), Limit: intQuery(c, "limit")}
	var err error
	if f.Since, err = timeParam(c, "since"); err != nil {
		return backend.ToolCallPage{}, err
	}
	if f.Until, err = timeParam(c, "until"); err != nil {
		return backend.ToolCallPage{}, err
	}
	page, err := a.svc.ListToolCalls(ctx(c), f)
	if err == nil && page.NextCursor != "" {
		c.Header("Link", nextLink(c.Request.URL, page.NextCursor))
	}
	return page, err
}

func (a *api) getToolCall(c *gin.Context) (backend.ToolCall, error) {
	return a.svc.GetToolCall(ctx(c), c.Param("call"))
}

// toolCallStatsParams documents GET /tool-call-stats' query.
var toolCallStatsParams = []queryParam{
	{name: "service", description: "service id or name"},
	{name: "deck", description: "deck id or name"},
	{name: "tool", description: "downstream tool name"},
	{name: "since", description: "RFC 3339 time, or a duration before now such as 24h (default 24h)"},
	{name: "until", description: "RFC 3339 time, or a duration before now (default now)"},
	{name: "bucket", description: "length of one time bucket, such as 5m or 1h (default: at most 48 buckets)"},
	{name: "group_by", description: "service (default) or tool", enum: []string{"service", "tool"}},
}

// toolCallStats counts the audit trail per service or tool and time bucket, for charts.
func (a *api) toolCallStats(c *gin.Context) (core.ToolCallStats, error) {
	f := core.ToolCallStatsFilter{Service: c.Query("service"), Deck: c.Query("deck"), Tool: c.Query("tool"),
		GroupBy: c.Query("group_by")}
	var err error
	if f.Since, err = timeParam(c, "since"); err != nil {
		return core.ToolCallStats{}, err
	}
	if f.Until, err = timeParam(c, "until"); err != nil {
		return core.ToolCallStats{}, err
	}
	if v := c.Query("bucket"); v != "" {
		if f.Bucket, err = time.ParseDuration(v); err != nil || f.Bucket <= 0 {
			return core.ToolCallStats{}, badInput("bucket", "query parameter bucket must be a duration such as 5m or 1h, got %q", clipText(v, 40))
		}
	}
	return a.svc.ToolCallStats(ctx(c), f)
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

func (a *api) getDeckArgumentCapture(c *gin.Context) (core.DeckAuditSettings, error) {
	return a.svc.GetDeckArgumentCapture(ctx(c), c.Param("deck"))
}

func (a *api) setDeckArgumentCapture(c *gin.Context, in core.DeckArgumentCaptureInput) (core.DeckAuditSettings, error) {
	return a.svc.SetDeckArgumentCapture(ctx(c), c.Param("deck"), in.CaptureArguments)
}
