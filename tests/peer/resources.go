package main

import (
	"context"
	"encoding/json"
	"strings"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"
)

// whoamiHeaders are the request headers the whoami resource reports.
var whoamiHeaders = []string{"Authorization", "X-Api-Key"}

// addResources serves one resource, peer://whoami: the credential headers the read arrived with
// (value and sha256, as the whoami tool reports them), so a test sees which credential a read
// through the hub carried and that the hub masks it on the way back.
func addResources(s *server.MCPServer) {
	s.AddResource(mcp.NewResource("peer://whoami", "whoami",
		mcp.WithResourceDescription("The credential headers this read arrived with."), mcp.WithMIMEType("application/json")),
		func(_ context.Context, req mcp.ReadResourceRequest) ([]mcp.ResourceContents, error) {
			headers := map[string]seen{}
			for _, name := range whoamiHeaders {
				vals, ok := req.Header[canonicalHeader(name)]
				headers[name] = observe(strings.Join(vals, ","), ok)
			}
			b, _ := json.Marshal(map[string]any{"headers": headers})
			return []mcp.ResourceContents{mcp.TextResourceContents{URI: req.Params.URI, MIMEType: "application/json", Text: string(b)}}, nil
		})
}
