package mcptools

import (
	"testing"

	"github.com/mark3labs/mcp-go/mcp"

	"github.com/agent-deck/agent-deck/backend"
)

// TestCatalogErrorCode: a refused resources, prompts or completion request gets the JSON-RPC code
// that says whose fault it was.
func TestCatalogErrorCode(t *testing.T) {
	for _, tc := range []struct {
		name     string
		err      *backend.Error
		notFound int
		want     int
	}{
		{"a resource the deck does not have", backend.Errorf(backend.CodeNotFound, "no resource"), codeResourceNotFound, codeResourceNotFound},
		{"a playbook off the deck", backend.Errorf(backend.CodeNotOnBoundDeck, "off deck"), codeResourceNotFound, codeResourceNotFound},
		{"a prompt the deck does not have", backend.Errorf(backend.CodeNotFound, "no prompt"), 0, mcp.INVALID_PARAMS},
		{"a bad cursor", backend.Invalid("cursor", "is not a cursor"), 0, mcp.INVALID_PARAMS},
		{"the downstream has no such resource", backend.Errorf(backend.CodeDownstreamError, "x").WithDetail("downstream_code", -32002), codeResourceNotFound, -32002},
		{"the downstream refused the params", backend.Errorf(backend.CodeDownstreamError, "x").WithDetail("downstream_code", -32602), 0, mcp.INVALID_PARAMS},
		{"the downstream failed", backend.Errorf(backend.CodeDownstreamError, "x").WithDetail("downstream_code", -32603), 0, mcp.INTERNAL_ERROR},
		{"the downstream is down", backend.Errorf(backend.CodeDownstreamUnreachable, "down"), codeResourceNotFound, mcp.INTERNAL_ERROR},
		{"the downstream needs a sign-in", backend.Errorf(backend.CodeDownstreamAuth, "sign in"), 0, mcp.INTERNAL_ERROR},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := catalogErrorCode(backend.Public(tc.err, "req"), tc.notFound); got != tc.want {
				t.Errorf("code %d, want %d", got, tc.want)
			}
		})
	}
}
