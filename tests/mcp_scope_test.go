package tests

import (
	"net/http"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/agent-deck/agent-deck/backend"
	"github.com/agent-deck/agent-deck/backend/core"
	"github.com/agent-deck/agent-deck/mcptools"
)

// TestMCPProfiles: the server's profile, narrowed (never widened) per connection and by scope.
func TestMCPProfiles(t *testing.T) {
	names := func(p mcptools.Profile, readOnly bool) []string {
		n := mcptools.ToolNames(p, readOnly)
		slices.Sort(n)
		return n
	}
	standard := startMCPStack(t, mcpStackOptions{})
	runtime := startMCPStack(t, mcpStackOptions{Profile: "runtime"})
	tests := []struct {
		name    string
		s       *mcpStack
		scope   backend.Scope
		headers map[string]string
		query   string
		want    []string
	}{
		{"default standard", standard, backend.ScopeAgent, nil, "", names(mcptools.ProfileStandard, false)},
		{"query narrows", standard, backend.ScopeAgent, nil, "?profile=runtime", names(mcptools.ProfileRuntime, false)},
		{"header narrows", standard, backend.ScopeAgent, map[string]string{backend.HeaderProfile: "runtime"}, "", names(mcptools.ProfileRuntime, false)},
		{"never widened", standard, backend.ScopeAgent, nil, "?profile=legacy", names(mcptools.ProfileStandard, false)},
		{"runtime server never widened", runtime, backend.ScopeAgent, map[string]string{backend.HeaderProfile: "legacy"}, "", names(mcptools.ProfileRuntime, false)},
		{"read scope drops write tools", standard, backend.ScopeAgentRead, nil, "", names(mcptools.ProfileStandard, true)},
		{"admin sees the profile", standard, backend.ScopeAdmin, nil, "", names(mcptools.ProfileStandard, false)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := tt.s.connect(t, tt.s.token(tt.scope), tt.headers, tt.query)
			got := c.toolNames()
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("tools/list (-want +got):\n%s", diff)
			}
		})
	}
	t.Run("unknown profile is refused", func(t *testing.T) {
		status, body := mcpRaw(t, standard, standard.token(backend.ScopeAgent),
			map[string]string{backend.HeaderProfile: "everything"}, "", mcpInitializeBody)
		if status != http.StatusBadRequest {
			t.Errorf("status %d: %s", status, body)
		}
	})
	t.Run("profile-hidden tools cannot be called", func(t *testing.T) {
		// Refused with a teaching isError result that names the profile having the tool.
		c := standard.connect(t, standard.token(backend.ScopeAgent), nil, "?profile=runtime")
		if res, err := c.callErr("create_deck", map[string]any{"name": "x"}); err != nil || !res.IsError ||
			!strings.Contains(mcpText(res), "profile standard") {
			t.Errorf("a runtime connection called create_deck: %v %v", err, res)
		}
		if _, err := standard.svc.GetDeck(standard.adminCtx(), "x"); backend.ErrorCode(err) != backend.CodeNotFound {
			t.Errorf("the refused create_deck made a deck: %v", err)
		}
		if res, err := c.callErr("get_active_deck", nil); err != nil || !res.IsError ||
			!strings.Contains(mcpText(res), "profile legacy") {
			t.Errorf("a standard server served a legacy alias: %v %v", err, res)
		}
	})
}

// TestMCPReadScopeCannotWrite tries every write tool with a read-only token: each is refused
// with FORBIDDEN and the database does not change.
func TestMCPReadScopeCannotWrite(t *testing.T) {
	w := newMCPToolsWorld(t)
	before := mcpSnapshotAll(t, w.s)
	calls := map[string]map[string]any{
		"update_playbook":                   {"playbook_id": w.dev.Playbook.ID, "body": "x"},
		"propose_playbook_patch":            {"kind": "signal_only", "rationale": "x"},
		"manage_deck_card":                  {"action": "unlink", "card_type": "service", "card_id": w.dev.Service.ID},
		"create_deck":                       {"name": "x"},
		"register_service":                  {"name": "x", "type": "mcp", "url": "http://127.0.0.1:9/mcp"},
		"update_service":                    {"service_id": w.dev.Service.ID, "description": "x"},
		"register_playbook":                 {"title": "x", "body": "y"},
		"update_service_tool_settings":      {"service_id": w.dev.Service.ID, "disabled_tools": []string{"echo"}},
		"add_service_to_bound_deck":         {"service_id": w.other.Service.ID},
		"add_credential_to_bound_deck":      {"credential_id": w.other.Cred.ID},
		"add_playbook_to_bound_deck":        {"playbook_id": w.other.Playbook.ID},
		"remove_service_from_bound_deck":    {"service_id": w.dev.Service.ID},
		"remove_credential_from_bound_deck": {"credential_id": w.dev.Cred.ID},
		"remove_playbook_from_bound_deck":   {"playbook_id": w.dev.Playbook.ID},
	}
	for _, spec := range mcptools.Tools() {
		if spec.Access != mcptools.Write || spec.Tier == mcptools.TierResource {
			continue // the resource profile's write actions: TestResourceProfileReadScope
		}
		args, ok := calls[spec.Name]
		if !ok {
			t.Errorf("no read-scope case for write tool %s", spec.Name)
			continue
		}
		t.Run(spec.Name, func(t *testing.T) {
			if e := w.reader.fails(spec.Name, args); e.Code != "FORBIDDEN" {
				t.Errorf("code %s: %+v", e.Code, e)
			}
		})
	}
	for _, tool := range []string{"fail", "write_note", "set_tools", "crash"} {
		t.Run("call_service_tool "+tool, func(t *testing.T) {
			e := w.reader.fails("call_service_tool", map[string]any{"serviceId": w.dev.Service.ID, "toolName": tool})
			if e.Code != "FORBIDDEN" {
				t.Errorf("code %s: %+v", e.Code, e)
			}
		})
	}
	if diff := cmp.Diff(before, mcpSnapshotAll(t, w.s)); diff != "" {
		t.Errorf("the read-only token changed the database (-before +after):\n%s", diff)
	}
}

// mcpDBState is everything a write could change, for before/after comparisons.
type mcpDBState struct {
	Decks     []core.DeckSnapshot
	Services  []backend.ServiceCard
	Creds     []backend.Credential
	Playbooks []backend.Playbook
}

func mcpSnapshotAll(t testing.TB, s *mcpStack) mcpDBState {
	t.Helper()
	ctx := s.adminCtx()
	var st mcpDBState
	decks, err := s.svc.ListDecks(ctx)
	if err != nil {
		t.Fatal(err)
	}
	for _, d := range decks {
		snap, err := s.svc.DeckSnapshot(ctx, d.ID)
		if err != nil {
			t.Fatal(err)
		}
		for i := range snap.Services {
			snap.Services[i].Health = backend.Health{}
			snap.Services[i].EnabledToolCount, snap.Services[i].DisabledToolCount = nil, nil
		}
		st.Decks = append(st.Decks, snap)
	}
	if st.Services, err = s.svc.ListServices(ctx); err != nil {
		t.Fatal(err)
	}
	for i := range st.Services {
		st.Services[i].Health = backend.Health{}
	}
	if st.Creds, err = s.svc.ListCredentials(ctx); err != nil {
		t.Fatal(err)
	}
	if st.Playbooks, err = s.svc.ListPlaybooks(ctx); err != nil {
		t.Fatal(err)
	}
	return st
}

// TestMCPToolListServed: what /mcp serves per profile is byte for byte the registry's rendering,
// which the golden files in mcptools/testdata pin.
func TestMCPToolListServed(t *testing.T) {
	s := startMCPStack(t, mcpStackOptions{Profile: "legacy"})
	tok := s.token(backend.ScopeAgent)
	for _, p := range mcptools.Profiles {
		want, err := mcptools.ToolsJSON(p, false)
		if err != nil {
			t.Fatal(err)
		}
		if got := mcpServedTools(t, s, tok, p); string(got) != string(want) {
			t.Errorf("%s: served tools differ from the registry:\n%s\nwant\n%s", p, got, want)
		}
	}
}
