package tests

import (
	"net/http"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"

	"github.com/agent-deck/agent-deck/backend"
	"github.com/agent-deck/agent-deck/backend/core"
)

// TestDashboardReviewInBrowser drives the review queue in headless Chromium against a real
// serve on real PostgreSQL: an agent proposes over MCP, a person accepts one proposal in the
// page and the playbook changes; a proposal whose anchor went away answers 409 in the page and
// changes nothing; a rejection keeps its reason; a signal is discarded from the table.
func TestDashboardReviewInBrowser(t *testing.T) {
	chromiumPath(t)
	srv := startFrontDoor(t, nil)
	f := &dashFlow{srv: srv, b: startDashBrowser(t, srv)}
	b := f.b
	body := "# Release\n\n## Checks\n\n- lint\n"
	var pb core.PlaybookResult
	if status := f.api("POST", "/api/v1/playbooks", map[string]any{"title": "Release", "body": body, "triggers": []string{"release"}}, &pb); status != http.StatusCreated {
		t.Fatalf("create playbook: %d", status)
	}
	if status := f.api("POST", "/api/v1/decks", map[string]any{"name": "Work"}, nil); status != http.StatusCreated {
		t.Fatalf("create deck: %d", status)
	}
	if status := f.api("POST", "/api/v1/decks/Work/cards", map[string]any{"card_type": "playbook", "card_id": pb.ID}, nil); status != http.StatusOK {
		t.Fatalf("link playbook: %d", status)
	}
	agent := dialMCP(t, srv.URL()+"/mcp", map[string]string{"Authorization": "Bearer " + frontDoorToken(t, srv, backend.ScopeAgent)}, "")
	agent.ok("bind_workspace", map[string]any{"workspaceRoot": "/home/dev/shop", "deckId": "Work"}, nil)
	propose := func(rationale string, ops ...map[string]any) string {
		var res core.ProposeResult
		args := map[string]any{"kind": "update", "playbook_id": pb.ID, "rationale": rationale, "ops": ops}
		if len(ops) == 0 {
			args = map[string]any{"kind": "signal_only", "playbook_id": pb.ID, "rationale": rationale}
		}
		agent.ok("propose_playbook_patch", args, &res)
		if res.Proposal != nil {
			return res.Proposal.ID
		}
		return res.Signal.ID
	}
	good := propose("the user asked for a dry run first",
		map[string]any{"op": "add_item", "section": "Checks", "text": "dry-run first"},
		map[string]any{"op": "set_triggers", "triggers": []string{"release", "ship it"}})
	stale := propose("lint the whole tree", map[string]any{"op": "amend_item", "section": "Checks", "anchor": "lint", "text": "lint everything"})
	rejected := propose("tag the release", map[string]any{"op": "add_item", "section": "Checks", "text": "tag it"})
	signal := propose("the user prefers short changelogs")

	code := dashboardSignInCode(t, srv)
	b.do("opening the one-time URL", chromedp.Navigate(srv.URL()+"/signin#code="+code))
	b.waitFor("the collection", `document.querySelector('main h1')?.textContent === 'Collection'`)
	b.waitFor("the open count in the navigation", `document.getElementById('review-count')?.textContent === '3'`)

	t.Run("the queue lists open proposals and signals", func(t *testing.T) {
		b.t = t
		b.visit("#/review", "Review")
		b.waitFor("the proposal rows", `document.querySelectorAll('tr[data-proposal]').length === 3`)
		b.waitFor("the signal row", `!!document.querySelector('tr[data-signal=`+js(signal)+`]')`)
		// The first column says what a proposal changes, not its id; the kind stays one word.
		b.waitFor("the proposal's title", `document.querySelector('tr[data-proposal=`+js(good)+`] td a')?.textContent === 'Release: 2 changes'`)
		if evalIn[bool](b, `[...document.querySelectorAll('tr[data-proposal] td')].some(td => /^[0-9a-f]{8}-[0-9a-f]{4}-/.test(td.innerText.trim()))`) {
			t.Error("a cell of the queue is a bare id")
		}
		if evalIn[bool](b, `[...document.querySelectorAll('tr[data-proposal] td:nth-child(2)')].some(td => { const r = document.createRange(); r.selectNodeContents(td); return r.getClientRects().length > 1; })`) {
			t.Error("the kind is broken over lines")
		}
		b.checkAccessibility("review")
		b.screenshot("review")
	})
	t.Run("accept a proposal in the page", func(t *testing.T) {
		b.t = t
		b.click(`a[href="#/proposals/` + good + `"]`)
		b.waitFor("the proposal page", `document.querySelector('main h1')?.textContent === `+js("Proposal "+good))
		b.waitFor("the added line", `[...document.querySelectorAll('.diff .add')].some(d => d.textContent === '+- dry-run first')`)
		b.waitFor("the new trigger", `document.querySelector('[aria-label="Triggers after"] li.add')?.textContent === '+ ship it'`)
		b.checkAccessibility("proposal")
		b.screenshot("proposal")
		b.click(`main h1 + .row button.primary`) // Accept
		b.waitFor("the accepted status", `document.querySelector('[data-status]')?.textContent === 'accepted'`)
		b.waitFor("the count going down", `document.getElementById('review-count')?.textContent === '2'`)
		var got backend.Playbook
		f.api("GET", "/api/v1/playbooks/"+pb.ID, nil, &got)
		if !strings.Contains(got.Body, "- lint\n- dry-run first") || !strings.Contains(strings.Join(got.Triggers, ","), "ship it") {
			t.Errorf("playbook after accepting in the page: %q %v", got.Body, got.Triggers)
		}
	})
	t.Run("a stale proposal shows the 409 and changes nothing", func(t *testing.T) {
		b.t = t
		changed := "# Release\n\n## Checks\n\n- format\n"
		if status := f.api("PATCH", "/api/v1/playbooks/"+pb.ID, map[string]any{"body": changed}, nil); status != http.StatusOK {
			t.Fatalf("change the playbook: %d", status)
		}
		b.visit("#/proposals/"+stale, "Proposal "+stale)
		b.waitFor("the conflict preview", `!!document.querySelector('[data-conflict]')`)
		b.click(`main h1 + .row button.primary`) // Accept
		b.waitFor("the stale status", `document.querySelector('[data-status]')?.textContent === 'stale'`)
		b.waitFor("the 409 message", `document.querySelector('main .error')?.innerText.includes('no longer applies')`)
		b.waitFor("the reassurance", mainHas("Nothing changed."))
		b.checkAccessibility("proposal (stale)")
		b.screenshotHere("proposal-stale")
		var got backend.Playbook
		f.api("GET", "/api/v1/playbooks/"+pb.ID, nil, &got)
		if got.Body != changed {
			t.Errorf("a stale accept in the page changed the playbook: %q", got.Body)
		}
		var ps []backend.Proposal
		f.api("GET", "/api/v1/proposals?status=stale", nil, &ps)
		if len(ps) != 1 || ps[0].ID != stale {
			t.Errorf("stale proposals: %+v", ps)
		}
	})
	t.Run("reject with a reason", func(t *testing.T) {
		b.t = t
		b.visit("#/proposals/"+rejected, "Proposal "+rejected)
		b.click(`main h1 + .row button.danger`) // Reject
		b.waitFor("the reject form", `!!document.querySelector('dialog[open] textarea[name=reason]')`)
		b.typeInto(`dialog[open] textarea[name=reason]`, "not for this release")
		b.click(`dialog[open] button[type=submit]`)
		b.waitFor("the rejected status", `document.querySelector('[data-status]')?.textContent === 'rejected'`)
		b.waitFor("the reason", mainHas("not for this release"))
		b.waitFor("no open proposals left", `document.getElementById('review-count')?.textContent === ''`)
	})
	t.Run("discard a signal", func(t *testing.T) {
		b.t = t
		b.visit("#/review?status=rejected", "Review")
		b.waitFor("the rejected proposal", `!!document.querySelector('tr[data-proposal=`+js(rejected)+`]')`)
		b.click(`button[aria-label="Discard ` + signal + `"]`)
		b.waitFor("the discarded status", `document.querySelector('tr[data-signal=`+js(signal)+`] td:nth-child(2)')?.textContent === 'discarded'`)
		var sigs []backend.Signal
		f.api("GET", "/api/v1/signals", nil, &sigs)
		if len(sigs) != 1 || sigs[0].Status != backend.SignalDiscarded {
			t.Errorf("signals after discarding in the page: %+v", sigs)
		}
		b.checkAccessibility("review (rejected)")
	})
	b.t = t
	b.checkNoExceptions()
}
