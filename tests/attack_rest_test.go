package tests

import "testing"

// Attacks on the REST API (/api/v1, /metrics, health).
func TestAttacksREST(t *testing.T) {
	runAttacks(t, []attack{
		{"agent PATCH moves a service with secret headers to its own URL", attackRESTPatchURLOfSecretService},
		{"agent PATCH unlinks the credential and moves the URL in one call", attackRESTUnlinkCredentialAndMove},
		{"agent PATCH repoints its own service after an admin gave it a secret header", attackRESTRepointOwnServiceAfterAdminAddsSecret},
		{"agent calls, lists and checks a service on no deck it names", attackRESTCallOffDeck},
		{"agent and admin register metadata, link-local and private hosts", attackRESTRegisterMetadataHost},
		{"URL userinfo read back from reads, exports, errors and logs", attackRESTReadURLUserinfo},
		{"credential secret with a line break", attackRESTCredentialSecretWithLineBreak},
		{"cancelling requests mid-flight is counted and logged as a database outage", attackCancelCountedAsOutage},
		{"a client trickles a request body to hold a connection", attackTrickledBody},
		{"a client holds an idle keep-alive connection", attackIdleConnection},
		{"random HTTP methods grow the metric series without bound", attackMetricLabels},
		{"an exit code outside int32 fails the exec audit with a 500", attackExitCodeOverflow},
		{"invalid UTF-8 or a lone surrogate in a body is silently replaced and stored", attackRESTBadText},
		{"a web page on a foreign origin calls the REST API", attackForeignOriginREST},
		{"agent accepts or rejects its own playbook proposal over REST", attackRESTAcceptOwnProposal},
		{"agent chooses the credential a deck presents to a service", attackRESTChooseDeckCredential},
		{"agent repoints a service a deck presents its own credential to", attackRESTRepointServiceWithDeckCredential},
		{"a cross-origin form post rides the dashboard cookie", attackDashboardCrossOriginFormPost},
		{"a dashboard request from its own origin without the CSRF header", attackDashboardMissingCSRF},
		{"a used dashboard sign-in code is exchanged again", attackDashboardReusedCode},
		{"a member's tokens read, change, link and call another person's private deck and cards", attackRESTOtherPersonsDeck},
		{"a member's tokens read, use for exec or set their own secret for a credential on another person's deck", attackRESTOtherPersonsCredential},
		{"a member re-shares or deletes a deck, adds people or makes tokens for others", attackRESTMemberOverreach},
		{"a person signs in over, or disconnects, another person's own sign-in to a service", attackRESTOverwriteAnotherPersonsSignIn},
		{"a member's dashboard session reads or deletes another person's deck", attackDashboardOtherPersonsDeck},
		{"a member's dashboard page at / draws another person's cards", attackDashboardLandingOtherPersonsCards},
		{"a card name with markup breaks out of the collection the server draws", attackDashboardLandingMarkupNames},
		{"a browser is sent to the OpenID Connect callback with someone else's sign-in", attackOIDCForeignCallback},
		{"a body names a key twice and the last one silently wins", attackRESTDuplicateKeys},
		{"REST with a bearer token on a loopback listener answers any Host (DNS rebinding)", attackRESTForeignHost},
		{"agent registers a name that resolves to a metadata or private address", attackRESTNameResolvesInward},
		{"agent's service redirects the deck to a name that resolves inward", attackRESTRedirectInward},
		{"agent's service names a sign-in server at a name that resolves inward", attackRESTOAuthDiscoveryInward},
		{"agent PATCH, POST or restore sets the exec or skill later agents run", attackRESTRunnablePlaybook},
		{"an agent ends another client's MCP session", attackRESTEndOthersSession},
		{"a playbook's markup runs in the dashboard's preview", attackRESTMarkdownPreviewMarkup},
	})
}
