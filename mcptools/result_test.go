package mcptools

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"log/slog"
	"strings"
	"testing"

	"github.com/mark3labs/mcp-go/mcp"

	"github.com/agent-deck/agent-deck/backend"
)

// TestErrorResultOfEveryCode: every code reaches an MCP client as an isError result whose JSON
// is the code's public form (backend.Public): an outage keeps its coded message and hint, an
// internal failure carries only a request id, and no cause text leaves the log.
func TestErrorResultOfEveryCode(t *testing.T) {
	const cause = "dial unix /home/me/.agent-deck/postgres/.s.PGSQL.5432: connection refused"
	for _, code := range backend.AllCodes {
		t.Run(string(code), func(t *testing.T) {
			var logs bytes.Buffer
			err := &backend.Error{Code: code, Message: "message of " + string(code),
				Hint: "hint of " + string(code), Err: errors.New(cause)}
			res := errorResult(context.Background(), slog.New(slog.NewTextHandler(&logs, nil)), "get_decks", err)
			if !res.IsError || len(res.Content) != 1 {
				t.Fatalf("result = %+v, want one isError text block", res)
			}
			text := res.Content[0].(mcp.TextContent).Text
			var body errorBody
			if err := json.Unmarshal([]byte(text), &body); err != nil {
				t.Fatalf("body %s: %v", text, err)
			}
			if strings.Contains(text, "connection refused") {
				t.Errorf("the cause reached the client: %s", text)
			}
			got := body.Error
			if code == backend.CodeInternal {
				if got.Code != backend.CodeInternal || !strings.Contains(got.Message, "request id") ||
					strings.Contains(text, "message of") {
					t.Errorf("internal error = %s, want a generic message with a request id", text)
				}
				if !strings.Contains(logs.String(), "connection refused") {
					t.Errorf("the cause of an internal error is not logged: %s", logs.String())
				}
				return
			}
			want := errorFields{Code: code, Message: "message of " + string(code), Hint: "hint of " + string(code)}
			if got != want {
				t.Errorf("body = %+v, want %+v", got, want)
			}
		})
	}
}
