package dashboardapi

import (
	"encoding/json"
	"net/http"
	"testing"

	"github.com/agent-deck/agent-deck/backend"
)

// learnSteps exercise the review routes. Proposals come from agents over MCP (tests/learn_*
// drive that flow end to end); here the proposal routes answer NOT_FOUND for an unknown id.
func learnSteps(ok, created []int) []step {
	missing := "/api/v1/proposals/00000000-0000-4000-8000-000000000000"
	notFound := []int{http.StatusNotFound}
	var signalID string
	return []step{
		{"list proposals", "GET", "/api/v1/proposals?status=open", nil, ok, func(t *testing.T, r response, _ map[string]string) {
			if ps := decode[[]backend.Proposal](t, r); len(ps) != 0 {
				t.Errorf("proposals %+v", ps)
			}
		}},
		{"show a missing proposal", "GET", missing, nil, notFound, nil},
		{"accept a missing proposal", "POST", missing + "/accept", nil, notFound, nil},
		{"reject a missing proposal", "POST", missing + "/reject", map[string]any{"reason": "no"}, notFound, nil},
		{"import signals", "POST", "/api/v1/signals/import", map[string]any{"signals": []map[string]any{
			{"rationale": "the user wants dry runs first", "evidence": map[string]any{"user_feedback_excerpt": "dry-run!"}}}}, created,
			func(t *testing.T, r response, _ map[string]string) {
				gs := decode[[]backend.Signal](t, r)
				if len(gs) != 1 || gs[0].Status != backend.SignalOpen {
					t.Fatalf("signals %+v", gs)
				}
				signalID = gs[0].ID
			}},
		{"discard signals", "POST", "/api/v1/signals/discard", lazyBody(func() any { return map[string]any{"ids": []string{signalID}} }), ok, nil},
		{"list signals", "GET", "/api/v1/signals", nil, ok, func(t *testing.T, r response, _ map[string]string) {
			if gs := decode[[]backend.Signal](t, r); len(gs) != 1 || gs[0].Status != backend.SignalDiscarded {
				t.Errorf("signals %+v", gs)
			}
		}},
		{"playbook usage", "GET", "/api/v1/playbook-usage", nil, ok, nil},
	}
}

// lazyBody is a request body built when the request is sent, from values earlier steps set.
type lazyBody func() any

func (f lazyBody) MarshalJSON() ([]byte, error) { return json.Marshal(f()) }
