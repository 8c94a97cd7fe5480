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
	})
}
