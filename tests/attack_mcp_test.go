package tests

import "testing"

// Attacks on the MCP endpoint (/mcp and its tools).
func TestAttacksMCP(t *testing.T) {
	runAttacks(t, []attack{
		{"unauthenticated clients make the deck read large bodies", attackUnauthenticatedLargeBodies},
		{"GET or DELETE with a bad token and no session is not refused as unauthenticated", attackSessionlessBadToken},
		{"invalid UTF-8 or a lone surrogate in tool arguments is silently replaced", attackMCPBadText},
		{"a web page on a foreign origin calls MCP", attackForeignOriginMCP},
		{"an outage reaches the agent as a generic error without its own message", attackMCPOutageHidden},
	})
}
