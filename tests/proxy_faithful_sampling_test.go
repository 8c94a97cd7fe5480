package tests

import (
	"net/http"
	"strings"
	"testing"

	"github.com/agent-deck/agent-deck/backend"
	"github.com/agent-deck/agent-deck/backend/core"
)

// TestProxyFaithfulSampling: a downstream may ask the agent's model for a completion only where
// an admin allowed it for that service on the deck, and then only the calling session's client
// is asked.
func TestProxyFaithfulSampling(t *testing.T) {
	s, services := startFaithfulDeck(t)
	for _, service := range services {
		t.Run(service, func(t *testing.T) {
			a := dialFaithful(t, s, "A", "faithful", agentCaps{sample: true})
			b := dialFaithful(t, s, "B", "faithful", agentCaps{sample: true})
			plain := dialFaithful(t, s, "plain", "faithful", agentCaps{})
			path := "/api/v1/decks/faithful/services/" + service + "/sampling"
			steps := []struct {
				name string
				run  func(t *testing.T)
			}{
				{"off by default: refused, naming how to allow it", func(t *testing.T) {
					res := a.peer(service, "sample", nil, nil)
					if !strings.Contains(mcpText(res), "sampling is not allowed for this service on this deck") ||
						!strings.Contains(mcpText(res), "agent-deck deck sampling") {
						t.Errorf("A's sampling = %s", mcpText(res))
					}
				}},
				{"an agent token cannot allow it", func(t *testing.T) {
					ans := s.api().Do(t, s.token(backend.ScopeAgent), http.MethodPut, path, map[string]any{"allowed": true})
					if ans.Status != http.StatusForbidden {
						t.Errorf("agent PUT sampling = %d %s", ans.Status, ans.Body)
					}
				}},
				{"allowed: the calling session's model answers", func(t *testing.T) {
					ans := s.api().Do(t, s.AdminToken, http.MethodPut, path, map[string]any{"allowed": true})
					if ans.Status != http.StatusOK || !strings.Contains(string(ans.Body), `"allowed":true`) {
						t.Fatalf("admin PUT sampling = %d %s", ans.Status, ans.Body)
					}
					for _, ag := range []*faithfulAgent{a, b} {
						res := ag.peer(service, "sample", nil, nil)
						if res.IsError || !strings.Contains(mcpText(res), "the model of "+ag.name+" answers") {
							t.Errorf("%s's sampling = %s", ag.name, mcpText(res))
						}
					}
				}},
				{"allowed, but a client without sampling is not asked", func(t *testing.T) {
					res := plain.peer(service, "sample", nil, nil)
					if !strings.Contains(mcpText(res), "sampling failed") || strings.Contains(mcpText(res), "answers") {
						t.Errorf("plain's sampling = %s", mcpText(res))
					}
				}},
				{"bad input is refused, naming what was expected", func(t *testing.T) {
					if ans := s.api().Do(t, s.AdminToken, http.MethodPut, path, map[string]any{}); ans.Status != http.StatusBadRequest ||
						!strings.Contains(string(ans.Body), "allowed") {
						t.Errorf("PUT without allowed = %d %s", ans.Status, ans.Body)
					}
					other := "/api/v1/decks/faithful/services/no-such-service/sampling"
					if ans := s.api().Do(t, s.AdminToken, http.MethodPut, other, map[string]any{"allowed": true}); ans.Status != http.StatusNotFound {
						t.Errorf("PUT for an unknown service = %d %s", ans.Status, ans.Body)
					}
					unlinked := "unlinked-" + service
					if _, err := s.svc.CreateService(s.adminCtx(), core.ServiceInput{Name: unlinked, Type: backend.ServiceRemote,
						URL: "http://127.0.0.1:9/mcp"}); err != nil {
						t.Fatal(err)
					}
					notOn := "/api/v1/decks/faithful/services/" + unlinked + "/sampling"
					if ans := s.api().Do(t, s.AdminToken, http.MethodPut, notOn, map[string]any{"allowed": true}); ans.Status != http.StatusBadRequest ||
						!strings.Contains(string(ans.Body), "is not on deck faithful") {
						t.Errorf("PUT for a service not on the deck = %d %s", ans.Status, ans.Body)
					}
					r := runCLI(s.home, nil, "deck", "sampling", "faithful", service, "--allow", "--deny")
					if r.code != 1 || !strings.Contains(r.stderr, "exactly one of --allow or --deny") {
						t.Errorf("--allow --deny: exit %d, %s", r.code, r.stderr)
					}
				}},
				{"withdrawn with the CLI: refused again", func(t *testing.T) {
					runCLI(s.home, nil, "deck", "sampling", "faithful", service, "--deny").wantCode(t, 0)
					res := a.peer(service, "sample", nil, nil)
					if !strings.Contains(mcpText(res), "sampling is not allowed for this service on this deck") {
						t.Errorf("A's sampling after --deny = %s", mcpText(res))
					}
				}},
			}
			for _, st := range steps {
				t.Run(st.name, st.run)
			}
		})
	}
}
