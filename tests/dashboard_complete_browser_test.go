package tests

import (
	"encoding/json"
	"fmt"
	"net/http"
	"slices"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"

	"github.com/agent-deck/agent-deck/backend"
	"github.com/agent-deck/agent-deck/backend/core"
)

// completeFlow is the state of TestDashboardCompleteInBrowser: a deck with a remote service
// (the Go test peer over HTTP), a credential, two playbooks, and an agent that used them.
type completeFlow struct {
	*dashFlow
	deckID string
	agent  *mcpConn
}

// TestDashboardCompleteInBrowser drives, in headless Chromium against a real serve, every
// capability of the REST API that had no screen: the tool-call audit trail with its filters and
// one call, the exec audit, playbook usage, the service fields credential_id, timeout_seconds
// and pin_tools, the per-service and per-tool charts, a deck's rules for a service (tools,
// credential, sampling) and its argument capture, ending a live session, the markdown preview;
// and what a person sees: unlinking asks first, Connect on a service without sign-in says so,
// no sideways scroll at 400 px. Each flow ends with a screenshot and an accessibility check.
func TestDashboardCompleteInBrowser(t *testing.T) {
	chromiumPath(t)
	srv := startFrontDoor(t, nil)
	f := &completeFlow{dashFlow: &dashFlow{srv: srv, b: startDashBrowser(t, srv)}}
	f.seed(startHTTPPeer(t))
	f.b.do("signing in", chromedp.Navigate(srv.URL()+"/signin#code="+dashboardSignInCode(t, srv)))
	f.b.waitFor("the collection", `document.querySelector('main h1')?.textContent === 'Collection'`)
	runDashFlows(t, f.b, f, []dashStep[*completeFlow]{
		{"filter the tool calls and open one", (*completeFlow).toolCalls},
		{"read the exec audit", (*completeFlow).execAudit},
		{"see which playbooks agents open and which never", (*completeFlow).playbookUsage},
		{"set a service's credential, timeout and pinning", (*completeFlow).serviceFields},
		{"see a service's calls per tool as charts", (*completeFlow).serviceCharts},
		{"Connect on a service that asks for no sign-in", (*completeFlow).connectWithoutSignIn},
		{"the service page at 400 px", (*completeFlow).narrowService},
		{"set a deck's rules for a service", (*completeFlow).deckRules},
		{"capture arguments and see the deck's charts", (*completeFlow).deckAudit},
		{"unlinking a card a playbook uses asks first", (*completeFlow).unlinkAsks},
		{"end a live session", (*completeFlow).endSession},
		{"preview markdown as the spec says, markup refused", (*completeFlow).markdownPreview},
		{"the collection the server draws shows markup as text", (*completeFlow).drawnMarkup},
		{"read error bodies old and new", (*completeFlow).errorBodies},
	})
}

// seed builds the deck through REST and lets an agent use it over MCP.
func (f *completeFlow) seed(peer string) {
	t := f.b.t
	post := func(path string, body any, want int) []byte {
		status, raw := frontDoorCall(t, f.srv, f.srv.AdminToken(), http.MethodPost, path, []byte(toJSON(t, body)))
		if status != want {
			t.Fatalf("POST %s: %d %s", path, status, raw)
		}
		return raw
	}
	var deck backend.Deck
	must(t, json.Unmarshal(post("/api/v1/decks", map[string]any{"name": "Work"}, http.StatusCreated), &deck))
	f.deckID = deck.ID
	// A long address, as real ones are: the service page must wrap it, not scroll sideways.
	long := peer + "?workspace=" + strings.Repeat("a_rather_long_workspace_name_", 6)
	post("/api/v1/services", map[string]any{"name": "Peer", "type": "mcp", "url": long, "pin_tools": true}, http.StatusCreated)
	post("/api/v1/credentials", map[string]any{"label": "Key", "scheme": "bearer", "value": "k-" + randHex(8)}, http.StatusCreated)
	post("/api/v1/playbooks", map[string]any{"title": "Deploy", "body": "Call Peer with cred_key.", "triggers": []string{"deploy"}}, http.StatusCreated)
	post("/api/v1/playbooks", map[string]any{"title": "Unused", "body": "Nobody asks.", "triggers": []string{"never"}}, http.StatusCreated)
	// A title an agent could have written: the screens show it as text.
	post("/api/v1/playbooks", map[string]any{"title": `<img src=x onerror="window.__pwned=7">`, "body": "x", "triggers": []string{`<b onmouseover="window.__pwned=8">`}}, http.StatusCreated)
	for _, c := range [][2]string{{"service", "Peer"}, {"credential", "cred_key"}, {"playbook", "pb_deploy"}, {"playbook", "pb_unused"}} {
		post("/api/v1/decks/Work/cards", map[string]any{"card_type": c[0], "card_id": c[1]}, http.StatusOK)
	}
	var tok core.NewToken
	must(t, json.Unmarshal(post("/api/v1/tokens", map[string]any{"name": "ci-agent", "scope": "agent"}, http.StatusCreated), &tok))
	f.agent = dialMCP(t, f.srv.URL()+"/mcp", map[string]string{"Authorization": "Bearer " + tok.Secret}, "")
	f.agent.ok("bind_workspace", map[string]any{"workspaceRoot": "/home/dev/shop", "deckId": "Work"}, nil)
	for _, call := range []struct{ tool, msg string }{{"echo", "one"}, {"echo", "two"}, {"echo", "three"}, {"fail", "boom"}} {
		f.agent.call("call_service_tool", map[string]any{"serviceId": "Peer", "toolName": call.tool, "arguments": map[string]any{"message": call.msg}})
	}
	f.agent.ok("get_playbook", map[string]any{"playbook_id": "pb_deploy"}, nil)
	var grant core.ExecGrant
	must(t, json.Unmarshal(post("/api/v1/exec", map[string]any{"credential_ids": []string{"cred_key"}, "command": []string{"env"}, "deck": "Work"}, http.StatusCreated), &grant))
	status, raw := frontDoorCall(t, f.srv, f.srv.AdminToken(), http.MethodPost, fmt.Sprintf("/api/v1/exec/%d/finish", grant.AuditID), []byte(`{"exit_code":0}`))
	if status != http.StatusNoContent {
		t.Fatalf("finish exec: %d %s", status, raw)
	}
	// The trail is written off the call path: wait until the four calls are in it.
	for i := 0; ; i++ {
		var page backend.ToolCallPage
		f.api("GET", "/api/v1/tool-calls?deck=Work", nil, &page)
		if len(page.Calls) == 4 {
			break
		}
		if i > 400 {
			t.Fatalf("the audit trail holds %d calls, want 4", len(page.Calls))
		}
		evalIn[bool](f.b, `new Promise(r => setTimeout(() => r(true), 50))`)
	}
}

// choose sets a select's value as a person would and lets the page hear it.
func (f *completeFlow) choose(sel, value string) {
	f.b.t.Helper()
	f.b.do("choosing "+value+" in "+sel, chromedp.Evaluate[chromedp.Void](`(() => { const el = document.querySelector(`+js(sel)+`);
		el.value = `+js(value)+`; el.dispatchEvent(new Event('change', {bubbles: true})); })()`))
}

func (f *completeFlow) toolCalls() {
	b := f.b
	b.click(`#nav a[data-nav=activity]`)
	b.waitFor("the activity screen", `document.querySelector('main h1')?.textContent === 'Activity'`)
	b.waitFor("the four calls", `document.querySelectorAll('tr[data-call]').length === 4`)
	b.checkAccessibility("activity")
	b.screenshot("activity")
	f.choose(`form[aria-label="Filter calls"] select[name=outcome]`, "is_error")
	b.click(`form[aria-label="Filter calls"] button[type=submit]`)
	b.waitFor("the failed call alone", `document.querySelectorAll('tr[data-call]').length === 1 && !!document.querySelector('tr[data-call] [data-outcome=is_error]')`)
	f.choose(`form[aria-label="Filter calls"] select[name=outcome]`, "")
	f.choose(`form[aria-label="Filter calls"] select[name=token]`, "ci-agent")
	b.typeInto(`form[aria-label="Filter calls"] input[name=tool]`, "echo")
	b.click(`form[aria-label="Filter calls"] button[type=submit]`)
	b.waitFor("the agent's echo calls", `document.querySelectorAll('tr[data-call]').length === 3`)
	if loc := evalIn[string](b, `location.hash`); !strings.Contains(loc, "token=ci-agent") || !strings.Contains(loc, "tool=echo") {
		b.t.Errorf("the filter is not in the address: %s", loc)
	}
	b.click(`tr[data-call] td a`)
	b.waitFor("one call", `document.querySelector('main h1')?.textContent === 'Call of echo'`)
	b.waitFor("its facts", `['ci-agent', 'Work', 'Peer', 'agent-deck-tests', 'not captured'].every(w => document.querySelector('[data-call-detail]')?.innerText.includes(w))`)
	b.checkAccessibility("call")
	b.screenshot("call")
}

func (f *completeFlow) execAudit() {
	b := f.b
	b.visit("#/activity/exec", "Activity")
	b.waitFor("the exec row", `document.querySelector('tr[data-exec]')?.innerText.includes('env') && document.querySelector('tr[data-exec]')?.innerText.includes('cred_key')`)
	b.waitFor("its exit code and deck", `[...document.querySelectorAll('tr[data-exec] td')].map(td => td.innerText).join('|').includes('Work|0|')`)
	b.checkAccessibility("exec audit")
	b.screenshot("exec")
}

func (f *completeFlow) playbookUsage() {
	b := f.b
	b.visit("#/activity/playbooks", "Activity")
	b.waitFor("Deploy opened once", `document.querySelector('tr[data-usage=pb_deploy]')?.innerText.includes('1 times')`)
	b.waitFor("Unused never opened", `!!document.querySelector('li[data-never=pb_unused]') && !document.querySelector('li[data-never=pb_deploy]')`)
	b.waitFor("the markup title shown as text", `[...document.querySelectorAll('li[data-never]')].some(li => li.innerText.includes('<img src=x onerror='))`)
	if evalIn[bool](b, `!!document.querySelector('main img, main [onerror], main [onmouseover]') || window.__pwned !== undefined`) {
		b.t.Error("a playbook's title became markup on the usage screen")
	}
	b.checkAccessibility("playbook usage")
	b.screenshot("playbook-usage")
}

func (f *completeFlow) serviceFields() {
	b := f.b
	b.visit("#/collection", "Collection")
	b.click(`button[aria-label="Edit Peer"]`)
	b.waitFor("the service form", `!!document.querySelector('dialog[open] input[name=timeout_seconds]')`)
	if !evalIn[bool](b, `document.querySelector('dialog[open] input[name=pin_tools]').checked`) {
		b.t.Error("the form does not show pinning on")
	}
	f.choose(`dialog[open] select[name=credential_id]`, "cred_key")
	b.typeInto(`dialog[open] input[name=timeout_seconds]`, "30")
	b.click(`dialog[open] input[name=pin_tools]`)
	b.checkAccessibility("service form")
	b.screenshotHere("service-form")
	b.click(`dialog[open] button[type=submit]`)
	b.waitFor("the form to close", `!document.querySelector('dialog[open]')`)
	var svc backend.ServiceCard
	f.api("GET", "/api/v1/services/Peer", nil, &svc)
	if svc.CredentialID != "cred_key" || svc.TimeoutSeconds != 30 || svc.PinTools {
		b.t.Errorf("service after the form: credential %q, timeout %d, pin %v; want cred_key, 30, false", svc.CredentialID, svc.TimeoutSeconds, svc.PinTools)
	}
}

func (f *completeFlow) serviceCharts() {
	b := f.b
	b.visit("#/services/Peer", "Peer")
	b.waitFor("the fields", `['Timeout 30 s', 'not pinned', 'cred_key'].every(w => document.querySelector('[data-service-facts]')?.innerText.includes(w))`)
	b.waitFor("a chart of echo", `document.querySelector('[data-charts=tool] [data-series=echo]')?.innerText.includes('3 calls')`)
	b.waitFor("the failure of fail", `document.querySelector('[data-charts=tool] [data-series=fail] [data-failed]')?.dataset.failed === '1'`)
	if n := evalIn[int](b, `document.querySelectorAll('[data-series=echo] svg.calls rect.bar').length`); n < 1 {
		b.t.Errorf("the calls chart of echo draws %d bars", n)
	}
	if n := evalIn[int](b, `document.querySelectorAll('[data-series=fail] svg.calls rect.bar.fail').length`); n < 1 {
		b.t.Errorf("the calls chart of fail draws no failed bar")
	}
	if !evalIn[bool](b, `!!document.querySelector('[data-series=echo] svg.latency polyline.p50')?.getAttribute('points')`) {
		b.t.Error("the latency chart of echo has no median line")
	}
	b.checkSeen("service charts", true, `[data-series=echo] svg.calls`, `[data-series=echo] svg.latency`)
	if href := evalIn[string](b, `document.querySelector('[data-charts=tool] a.button')?.getAttribute('href')`); href != "#/activity?service=Peer" {
		b.t.Errorf("the charts link to %q, want the service's calls", href)
	}
	b.checkAccessibility("service charts")
	b.do("scrolling to the charts", chromedp.ScrollIntoView(chromedp.CSS(`[data-charts=tool]`)))
	b.screenshotHere("service-charts")
	b.screenshot("service-remote")
}

func (f *completeFlow) connectWithoutSignIn() {
	b := f.b
	b.waitFor("the sign-in panel", `!!document.querySelector('#auth-title + div button.primary')`)
	b.click(`#auth-title + div button.primary`) // Connect
	b.waitFor("the explanation", `document.getElementById('toasts').innerText.includes('this service does not ask for sign-in')`)
	if strings.Contains(evalIn[string](b, `document.getElementById('toasts').innerText`), "could not register") {
		b.t.Error("Connect still says it could not register")
	}
}

func (f *completeFlow) narrowService() {
	b := f.b
	b.do("a 400 px window", chromedp.EmulateViewport(400, 860))
	defer b.do("a wide window", chromedp.EmulateViewport(1280, 800))
	for _, hash := range []string{"#/services/Peer", "#/decks/" + f.deckID, "#/activity", "#/sessions"} {
		b.do("opening "+hash, chromedp.Evaluate[chromedp.Void](`location.hash = `+js(hash)))
		b.waitFor(hash+" drawn", `!!document.querySelector('main h1') && !document.querySelector('main')?.innerText.startsWith('Loading')`)
		b.waitFor(hash+" complete", `!document.querySelector('main [aria-live] .muted')?.innerText.startsWith('Loading')`)
		if w := evalIn[int](b, `document.documentElement.scrollWidth - window.innerWidth`); w > 0 {
			wide := evalIn[string](b, `[...document.querySelectorAll('main *')].filter(e => !e.closest('.table-wrap') &&
				(e.getBoundingClientRect().right > window.innerWidth + 1 || (e.scrollWidth > e.clientWidth + 1 && getComputedStyle(e).overflowX === 'visible')))
				.slice(0, 5).map(e => e.tagName + '.' + e.className).join(', ')`)
			b.t.Errorf("%s scrolls sideways by %d px at 400 px (too wide: %s)", hash, w, wide)
		}
	}
	b.visit("#/services/Peer", "Peer")
	b.waitFor("the tools table", `!!document.querySelector('tr[data-tool=echo]')`)
	// Each header reads on one line: its text makes a single line box.
	broken := evalIn[[]string](b, `[...document.querySelectorAll('main th')].filter(th => {
		const r = document.createRange(); r.selectNodeContents(th); return r.getClientRects().length > 1; }).map(th => th.innerText)`)
	if len(broken) > 0 {
		b.t.Errorf("table headers broken over lines at 400 px: %v", broken)
	}
	b.screenshot("service-400px")
}

func (f *completeFlow) deckRules() {
	b := f.b
	b.visit("#/decks/"+f.deckID, "Work")
	b.click(`button[aria-label="Rules for Peer on this deck"]`)
	b.waitFor("the rules dialog", `!!document.querySelector('dialog[open] form[aria-label="Rules for Peer"]')`)
	b.checkSeen("rules (all tools)", false, `dialog[open] input[name=tool][value=echo]`)
	b.click(`dialog[open] input[name=mode][value=allow]`)
	b.checkSeen("rules (only the ticked tools)", true, `dialog[open] input[name=tool][value=echo]`)
	b.click(`dialog[open] input[name=tool][value=echo]`)
	f.choose(`dialog[open] select[name=credential_id]`, "cred_key")
	b.click(`dialog[open] input[name=sampling]`)
	b.checkAccessibility("deck rules")
	b.screenshotHere("deck-rules")
	b.click(`dialog[open] button[type=submit]`)
	b.waitFor("the dialog to close", `!document.querySelector('dialog[open]')`)
	var st core.DeckServiceSettingsResult
	f.api("GET", "/api/v1/decks/Work/services/Peer/settings", nil, &st)
	if !slices.Equal(st.AllowTools, []string{"echo"}) || len(st.DenyTools) != 0 || st.CredentialID != "cred_key" {
		b.t.Errorf("deck rules after the dialog: %+v", st)
	}
	var sampling core.DeckSampling
	f.api("GET", "/api/v1/decks/Work/services/Peer/sampling", nil, &sampling)
	if !sampling.Allowed {
		b.t.Error("sampling is not allowed after ticking it")
	}
	// Reopened, the dialog shows what is stored.
	b.click(`button[aria-label="Rules for Peer on this deck"]`)
	b.waitFor("the stored rules", `document.querySelector('dialog[open] input[name=mode][value=allow]')?.checked && document.querySelector('dialog[open] input[name=tool][value=echo]')?.checked && document.querySelector('dialog[open] input[name=sampling]')?.checked`)
	b.click(`dialog[open] button[aria-label=Close]`)
}

func (f *completeFlow) deckAudit() {
	b := f.b
	b.click(`input[aria-label="Capture arguments of calls through this deck"]`)
	b.waitFor("the toast", `document.getElementById('toasts').innerText.includes('Argument capture on')`)
	var a core.DeckAuditSettings
	f.api("GET", "/api/v1/decks/Work/audit", nil, &a)
	if !a.CaptureArguments {
		b.t.Error("argument capture is off after switching it on")
	}
	b.waitFor("the deck's chart of Peer", `document.querySelector('[data-charts=service] [data-series=Peer]')?.innerText.includes('4 calls')`)
	b.checkAccessibility("deck")
	b.do("scrolling to the charts", chromedp.ScrollIntoView(chromedp.CSS(`[data-charts=service]`)))
	b.screenshotHere("deck-charts")
}

func (f *completeFlow) unlinkAsks() {
	b := f.b
	b.click(`button[aria-label="Unlink Key"]`)
	b.waitFor("the question", `!!document.querySelector('dialog[open] [data-dependents]')`)
	text := evalIn[string](b, `document.querySelector('dialog[open]').innerText`)
	if strings.Count(text, "pb_deploy") != 1 || !strings.Contains(text, "Deploy") {
		b.t.Errorf("the question names the playbook %d times: %q", strings.Count(text, "pb_deploy"), text)
	}
	if f.linked("cred_key") != true {
		b.t.Fatal("the card was unlinked before the person answered")
	}
	b.checkAccessibility("unlink question")
	b.screenshotHere("unlink-asks")
	b.click(`dialog[open] form .row button:not(.danger)`) // Cancel
	b.waitFor("the dialog to close", `!document.querySelector('dialog[open]')`)
	if !f.linked("cred_key") {
		b.t.Fatal("Cancel unlinked the card")
	}
	b.click(`button[aria-label="Unlink Key"]`)
	b.click(`dialog[open] button.danger[type=submit]`) // Unlink anyway
	b.waitFor("Key gone from the deck", `!document.querySelector('button[aria-label="Unlink Key"]')`)
	if f.linked("cred_key") {
		b.t.Error("Unlink anyway left the card on the deck")
	}
	if n := evalIn[int](b, `(document.querySelector('main').innerText.match(/pb_deploy/g) || []).length`); n > 1 {
		b.t.Errorf("the deck page names pb_deploy %d times after unlinking", n)
	}
}

// linked says whether the deck Work links the credential.
func (f *completeFlow) linked(id string) bool {
	var snap struct {
		Credentials []backend.Credential `json:"credentials"`
	}
	f.api("GET", "/api/v1/decks/Work/snapshot", nil, &snap)
	return slices.ContainsFunc(snap.Credentials, func(c backend.Credential) bool { return c.ID == id })
}

func (f *completeFlow) endSession() {
	b := f.b
	id := f.agent.sessionID()
	b.visit("#/sessions", "Sessions")
	row := `tr[data-session=` + js(id) + `]`
	b.waitFor("the agent's session with its token and scope", `document.querySelector(`+js(row+` td[data-token]`)+`)?.dataset.token === 'ci-agent' && document.querySelector(`+js(row)+`)?.innerText.includes('agent')`)
	b.checkAccessibility("sessions")
	b.screenshot("sessions-token")
	b.click(row + ` button.danger`)
	b.waitFor("the question", `!!document.querySelector('dialog[open] button.danger[type=submit]')`)
	b.click(`dialog[open] button.danger[type=submit]`)
	b.waitFor("the session gone from the list", `!document.querySelector(`+js(row)+`)`)
	if _, err := f.agent.callErr("get_bound_deck", map[string]any{}); err == nil {
		b.t.Error("the ended session still answers")
	}
}

func (f *completeFlow) markdownPreview() {
	b := f.b
	b.visit("#/collection", "Collection")
	b.click(`main .row.spread button.primary:nth-child(3)`) // New playbook
	b.waitFor("the playbook form", `!!document.querySelector('dialog[open] textarea[name=body]')`)
	src := "# Title\n\n2 * 3 * 4 and *.go and *.md\nwrapped on a second line\n\n" +
		"| a | b |\n|---|---|\n| 1 | 2 |\n\n> quoted\n\n- outer\n  - inner\n\nrun `ls *.go` and see [the page](https://example.com/a_(b))\n\n" +
		"<script>window.__pwned = 1</script><img src=x onerror=\"window.__pwned = 2\">\n\n[x](javascript:window.__pwned=3)\n"
	b.do("typing the body", chromedp.Evaluate[chromedp.Void](`document.querySelector('dialog[open] textarea[name=body]').value = `+js(src)))
	b.click(`dialog[open] button[aria-pressed]`) // Preview
	b.waitFor("the preview", `!!document.querySelector('dialog[open] .preview h1')`)
	type check struct{ what, expr string }
	for _, c := range []check{
		{"# Title is a level-1 heading", `document.querySelector('dialog[open] .preview h1')?.textContent === 'Title'`},
		{"no emphasis from lone or glob asterisks", `!document.querySelector('dialog[open] .preview em') && document.querySelector('dialog[open] .preview p').textContent.startsWith('2 * 3 * 4 and *.go and *.md')`},
		{"wrapped lines in one paragraph", `document.querySelector('dialog[open] .preview p').textContent.includes('*.md\nwrapped on a second line')`},
		{"a table", `document.querySelectorAll('dialog[open] .preview table td').length === 2`},
		{"a blockquote", `document.querySelector('dialog[open] .preview blockquote')?.textContent.trim() === 'quoted'`},
		{"a nested list", `!!document.querySelector('dialog[open] .preview ul li ul li')`},
		{"a code span keeps its asterisk", `document.querySelector('dialog[open] .preview code')?.textContent === 'ls *.go'`},
		{"a link ending in (b)", `document.querySelector('dialog[open] .preview a')?.getAttribute('href') === 'https://example.com/a_(b)'`},
		{"no script, no handler, no javascript: link", `!document.querySelector('dialog[open] .preview script, dialog[open] .preview [onerror], dialog[open] .preview a[href^="javascript"]') && window.__pwned === undefined`},
	} {
		if !evalIn[bool](b, c.expr) {
			b.t.Errorf("preview: %s: %s", c.what, evalIn[string](b, `document.querySelector('dialog[open] .preview').innerHTML`))
		}
	}
	b.checkSeen("playbook form (preview)", false, "dialog[open] textarea[name=body]")
	b.checkAccessibility("markdown preview")
	b.screenshotHere("markdown-preview")
	b.click(`dialog[open] button[aria-label=Close]`)
}

// errorBodies: the page's API client reads an RFC 9457 problem (detail, code) and the
// {"error": {…}} body alike, preferring the problem's members when both are there.
func (f *completeFlow) errorBodies() {
	b := f.b
	got := evalIn[[]string](b, `import(performance.getEntriesByType('resource').map((r) => r.name).find((n) => /\/app\.js$/.test(n)).replace(/app\.js$/, 'api.js')).then(({ ApiError }) => [
		new ApiError(409, {type: 'about:blank', title: 'Conflict', status: 409, detail: 'the problem says', code: 'CONFLICT',
			error: {code: 'CONFLICT', message: 'the old member says', details: {field: 'name'}}}),
		new ApiError(404, {error: {code: 'NOT_FOUND', message: 'no such deck', details: {hint: 'list decks'}}}),
		new ApiError(500, {title: 'Internal Server Error', status: 500}),
		new ApiError(502, 'Bad Gateway'),
	].map((e) => [e.message, e.code, JSON.stringify(e.details)].join('|')))`)
	want := []string{
		`the problem says|CONFLICT|{"field":"name"}`,
		`no such deck|NOT_FOUND|{"hint":"list decks"}`,
		`Internal Server Error||{}`,
		`Bad Gateway||{}`,
	}
	if !slices.Equal(got, want) {
		b.t.Errorf("errors read as %q, want %q", got, want)
	}
}

// drawnMarkup: a fresh load of / draws the collection on the server, the seeded title with
// markup among it: shown as text, nothing in it runs, and the script takes it over as it is.
func (f *completeFlow) drawnMarkup() {
	b := f.b
	b.do("opening the collection afresh", chromedp.Navigate("about:blank"), chromedp.Navigate(f.srv.URL()+"/#/collection"))
	b.waitFor("the markup title shown as text", `[...document.querySelectorAll('main article h3')].some((h) => h.textContent === '<img src=x onerror="window.__pwned=7">')`)
	if evalIn[bool](b, `performance.getEntriesByType('resource').some((r) => r.name.includes('/api/v1/playbooks'))`) {
		b.t.Errorf("the collection was read by the script, not drawn by the server")
	}
	b.waitFor("the script to take the drawn collection over", `!document.getElementById('screen-data')`)
	if evalIn[bool](b, `!!document.querySelector('main img, main [onerror], main [onmouseover]') || window.__pwned !== undefined`) {
		b.t.Errorf("markup in a card's title or trigger ran in the collection the server drew")
	}
	b.checkAccessibility("collection (drawn by the server)")
	b.screenshot("collection-drawn")
}
