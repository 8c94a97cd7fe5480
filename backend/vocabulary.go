package backend

import (
	"slices"
	"strings"
)

// The vocabulary every surface shares. Each name is defined here once and read by the adapters
// (mcptools, dashboard-api, harness) and cli, which may not import each other.

// MCP tool profiles (SPEC §4.1). A profile is only a name here: which tools it holds is computed
// from the tool table in mcptools. Adding a profile is its name in Profiles plus its row in
// mcptools' profileTiers.
const (
	ProfileRuntime  = "runtime"
	ProfileStandard = "standard"
	ProfileLegacy   = "legacy"
	// ProfileResource carries the standard profile's tools as one tool per resource with the
	// verb as an action; it counts as the same size as standard for narrowing.
	ProfileResource = "resource"
	// DefaultProfile is the profile of a server or session that names none.
	DefaultProfile = ProfileStandard
)

// Profiles lists every MCP tool profile, smallest first: a connection may narrow the server's
// profile to an earlier one, never widen it to a later one.
var Profiles = []string{ProfileRuntime, ProfileStandard, ProfileResource, ProfileLegacy}

// IsProfile reports whether name is a profile, spelled exactly.
func IsProfile(name string) bool { return slices.Contains(Profiles, name) }

// ProfileChoices is the list of profiles for a help text or an error: "runtime, standard,
// resource or legacy".
func ProfileChoices() string {
	if len(Profiles) < 2 {
		return strings.Join(Profiles, "")
	}
	last := len(Profiles) - 1
	return strings.Join(Profiles[:last], ", ") + " or " + Profiles[last]
}

// Headers of Agent Deck's own, spelled as agent configs carry them (HTTP reads them in any case).
const (
	// HeaderProfile narrows an MCP connection's tool profile.
	HeaderProfile = "x-agent-deck-profile"
	// HeaderDeckID pre-binds a new MCP session to a deck (id or name).
	HeaderDeckID = "x-agent-deck-deck-id"
	// HeaderDeck names the deck through which an agent token reaches a service over REST.
	HeaderDeck = "x-agent-deck-deck"
)

// Headers of the MCP Streamable HTTP transport that Agent Deck reads or sends itself.
const (
	HeaderMCPSession         = "Mcp-Session-Id"
	HeaderMCPProtocolVersion = "Mcp-Protocol-Version"
)

// Environment variables that agent configs written by `setup` set and the `mcp-stdio` bridge
// reads (the serve settings with the same meaning read them too).
const (
	EnvServer  = "AGENT_DECK_SERVER"
	EnvToken   = "AGENT_DECK_TOKEN"
	EnvDeckID  = "AGENT_DECK_DECK_ID"
	EnvProfile = "AGENT_DECK_MCP_TOOL_PROFILE"
)

// CardType names the three kinds of card a deck can hold.
type CardType string

// Card types.
const (
	CardService    CardType = "service"
	CardCredential CardType = "credential"
	CardPlaybook   CardType = "playbook"
)

// CardTypes lists the card types in their display order.
var CardTypes = []CardType{CardService, CardCredential, CardPlaybook}

// CardTypeNames lists the card types as plain strings, in display order, for enums in tool
// schemas and the OpenAPI document.
func CardTypeNames() []string {
	names := make([]string, len(CardTypes))
	for i, t := range CardTypes {
		names[i] = string(t)
	}
	return names
}

// serviceTypes are the service types a card may have.
var ServiceTypes = []ServiceType{ServiceRemote, ServiceLocal}

// OAuth endpoint paths, relative to the server's base URL.
const (
	OAuthAuthorizePath  = "/oauth/authorize"
	OAuthTokenPath      = "/oauth/token"
	OAuthRegisterPath   = "/oauth/register"
	OAuthResourcePath   = "/mcp"
	ProtectedResourceMD = "/.well-known/oauth-protected-resource"
	AuthServerMD        = "/.well-known/oauth-authorization-server"
)

// ResourceMetadataURL is the URL a 401 from /mcp names in WWW-Authenticate.
func ResourceMetadataURL(base string) string {
	return strings.TrimRight(base, "/") + ProtectedResourceMD + OAuthResourcePath
}
