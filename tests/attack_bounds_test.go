package tests

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"testing"

	"github.com/agent-deck/agent-deck/backend"
	"github.com/agent-deck/agent-deck/backend/core"
)

// Attacks that try to make the deck keep without bound what anyone may send: client
// registrations that need no token, and one agent token's proposals and signals.

// attackOAuthRegistrationFlood: a script registers OAuth clients as fast as it can, without a
// token (as RFC 7591 allows). Past the rate, registrations are refused in the RFC 7591 shape
// with 429 and Retry-After, naming the rate.
func attackOAuthRegistrationFlood(t *testing.T) {
	srv := startFrontDoor(t, nil)
	const tries = 40
	created, refused := 0, 0
	for i := range tries {
		req, err := http.NewRequest(http.MethodPost, srv.URL()+"/oauth/register", strings.NewReader(
			fmt.Sprintf(`{"client_name":"flood %d","redirect_uris":["http://127.0.0.1:%d/cb"]}`, i, 40000+i)))
		if err != nil {
			t.Fatal(err)
		}
		req.Header.Set("Content-Type", "application/json")
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		var out map[string]any
		_ = json.NewDecoder(resp.Body).Decode(&out)
		resp.Body.Close()
		switch resp.StatusCode {
		case http.StatusCreated:
			created++
		case http.StatusTooManyRequests:
			refused++
			wait, err := strconv.Atoi(resp.Header.Get("Retry-After"))
			desc, _ := out["error_description"].(string)
			if err != nil || wait < 1 || wait > 60 || out["error"] != "temporarily_unavailable" || !strings.Contains(desc, "10 a minute") {
				t.Fatalf("refusal: Retry-After %q, body %v; want seconds to wait and the rate named", resp.Header.Get("Retry-After"), out)
			}
		default:
			t.Fatalf("registration %d: status %d %v", i, resp.StatusCode, out)
		}
	}
	// A minute's worth at once, and one more every 6 s: the loop takes well under that.
	if created > 11 || refused < tries-11 {
		t.Errorf("%d registrations accepted of %d sent, want at most 11", created, tries)
	}
}

// attackReviewQueueFlood: one agent token records feedback signals and proposals without end,
// burying what people review. Past its bound each is refused with LIMIT_REACHED naming the
// limit; superseding its own proposal still works at the bound.
func attackReviewQueueFlood(t *testing.T) {
	d := startPolicyDeck(t)
	m := d.stack.connect(t, d.agent, nil, "")
	m.ok("bind_workspace", map[string]any{"workspaceRoot": "/srv/app", "deckId": "ops"}, nil)
	for i := range core.MaxOpenSignalsPerToken {
		m.ok("propose_playbook_patch", map[string]any{"kind": "signal_only", "rationale": fmt.Sprintf("noise %d", i)}, nil)
	}
	e := m.fails("propose_playbook_patch", map[string]any{"kind": "signal_only", "rationale": "one more"})
	if e.Code != string(backend.CodeLimitReached) || !strings.Contains(e.Message, strconv.Itoa(core.MaxOpenSignalsPerToken)) || e.Hint == "" {
		t.Errorf("signal past the bound = %+v, want LIMIT_REACHED naming %d, with a hint", e, core.MaxOpenSignalsPerToken)
	}
	var last core.ProposeResult
	for i := range core.MaxOpenProposalsPerToken {
		m.ok("propose_playbook_patch", map[string]any{"kind": "update", "playbook_id": d.fx.Playbook.ID,
			"rationale": "more", "ops": []map[string]any{{"op": "add_item", "section": "Noise", "text": fmt.Sprintf("item %d", i)}}}, &last)
	}
	e = m.fails("propose_playbook_patch", map[string]any{"kind": "update", "playbook_id": d.fx.Playbook.ID,
		"rationale": "more", "ops": []map[string]any{{"op": "add_item", "section": "Noise", "text": "one more"}}})
	if e.Code != string(backend.CodeLimitReached) || !strings.Contains(e.Message, strconv.Itoa(core.MaxOpenProposalsPerToken)) {
		t.Errorf("proposal past the bound = %+v, want LIMIT_REACHED naming %d", e, core.MaxOpenProposalsPerToken)
	}
	m.ok("propose_playbook_patch", map[string]any{"kind": "update", "playbook_id": d.fx.Playbook.ID, "rationale": "better",
		"supersedes": []string{last.Proposal.ID},
		"ops":        []map[string]any{{"op": "add_item", "section": "Noise", "text": "instead"}}}, nil)
	open, err := d.stack.svc.ListProposals(d.stack.adminCtx(), backend.ProposalFilter{Status: backend.ProposalOpen})
	if err != nil || len(open) != core.MaxOpenProposalsPerToken {
		t.Errorf("open proposals = %d (%v), want %d", len(open), err, core.MaxOpenProposalsPerToken)
	}
	// Another token's agent is not bounded by this one's queue.
	other := d.stack.connect(t, d.stack.token(backend.ScopeAgent), nil, "")
	other.ok("bind_workspace", map[string]any{"workspaceRoot": "/srv/app", "deckId": "ops"}, nil)
	other.ok("propose_playbook_patch", map[string]any{"kind": "signal_only", "rationale": "mine"}, nil)
}
