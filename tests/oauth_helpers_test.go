package tests

import (
	"context"
	"net/http"
	"testing"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

	"github.com/agent-deck/agent-deck/tests/oauthas"
)

// downstreamUserKey carries, in a request's context, the downstream user whose token it bore.
type downstreamUserKey struct{}

// whoamiURI is the resource of the OAuth-protected service that names the downstream user whose
// token read it; its prompt "whoami" does the same.
const whoamiURI = "notes://whoami"

// whoamiCompletions completes the whoami prompt's argument with the downstream user whose token
// asked.
type whoamiCompletions struct{ user func(context.Context) string }

func (w whoamiCompletions) CompletePromptArgument(ctx context.Context, _ string, _ mcp.CompleteArgument, _ mcp.CompleteContext) (*mcp.Completion, error) {
	u := w.user(ctx)
	return &mcp.Completion{Values: []string{"completed as " + u}}, nil
}

// newOAuthService starts an MCP server with an echo tool, and a resource, a prompt and its
// argument's completion that answer with the downstream user the request's token belongs to, behind a strict OAuth
// authorization server: the kind of remote service that needs a person to sign in.
func newOAuthService(t *testing.T, opts oauthas.Options) *oauthas.Server {
	t.Helper()
	var as *oauthas.Server
	user := func(ctx context.Context) string {
		u, _ := ctx.Value(downstreamUserKey{}).(string)
		as.Answered(u)
		return u
	}
	s := server.NewMCPServer("oauth-protected", "1.0.0", server.WithResourceCapabilities(false, false),
		server.WithPromptCapabilities(false), server.WithCompletions(), server.WithPromptCompletionProvider(whoamiCompletions{user}))
	s.AddTool(mcp.NewTool("echo", mcp.WithString("text")), func(_ context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		return mcp.NewToolResultText("echo: " + req.GetString("text", "")), nil
	})
	s.AddResource(mcp.NewResource(whoamiURI, "whoami", mcp.WithMIMEType("text/plain")),
		func(ctx context.Context, req mcp.ReadResourceRequest) ([]mcp.ResourceContents, error) {
			return []mcp.ResourceContents{mcp.TextResourceContents{URI: req.Params.URI, MIMEType: "text/plain",
				Text: "resource read as " + user(ctx)}}, nil
		})
	s.AddPrompt(mcp.NewPrompt("whoami", mcp.WithArgument("topic")), func(ctx context.Context, _ mcp.GetPromptRequest) (*mcp.GetPromptResult, error) {
		return mcp.NewGetPromptResult("whoami", []mcp.PromptMessage{
			mcp.NewPromptMessage(mcp.RoleUser, mcp.NewTextContent("prompt got as "+user(ctx)))}), nil
	})
	as = oauthas.New(server.NewStreamableHTTPServer(s, server.WithHTTPContextFunc(
		func(ctx context.Context, r *http.Request) context.Context {
			return context.WithValue(ctx, downstreamUserKey{}, r.Header.Get(oauthas.UserHeader))
		})), opts)
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
