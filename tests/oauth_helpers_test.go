package tests

import (
	"context"
	"testing"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

	"github.com/agent-deck/agent-deck/tests/oauthas"
)

// newOAuthService starts an MCP server with an echo tool behind a strict OAuth authorization
// server, the kind of remote service that needs a person to sign in.
func newOAuthService(t *testing.T, opts oauthas.Options) *oauthas.Server {
	t.Helper()
	s := server.NewMCPServer("oauth-protected", "1.0.0")
	s.AddTool(mcp.NewTool("echo", mcp.WithString("text")), func(_ context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		return mcp.NewToolResultText("echo: " + req.GetString("text", "")), nil
	})
	as := oauthas.New(server.NewStreamableHTTPServer(s), opts)
	t.Cleanup(as.Close)
	return as
}

// consentCode opens the authorization URL and returns the code and state the redirect carries,
// without following it.
func consentCode(t *testing.T, authURL string) (code, state string) {
	t.Helper()
	code, state, err := oauthas.Consent(authURL)
	if err != nil {
		t.Fatal(err)
	}
	return code, state
}
