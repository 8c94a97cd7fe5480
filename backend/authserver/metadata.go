package authserver

import (
	"strings"

	"github.com/agent-deck/agent-deck/backend"
)

// Agent Deck as an OAuth 2.1 authorization server for its own MCP clients (MCP authorization,
// 2025-11-25): a client pointed at /mcp without a token discovers this server through the
// protected resource metadata (RFC 9728) and the authorization server metadata (RFC 8414),
// registers (RFC 7591, or a Client ID Metadata Document), and signs in with the authorization
// code and PKCE S256 after a person allows it on the dashboard's consent screen.

// OAuthScopes are the scopes an OAuth client may ask for: agent tokens only, never admin.
var Scopes = []string{string(backend.ScopeAgent), string(backend.ScopeAgentRead)}

// ProtectedResourceMetadata is RFC 9728 metadata of the /mcp resource.
type ProtectedResourceMetadata struct {
	Resource               string   `json:"resource"`
	AuthorizationServers   []string `json:"authorization_servers"`
	ScopesSupported        []string `json:"scopes_supported"`
	BearerMethodsSupported []string `json:"bearer_methods_supported"`
	ResourceName           string   `json:"resource_name"`
}

// AuthServerMetadata is RFC 8414 metadata of this authorization server.
type Metadata struct {
	Issuer                            string   `json:"issuer"`
	AuthorizationEndpoint             string   `json:"authorization_endpoint"`
	TokenEndpoint                     string   `json:"token_endpoint"`
	RegistrationEndpoint              string   `json:"registration_endpoint"`
	ScopesSupported                   []string `json:"scopes_supported"`
	ResponseTypesSupported            []string `json:"response_types_supported"`
	ResponseModesSupported            []string `json:"response_modes_supported"`
	GrantTypesSupported               []string `json:"grant_types_supported"`
	TokenEndpointAuthMethodsSupported []string `json:"token_endpoint_auth_methods_supported"`
	CodeChallengeMethodsSupported     []string `json:"code_challenge_methods_supported"`
	ClientIDMetadataDocumentSupported bool     `json:"client_id_metadata_document_supported"`
	AuthorizationResponseIssParameter bool     `json:"authorization_response_iss_parameter_supported"`
}

// ResourceMetadata describes the /mcp resource of the server at base (scheme://host[:port]).
func ResourceMetadata(base string) ProtectedResourceMetadata {
	base = strings.TrimRight(base, "/")
	return ProtectedResourceMetadata{
		Resource:               base + backend.OAuthResourcePath,
		AuthorizationServers:   []string{base},
		ScopesSupported:        Scopes,
		BearerMethodsSupported: []string{"header"},
		ResourceName:           "Agent Deck",
	}
}

// AuthorizationServerMetadata describes this authorization server at base.
func AuthorizationServerMetadata(base string) Metadata {
	base = strings.TrimRight(base, "/")
	return Metadata{
		Issuer:                            base,
		AuthorizationEndpoint:             base + backend.OAuthAuthorizePath,
		TokenEndpoint:                     base + backend.OAuthTokenPath,
		RegistrationEndpoint:              base + backend.OAuthRegisterPath,
		ScopesSupported:                   Scopes,
		ResponseTypesSupported:            []string{"code"},
		ResponseModesSupported:            []string{"query"},
		GrantTypesSupported:               []string{"authorization_code", "refresh_token"},
		TokenEndpointAuthMethodsSupported: []string{"none"},
		CodeChallengeMethodsSupported:     []string{"S256"},
		ClientIDMetadataDocumentSupported: true,
		AuthorizationResponseIssParameter: true,
	}
}
