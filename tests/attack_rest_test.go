package tests

import "testing"

// Attacks on the REST API (/api/v1, /metrics, health).
func TestAttacksREST(t *testing.T) {
	runAttacks(t, []attack{
		{"a client trickles a request body to hold a connection", attackTrickledBody},
		{"a client holds an idle keep-alive connection", attackIdleConnection},
		{"random HTTP methods grow the metric series without bound", attackMetricLabels},
		{"an exit code outside int32 fails the exec audit with a 500", attackExitCodeOverflow},
		{"invalid UTF-8 or a lone surrogate in a body is silently replaced and stored", attackRESTBadText},
		{"a web page on a foreign origin calls the REST API", attackForeignOriginREST},
	})
}
