package dashboardapi

import (
	"encoding/json"
	"fmt"
	"net/http"
	"slices"
	"strings"
	"testing"

	"github.com/agent-deck/agent-deck/backend"
	"github.com/agent-deck/agent-deck/backend/core"
)

// step is one request of a scenario; {name} in path is replaced by vars[name].
type step struct {
	name   string
	method string
	path   string
	body   any
	want   []int // accepted statuses
	check  func(t *testing.T, r response, vars map[string]string)
}

func decode[T any](t *testing.T, r response) T {
	t.Helper()
	var v T
	if err := json.Unmarshal(r.body, &v); err != nil {
		t.Fatalf("decoding %s: %v", r.body, err)
	}
	return v
}

func expandVars(path string, vars map[string]string) string {
	for k, v := range vars {
		path = strings.ReplaceAll(path, "{"+k+"}", v)
	}
	return path
}

// runSteps runs a scenario in order as admin; a failed step does not hide the later ones.
func runSteps(t *testing.T, s *testServer, steps []step, vars map[string]string) {
	t.Helper()
	for _, st := range steps {
		t.Run(st.name, func(t *testing.T) {
			path := expandVars(st.path, vars)
			r := s.do(t, s.admin, st.method, path, st.body)
			if !slices.Contains(st.want, r.status) {
				t.Fatalf("%s %s: status %d, want one of %v: %s", st.method, path, r.status, st.want, r.body)
			}
			if st.check != nil {
				st.check(t, r, vars)
			}
		})
	}
}

// TestEveryRoute drives each route of the table through real HTTP and a real database, and then
// checks from the request log that no route of the table was left out.
func TestEveryRoute(t *testing.T) {
	s := newTestServer(t, Options{})
	vars := map[string]string{}
	runSteps(t, s, routeScenario(), vars)

	hit := s.routesHit(t)
	for _, r := range newAPI(nil, Options{}).routes() {
		if !hit[r.method+" "+r.path] {
			t.Errorf("route %s %s was never exercised", r.method, r.path)
		}
	}
}

func routeScenario() []step {
	ok, created, gone := []int{http.StatusOK}, []int{http.StatusCreated}, []int{http.StatusNoContent}
	// Without a downstream connector the proxy routes answer 503; with one, 200.
	downstream := []int{http.StatusOK, http.StatusServiceUnavailable}
	steps := []step{
		{"healthz", "GET", "/healthz", nil, ok, func(t *testing.T, r response, _ map[string]string) {
			if string(r.body) != `{"status":"ok"}` {
				t.Errorf("body %s", r.body)
			}
		}},
		{"readyz", "GET", "/readyz", nil, ok, nil},
		{"openapi", "GET", "/api/v1/openapi.json", nil, ok, func(t *testing.T, r response, _ map[string]string) {
			if doc := decode[map[string]any](t, r); doc["openapi"] != "3.1.0" {
				t.Errorf("openapi = %v", doc["openapi"])
			}
		}},
		{"problem type", "GET", "/api/v1/problems/NOT_FOUND", nil, ok, func(t *testing.T, r response, _ map[string]string) {
			p := decode[ProblemType](t, r)
			if p.Type != "/api/v1/problems/NOT_FOUND" || p.Status != http.StatusNotFound || p.Title == "" || p.Description == "" {
				t.Errorf("problem type %+v", p)
			}
		}},
		{"unknown problem type", "GET", "/api/v1/problems/NOPE", nil, []int{http.StatusNotFound}, nil},
	}
	steps = append(steps, deckSteps(ok, created)...)
	steps = append(steps, cardSteps(ok, created, downstream)...)
	steps = append(steps, oauthSteps(ok, gone)...)
	steps = append(steps, adminSteps(ok, created, gone)...)
	steps = append(steps, dashboardSessionSteps(ok, created)...)
	steps = append(steps, learnSteps(ok, created)...)
	steps = append(steps, authServerSteps(ok)...)
	steps = append(steps, peopleSteps(ok, created)...)
	return steps
}

func deckSteps(ok, created []int) []step {
	return []step{
		{"create deck", "POST", "/api/v1/decks", map[string]any{"name": "Work"}, created,
			func(t *testing.T, r response, vars map[string]string) {
				d := decode[backend.Deck](t, r)
				if d.Name != "Work" || d.ID == "" {
					t.Errorf("deck %+v", d)
				}
				vars["deck_id"] = d.ID
			}},
		{"list decks", "GET", "/api/v1/decks", nil, ok, func(t *testing.T, r response, _ map[string]string) {
			if ds := decode[[]backend.Deck](t, r); len(ds) != 1 {
				t.Errorf("decks %+v", ds)
			}
		}},
		{"get deck by name", "GET", "/api/v1/decks/Work", nil, ok, nil},
		{"get deck by id", "GET", "/api/v1/decks/{deck_id}", nil, ok, nil},
		{"rename deck", "PATCH", "/api/v1/decks/Work", map[string]any{"name": "Job"}, ok,
			func(t *testing.T, r response, _ map[string]string) {
				if d := decode[backend.Deck](t, r); d.Name != "Job" {
					t.Errorf("renamed deck %+v", d)
				}
			}},
		{"create credential", "POST", "/api/v1/credentials",
			map[string]any{"label": "GitHub", "value": "ghp-route-test"}, created,
			func(t *testing.T, r response, _ map[string]string) {
				c := decode[backend.Credential](t, r)
				if c.ID != "cred_github" || c.EnvName != "GITHUB_API_KEY" || !c.HasSecret {
					t.Errorf("credential %+v", c)
				}
			}},
		{"list credentials", "GET", "/api/v1/credentials", nil, ok, nil},
		{"get credential", "GET", "/api/v1/credentials/cred_github", nil, ok, nil},
		{"update credential", "PATCH", "/api/v1/credentials/GitHub", map[string]any{"tags": []string{"vcs"}}, ok,
			func(t *testing.T, r response, _ map[string]string) {
				if c := decode[backend.Credential](t, r); !slices.Equal(c.Tags, []string{"vcs"}) {
					t.Errorf("tags %v", c.Tags)
				}
			}},
		{"rotate credential", "POST", "/api/v1/credentials/cred_github/rotate",
			map[string]any{"value": "ghp-rotated"}, ok, nil},
		{"create service", "POST", "/api/v1/services",
			map[string]any{"name": "Echo", "type": "mcp", "url": "http://127.0.0.1:9/mcp"}, created,
			func(t *testing.T, r response, vars map[string]string) {
				vars["service_id"] = decode[backend.ServiceCard](t, r).ID
			}},
		{"list services", "GET", "/api/v1/services", nil, ok, nil},
		{"get service", "GET", "/api/v1/services/Echo", nil, ok, nil},
		{"update service", "PATCH", "/api/v1/services/{service_id}",
			map[string]any{"description": "echoes"}, ok, func(t *testing.T, r response, _ map[string]string) {
				if sc := decode[backend.ServiceCard](t, r); sc.Description != "echoes" {
					t.Errorf("service %+v", sc)
				}
			}},
	}
}

func cardSteps(ok, created, downstream []int) []step {
	return []step{
		{"service tools", "GET", "/api/v1/services/Echo/tools", nil, downstream, nil},
		{"tool settings", "PUT", "/api/v1/services/Echo/tool-settings",
			map[string]any{"disabled_tools": []string{}}, downstream, nil},
		{"call tool", "POST", "/api/v1/services/Echo/call",
			map[string]any{"tool_name": "echo", "arguments": map[string]any{"text": "hi"}}, downstream, nil},
		{"check service", "POST", "/api/v1/services/Echo/check", nil, downstream, nil},
		{"approve service tools", "POST", "/api/v1/services/Echo/approve", map[string]any{"tools": []string{}}, downstream, nil},
		{"held service tools", "GET", "/api/v1/services/Echo/held", nil, downstream, nil},
		{"override a tool", "PUT", "/api/v1/services/Echo/tools/echo/override", map[string]any{}, ok, nil},
		{"create playbook", "POST", "/api/v1/playbooks",
			map[string]any{"title": "Deploy", "body": "Push with cred_github.", "triggers": []string{"ship it"}}, created,
			func(t *testing.T, r response, _ map[string]string) {
				p := decode[core.PlaybookResult](t, r)
				if p.ID != "pb_deploy" || !slices.Contains(p.DependsOnCredentialIDs, "cred_github") {
					t.Errorf("playbook %+v", p)
				}
			}},
		{"list playbooks", "GET", "/api/v1/playbooks", nil, ok, nil},
		{"get playbook", "GET", "/api/v1/playbooks/Deploy", nil, ok, nil},
		{"update playbook", "PATCH", "/api/v1/playbooks/pb_deploy",
			map[string]any{"body": "Push with cred_github, carefully."}, ok, nil},
		{"playbook versions", "GET", "/api/v1/playbooks/pb_deploy/versions", nil, ok,
			func(t *testing.T, r response, _ map[string]string) {
				if vs := decode[[]backend.PlaybookVersion](t, r); len(vs) != 1 || vs[0].Version != 1 {
					t.Errorf("versions %+v", vs)
				}
			}},
		{"restore version", "POST", "/api/v1/playbooks/pb_deploy/versions/1/restore", nil, ok,
			func(t *testing.T, r response, _ map[string]string) {
				if p := decode[core.PlaybookResult](t, r); p.Body != "Push with cred_github." {
					t.Errorf("restored body %q", p.Body)
				}
			}},
		{"dependents", "GET", "/api/v1/dependents?card_type=credential&card_id=cred_github", nil, ok,
			func(t *testing.T, r response, _ map[string]string) {
				if ps := decode[[]backend.PlaybookSummary](t, r); len(ps) != 1 || ps[0].ID != "pb_deploy" {
					t.Errorf("dependents %+v", ps)
				}
			}},
		{"link service", "POST", "/api/v1/decks/Job/cards", map[string]any{"card_type": "service", "card_id": "Echo"}, ok, nil},
		{"allow sampling", "PUT", "/api/v1/decks/Job/services/Echo/sampling", map[string]any{"allowed": true}, ok,
			func(t *testing.T, r response, _ map[string]string) {
				if s := decode[core.DeckSampling](t, r); !s.Allowed || s.ServiceName != "Echo" || s.DeckName != "Job" {
					t.Errorf("sampling %+v", s)
				}
			}},
		{"require playbook review", "PUT", "/api/v1/decks/Job/playbook-review", map[string]any{"required": true}, ok,
			func(t *testing.T, r response, _ map[string]string) {
				if v := decode[core.DeckPlaybookReview](t, r); !v.Required || v.Source != "deck" || v.DeckName != "Job" {
					t.Errorf("review %+v", v)
				}
			}},
		{"playbook review", "GET", "/api/v1/decks/Job/playbook-review", nil, ok,
			func(t *testing.T, r response, _ map[string]string) {
				if v := decode[core.DeckPlaybookReview](t, r); !v.Required || v.Source != "deck" {
					t.Errorf("review %+v", v)
				}
			}},
		{"read sampling", "GET", "/api/v1/decks/Job/services/Echo/sampling", nil, ok,
			func(t *testing.T, r response, _ map[string]string) {
				if s := decode[core.DeckSampling](t, r); !s.Allowed || s.ServiceName != "Echo" {
					t.Errorf("sampling %+v", s)
				}
			}},
		{"project tools", "PUT", "/api/v1/decks/Job/projection", map[string]any{"enabled": true, "max_tools": 5}, ok,
			func(t *testing.T, r response, _ map[string]string) {
				if p := decode[core.DeckProjectionView](t, r); !p.Enabled || p.MaxTools != 5 || p.MaxTokens != core.DefaultProjectionTokens || p.Now == nil {
					t.Errorf("projection %+v", p)
				}
			}},
		{"read projection", "GET", "/api/v1/decks/Job/projection", nil, ok,
			func(t *testing.T, r response, _ map[string]string) {
				if p := decode[core.DeckProjectionView](t, r); !p.Enabled || p.DeckName != "Job" {
					t.Errorf("projection %+v", p)
				}
			}},
		{"link credential", "POST", "/api/v1/decks/Job/cards",
			map[string]any{"card_type": "credential", "card_id": "cred_github", "position": 0}, ok, nil},
		{"link playbook", "POST", "/api/v1/decks/{deck_id}/cards", map[string]any{"card_type": "playbook", "card_id": "pb_deploy"}, ok, nil},
		{"deck snapshot", "GET", "/api/v1/decks/Job/snapshot", nil, ok,
			func(t *testing.T, r response, _ map[string]string) {
				d := decode[core.DeckSnapshot](t, r)
				if len(d.Services) != 1 || len(d.Credentials) != 1 || len(d.Playbooks) != 1 {
					t.Errorf("snapshot %+v", d)
				}
			}},
		{"reorder", "PUT", "/api/v1/decks/Job/cards/service/order",
			map[string]any{"ordered_card_ids": []string{"Echo"}}, ok, nil},
		{"deck service settings", "PATCH", "/api/v1/decks/Job/services/Echo/settings",
			map[string]any{"deny_tools": []string{"write"}, "credential_id": "cred_github"}, ok, nil},
		{"limit the deck's services", "PUT", "/api/v1/decks/Job/limits", map[string]any{"calls_per_minute": 100}, ok, nil},
		{"limit the service", "PUT", "/api/v1/services/Echo/limits", map[string]any{"concurrent_calls": 4}, ok, nil},
		{"limit the service on the deck", "PUT", "/api/v1/decks/Job/services/Echo/limits", map[string]any{"calls_per_minute": 10}, ok, nil},
		{"deck limits", "GET", "/api/v1/decks/Job/limits", nil, ok,
			func(t *testing.T, r response, _ map[string]string) {
				if v := decode[core.RateLimits](t, r); v.CallsPerMinute != 100 || v.CallsPerMinuteSource != "deck" {
					t.Errorf("deck limits %+v", v)
				}
			}},
		{"service limits", "GET", "/api/v1/services/Echo/limits", nil, ok,
			func(t *testing.T, r response, _ map[string]string) {
				if v := decode[core.RateLimits](t, r); v.ConcurrentCalls != 4 || v.ConcurrentCallsSource != "service" {
					t.Errorf("service limits %+v", v)
				}
			}},
		{"limits of the service on the deck", "GET", "/api/v1/decks/Job/services/Echo/limits", nil, ok,
			func(t *testing.T, r response, _ map[string]string) {
				v := decode[core.RateLimits](t, r)
				if v.CallsPerMinute != 10 || v.CallsPerMinuteSource != "deck_service" || v.ConcurrentCalls != 4 || v.ConcurrentCallsSource != "service" {
					t.Errorf("pair limits %+v", v)
				}
			}},
		{"read deck service settings", "GET", "/api/v1/decks/Job/services/Echo/settings", nil, ok,
			func(t *testing.T, r response, _ map[string]string) {
				st := decode[core.DeckServiceSettingsResult](t, r)
				if !slices.Equal(st.DenyTools, []string{"write"}) || st.CredentialID != "cred_github" {
					t.Errorf("deck service settings %+v", st)
				}
			}},
		{"unlink warns", "DELETE", "/api/v1/decks/Job/cards/credential/cred_github", nil, ok,
			func(t *testing.T, r response, _ map[string]string) {
				res := decode[core.CardsResult](t, r)
				if len(res.CardIDs) != 0 || len(res.Warnings) == 0 || !strings.Contains(fmt.Sprint(res.Warnings), "pb_deploy") {
					t.Errorf("unlink result %+v", res)
				}
			}},
	}
}

func adminSteps(ok, created, gone []int) []step {
	return []step{
		{"create token", "POST", "/api/v1/tokens", map[string]any{"name": "ci", "scope": "agent"}, created,
			func(t *testing.T, r response, vars map[string]string) {
				tok := decode[core.NewToken](t, r)
				if !strings.HasPrefix(tok.Secret, backend.TokenPrefix) || tok.Scope != backend.ScopeAgent {
					t.Errorf("token %+v", tok.Token)
				}
				vars["token_id"] = tok.ID
			}},
		{"list tokens", "GET", "/api/v1/tokens", nil, ok, nil},
		{"revoke token", "DELETE", "/api/v1/tokens/{token_id}", nil, gone, nil},
		{"sessions", "GET", "/api/v1/sessions", nil, ok, nil},
		{"end a session that is not live", "DELETE", "/api/v1/sessions/00000000-0000-4000-8000-000000000000", nil, []int{http.StatusNotFound}, nil},
		{"markdown preview", "POST", "/api/v1/markdown", map[string]any{"markdown": "# <b>"}, ok,
			func(t *testing.T, r response, _ map[string]string) {
				if p := decode[core.MarkdownPreview](t, r); p.HTML != "<p># &lt;b&gt;</p>" {
					t.Errorf("preview %+v", p)
				}
			}},
		{"display", "GET", "/api/v1/display?workspace=/tmp/nowhere", nil, ok,
			func(t *testing.T, r response, _ map[string]string) {
				if d := decode[core.DisplayLine](t, r); d.Bound || d.Line == "" {
					t.Errorf("display %+v", d)
				}
			}},
		{"export (GET)", "GET", "/api/v1/export?deck=Job", nil, ok, func(t *testing.T, r response, vars map[string]string) {
			vars["bundle"] = string(r.body)
		}},
		{"export (POST)", "POST", "/api/v1/export", map[string]any{}, ok, nil},
		{"import dry run", "POST", "/api/v1/import?dry_run=true", json.RawMessage(`{"format":"agent-deck-bundle","version":1}`), ok,
			func(t *testing.T, r response, _ map[string]string) {
				if rep := decode[core.ImportReport](t, r); !rep.DryRun {
					t.Errorf("report %+v", rep)
				}
			}},
		{"exec", "POST", "/api/v1/exec", map[string]any{"credential_ids": []string{"cred_github"}, "command": []string{"env"}}, created,
			func(t *testing.T, r response, vars map[string]string) {
				g := decode[core.ExecGrant](t, r)
				if g.Env["GITHUB_API_KEY"] != "ghp-rotated" {
					t.Errorf("grant env keys %v", mapsKeys(g.Env))
				}
				vars["exec_id"] = fmt.Sprint(g.AuditID)
			}},
		{"exec finish", "POST", "/api/v1/exec/{exec_id}/finish", map[string]any{"exit_code": 3}, gone, nil},
		{"exec audits", "GET", "/api/v1/exec", nil, ok, func(t *testing.T, r response, _ map[string]string) {
			as := decode[[]backend.ExecAudit](t, r)
			if len(as) != 1 || as[0].ExitCode == nil || *as[0].ExitCode != 3 {
				t.Errorf("audits %+v", as)
			}
		}},
		{"capture arguments", "PUT", "/api/v1/decks/Job/audit", map[string]any{"capture_arguments": true}, ok, nil},
		{"read capture", "GET", "/api/v1/decks/Job/audit", nil, ok, func(t *testing.T, r response, _ map[string]string) {
			if a := decode[core.DeckAuditSettings](t, r); !a.CaptureArguments {
				t.Errorf("audit settings %+v", a)
			}
		}},
		{"tool calls", "GET", "/api/v1/tool-calls?deck=Job&since=1h&token=admin", nil, ok, nil},
		{"a tool call that is not there", "GET", "/api/v1/tool-calls/999999", nil, []int{http.StatusNotFound}, nil},
		{"tool call stats", "GET", "/api/v1/tool-call-stats?deck=Job&group_by=tool&since=2h&bucket=10m", nil, ok,
			func(t *testing.T, r response, _ map[string]string) {
				if st := decode[core.ToolCallStats](t, r); st.BucketSeconds != 600 || st.GroupBy != "tool" || st.Series == nil {
					t.Errorf("stats %+v", st)
				}
			}},
		{"delete playbook", "DELETE", "/api/v1/playbooks/pb_deploy", nil, gone, nil},
		{"delete credential", "DELETE", "/api/v1/credentials/cred_github", nil, ok, nil},
		{"delete service", "DELETE", "/api/v1/services/Echo", nil, gone, nil},
		{"delete deck", "DELETE", "/api/v1/decks/Job", nil, gone, nil},
		{"deck is gone", "GET", "/api/v1/decks/Job", nil, []int{http.StatusNotFound}, nil},
	}
}

func mapsKeys(m map[string]string) []string {
	var ks []string
	for k := range m {
		ks = append(ks, k)
	}
	return ks
}
