package tests

import "testing"

// Attacks on the MCP endpoint (/mcp and its tools).
func TestAttacksMCP(t *testing.T) {
	runAttacks(t, []attack{
		{"agent update_service sends a secret-carrying service to its own URL", attackMCPUpdateServiceURLOfSecretService},
		{"agent register_service and update_service on metadata and private hosts", attackMCPRegisterMetadataHost},
		{"agent update_playbook on a playbook off the bound deck", attackMCPUpdatePlaybookOffDeck},
		{"agent bind_workspace with a relative path", attackMCPBindRelativeWorkspace},
		{"open sessions without end with one token", attackSessionFlood},
		{"unauthenticated clients make the deck read large bodies", attackUnauthenticatedLargeBodies},
		{"GET or DELETE with a bad token and no session is not refused as unauthenticated", attackSessionlessBadToken},
		{"invalid UTF-8 or a lone surrogate in tool arguments is silently replaced", attackMCPBadText},
		{"a web page on a foreign origin calls MCP", attackForeignOriginMCP},
		{"an outage reaches the agent as a generic error without its own message", attackMCPOutageHidden},
		{"agent decides its own playbook proposal through MCP", attackMCPAcceptOwnProposal},
		{"agent bound to one deck reaches a service with another deck's credential", attackMCPReachOtherDeckCredential},
		{"agent bound to one deck reads a service's resource with another deck's credential", attackMCPResourceOtherDeckCredential},
		{"agent erases its calls from the audit trail with a NUL in a tool name", attackAuditNULErasesTrail},
		{"agent reads resources, prompts and completions of a service and playbook off its deck", attackMCPResourcesOffDeck},
		{"agent calls projected tools of another deck's service, or beyond agent:read", attackMCPProjectedOffDeck},
		{"a member's agent binds, reads, links and calls another person's private deck and cards", attackMCPOtherPersonsDeck},
		{"a member's agent reads or links a credential on another person's deck", attackMCPOtherPersonsCredential},
		{"a member's agent keeps using a deck after its owner unshared it", attackMCPUnsharedDeckStaysBound},
		{"a person without their own secret calls a personal service another person is connected to", attackMCPBorrowAnotherPersonsSecret},
		{"a personal service lends its one OAuth sign-in to every person's calls", attackMCPPersonalServiceLendsSharedSignIn},
		{"a person's call to a service that takes each person's own sign-in goes out with another person's", attackMCPBorrowAnotherPersonsSignIn},
		{"a session answers another session's question to its client", attackMCPAnswerOtherSessionsQuestion},
		{"tool arguments name a key twice and the last one silently wins", attackMCPDuplicateKeys},
		{"agent register_playbook or update_playbook sets the exec or skill later agents run", attackMCPRegisterRunnablePlaybook},
		{"agent writes a playbook on a deck that requires review without review", attackSkipReviewOfPlaybook},
		{"agent stores other cards' secrets in clear through another replica", attackHeldSecretsStoredInClear},
		{"one agent token floods the review queue with signals and proposals", attackReviewQueueFlood},
		{"an agent in a loop spends a paid service's quota with the person's key", attackQuotaLoop},
	})
}
