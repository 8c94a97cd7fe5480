package dashboardapi

import (
	"net/http"

	"github.com/gin-gonic/gin"

	"github.com/agent-deck/agent-deck/backend"
)

// authServerRoutes are the OAuth authorization server's routes (issue 12 §2): discovery
// metadata, client registration, the authorization and token endpoints, and the consent
// screen's API. The OAuth endpoints answer in the RFCs' own shapes ({"error": ...}), not the
// API's coded errors, because OAuth clients read those.
func (a *api) authServerRoutes() []route {
	return []route{
		noBody(http.MethodGet, backend.ProtectedResourceMD, "OAuth protected resource metadata of /mcp (RFC 9728)", a.resourceMetadata).withPublic(),
		noBody(http.MethodGet, backend.ProtectedResourceMD+backend.OAuthResourcePath, "OAuth protected resource metadata of /mcp, path-suffixed form (RFC 9728)", a.mcpResourceMetadata).withPublic(),
		noBody(http.MethodGet, backend.AuthServerMD, "OAuth authorization server metadata (RFC 8414)", a.authServerMetadata).withPublic(),
	}
}

func (a *api) resourceMetadata(c *gin.Context) (backend.ProtectedResourceMetadata, error) {
	return backend.ResourceMetadata(requestBase(c.Request)), nil
}

func (a *api) mcpResourceMetadata(c *gin.Context) (backend.ProtectedResourceMetadata, error) {
	return a.resourceMetadata(c)
}

func (a *api) authServerMetadata(c *gin.Context) (backend.AuthServerMetadata, error) {
	return backend.AuthorizationServerMetadata(requestBase(c.Request)), nil
}

// requestBase is the scheme and host the request was sent to.
func requestBase(r *http.Request) string {
	scheme := "http://"
	if r.TLS != nil {
		scheme = "https://"
	}
	return scheme + r.Host
}
