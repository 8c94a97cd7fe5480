package tests

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/cdproto/network"
	"github.com/chromedp/cdproto/page"
	cdpruntime "github.com/chromedp/cdproto/runtime"
	"github.com/chromedp/chromedp"

	"github.com/agent-deck/agent-deck/cli"
)

var updateScreenshots = flag.Bool("update-screenshots", false,
	"also write the dashboard screenshots the README shows to docs/img/")

// readmeScreens are the screenshots the README shows, one per main screen.
var readmeScreens = []string{"collection", "service", "deck", "sessions", "history", "settings", "deck-dark", "review", "proposal"}

// browserWait bounds one wait for the page (a deadline, not a timing assertion).
const browserWait = 30 * time.Second

// dashBrowser is headless Chromium on a real deck server, signed in or not, recording every
// response body the page receives.
type dashBrowser struct {
	t     testing.TB
	srv   *cli.Server
	ctx   context.Context
	shots string

	mu      sync.Mutex
	bodies  []string
	seen    int // responses finished
	fetched int // of which the bodies were read (or could not be)
	// exceptions the page threw and did not catch
	exceptions []string
}

// chromiumPath finds Debian's chromium (or another Chrome); the dashboard tests need it and
// fail, never skip, without it.
func chromiumPath(t testing.TB) string {
	t.Helper()
	for _, name := range []string{"chromium", "chromium-browser", "google-chrome", "google-chrome-stable"} {
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	t.Fatal("the dashboard tests drive a real browser and found none: install Chromium " +
		"(apt-get install -y chromium; .ci/run does) or put chromium on PATH")
	return ""
}

func startDashBrowser(t testing.TB, srv *cli.Server) *dashBrowser {
	t.Helper()
	opts := append(chromedp.DefaultExecAllocatorOptions[:],
		chromedp.ExecPath(chromiumPath(t)), chromedp.WindowSize(1280, 800), chromedp.NoSandbox,
		chromedp.Flag("disable-gpu", true))
	actx, cancelAlloc := chromedp.NewExecAllocator(context.Background(), opts...)
	ctx, cancel := chromedp.NewContext(actx)
	shots, err := filepath.Abs(filepath.Join("screenshots", t.Name()))
	must(t, err)
	must(t, os.RemoveAll(shots)) // only this run's screens, no stale failure.png
	must(t, os.MkdirAll(shots, 0o755))
	b := &dashBrowser{t: t, srv: srv, ctx: ctx, shots: shots}
	t.Cleanup(func() {
		cancel()
		cancelAlloc()
		t.Logf("screenshots of the dashboard are in %s", shots)
	})
	if err := chromedp.Do(ctx, chromedp.EmulateViewport(1280, 800)); err != nil {
		t.Fatalf("start chromium: %v", err)
	}
	// axe is injected by the test; the page's own CSP would refuse it.
	if _, err := chromedp.Call(ctx, page.SetBypassCSP, page.SetBypassCSPParams{Enabled: true}); err != nil {
		t.Fatal(err)
	}
	b.recordBodies()
	b.recordExceptions()
	return b
}

// recordExceptions keeps every uncaught exception and unhandled rejection of the page.
func (b *dashBrowser) recordExceptions() {
	thrown := chromedp.Events(b.ctx, cdpruntime.ExceptionThrown)
	go func() {
		for ev, err := range thrown {
			if err != nil {
				return
			}
			text := ev.ExceptionDetails.Text
			if ev.ExceptionDetails.Exception != nil {
				text += " " + ev.ExceptionDetails.Exception.Description
			}
			b.mu.Lock()
			b.exceptions = append(b.exceptions, text)
			b.mu.Unlock()
		}
	}()
}

// checkNoExceptions fails when the page threw anything so far.
func (b *dashBrowser) checkNoExceptions() {
	b.t.Helper()
	evalIn[bool](b, `true`)
	b.mu.Lock()
	defer b.mu.Unlock()
	for _, e := range b.exceptions {
		b.t.Errorf("the page threw: %s", e)
	}
	b.exceptions = nil
}

// recordBodies keeps the body of every response the page receives, for secret checks.
func (b *dashBrowser) recordBodies() {
	finished := chromedp.Events(b.ctx, network.LoadingFinished)
	go func() {
		for ev, err := range finished {
			if err != nil {
				return
			}
			b.mu.Lock()
			b.seen++
			b.mu.Unlock()
			res, err := chromedp.Call(b.ctx, network.GetResponseBody, network.GetResponseBodyParams{RequestID: ev.RequestID})
			b.mu.Lock()
			if err == nil {
				b.bodies = append(b.bodies, string(res.Body))
			}
			b.fetched++
			b.mu.Unlock()
		}
	}()
}

// responsesContaining returns how many response bodies the page received so far contain s,
// and how many it received in all.
func (b *dashBrowser) responsesContaining(s string) (hits, total int) {
	b.t.Helper()
	// A round trip through the browser: every earlier event has been delivered after it.
	evalIn[bool](b, `true`)
	deadline := time.Now().Add(browserWait)
	for {
		b.mu.Lock()
		done := b.fetched == b.seen
		if done {
			for _, body := range b.bodies {
				if strings.Contains(body, s) {
					hits++
				}
			}
			total = len(b.bodies)
		}
		b.mu.Unlock()
		if done {
			return hits, total
		}
		if time.Now().After(deadline) {
			b.t.Fatal("the response bodies were not all read in time")
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// do runs actions, failing the test with what it was doing.
func (b *dashBrowser) do(what string, actions ...chromedp.Action[chromedp.Void]) {
	b.t.Helper()
	ctx, cancel := context.WithTimeout(b.ctx, browserWait)
	defer cancel()
	if err := chromedp.Do(ctx, actions...); err != nil {
		b.fail(what, err)
	}
}

func (b *dashBrowser) fail(what string, err error) {
	b.t.Helper()
	b.screenshotHere("failure")
	text, _ := chromedp.Run(b.ctx, chromedp.Evaluate[string](`(document.querySelector('main')?.innerText || '') + '\ntoasts: ' + document.getElementById('toasts')?.innerText`))
	b.t.Fatalf("%s: %v\npage text:\n%s", what, err, text)
}

// waitFor polls a JavaScript predicate until it is true.
func (b *dashBrowser) waitFor(what, predicate string) {
	b.t.Helper()
	ctx, cancel := context.WithTimeout(b.ctx, browserWait)
	defer cancel()
	for {
		_, err := chromedp.Run(ctx, chromedp.Poll[chromedp.Void](predicate, chromedp.WithPollingInterval(50*time.Millisecond),
			chromedp.WithPollingTimeout(browserWait)))
		if err == nil {
			return
		}
		// A navigation during the poll destroys the page's JavaScript context; poll the new page.
		if ctx.Err() == nil && navigatedAway(err) {
			time.Sleep(50 * time.Millisecond)
			continue
		}
		b.fail("waiting for "+what, err)
		return
	}
}

// navigatedAway reports the errors Chrome gives when the page being evaluated was replaced.
func navigatedAway(err error) bool {
	msg := err.Error()
	return strings.Contains(msg, "Cannot find context with specified id") ||
		strings.Contains(msg, "Execution context was destroyed") ||
		strings.Contains(msg, "Inspected target navigated or closed")
}

// eval evaluates an expression and decodes its value.
func evalIn[T any](b *dashBrowser, expr string) T {
	b.t.Helper()
	v, err := chromedp.Run(b.ctx, chromedp.Evaluate[T](expr, chromedp.EvalAwaitPromise))
	if err != nil {
		b.fail("evaluating "+expr, err)
	}
	return v
}

// mainHas is a predicate: the main region's text contains s.
func mainHas(s string) string {
	q, _ := json.Marshal(s)
	return fmt.Sprintf(`(document.querySelector('main')?.innerText || '').includes(%s)`, q)
}

// js quotes s as a JavaScript string.
func js(s string) string {
	q, _ := json.Marshal(s)
	return string(q)
}

// click clicks the first element matching a CSS selector.
func (b *dashBrowser) click(sel string) {
	b.t.Helper()
	b.do("clicking "+sel, chromedp.Click(chromedp.CSS(sel), chromedp.NodeVisible))
}

// typeInto replaces a field's value by typing text.
func (b *dashBrowser) typeInto(sel, text string) {
	b.t.Helper()
	b.do("typing into "+sel, chromedp.WaitVisible(chromedp.CSS(sel)),
		chromedp.Evaluate[chromedp.Void](`document.querySelector(`+js(sel)+`).value = ''`),
		chromedp.SendKeys(chromedp.CSS(sel), text, chromedp.NodeVisible))
}

// selectValue picks an option of a select and tells the page it changed.
func (b *dashBrowser) selectValue(sel, value string) {
	b.t.Helper()
	b.do("choosing "+value+" in "+sel, chromedp.SetValue(chromedp.CSS(sel), value),
		chromedp.Evaluate[chromedp.Void](`document.querySelector(`+js(sel)+`).dispatchEvent(new Event('change'))`))
}

// visit goes to a screen of the signed-in dashboard and waits for its heading.
func (b *dashBrowser) visit(hash, heading string) {
	b.t.Helper()
	b.do("opening "+hash, chromedp.Evaluate[chromedp.Void](`location.hash = `+js(hash)))
	b.waitFor("the "+heading+" screen", `document.querySelector('main h1')?.textContent === `+js(heading))
}

// screenshot saves the top of the screen as <shots>/<name>.png, and with -update-screenshots
// also as docs/img/dashboard-<name>.png for the README.
func (b *dashBrowser) screenshot(name string) {
	b.t.Helper()
	_, _ = chromedp.Run(b.ctx, chromedp.Evaluate[chromedp.Void](`window.scrollTo(0, 0)`))
	b.screenshotHere(name)
}

// screenshotHere saves the viewport as it is scrolled.
func (b *dashBrowser) screenshotHere(name string) {
	b.t.Helper()
	// Messages in the corner would hide the screen; they are not what the screenshot is for.
	_, _ = chromedp.Run(b.ctx, chromedp.Evaluate[chromedp.Void](`document.getElementById('toasts')?.replaceChildren()`))
	png, err := chromedp.Run(b.ctx, chromedp.CaptureScreenshot())
	if err != nil {
		b.t.Errorf("screenshot %s: %v", name, err)
		return
	}
	must(b.t, os.WriteFile(filepath.Join(b.shots, name+".png"), png, 0o644))
	if *updateScreenshots && slices.Contains(readmeScreens, name) {
		must(b.t, os.MkdirAll("../docs/img", 0o755))
		must(b.t, os.WriteFile(filepath.Join("../docs/img", "dashboard-"+name+".png"), png, 0o644))
	}
}

// axeViolation is one serious or critical finding of axe-core.
type axeViolation struct {
	ID     string   `json:"id"`
	Impact string   `json:"impact"`
	Help   string   `json:"help"`
	Nodes  []string `json:"nodes"`
}

// checkAccessibility runs axe-core (the npm package in tests/node) on the page as it is and
// fails on any serious or critical violation.
func (b *dashBrowser) checkAccessibility(screen string) {
	b.t.Helper()
	src, err := os.ReadFile("node/node_modules/axe-core/axe.min.js")
	if err != nil {
		b.t.Fatalf("axe-core is missing (%v): run make test-deps (npm ci --prefix tests/node)", err)
	}
	if !evalIn[bool](b, `typeof window.axe === 'object'`) {
		b.do("loading axe-core", chromedp.Evaluate[chromedp.Void](string(src)))
	}
	found := evalIn[[]axeViolation](b, `axe.run(document, {resultTypes: ['violations']}).then(r => r.violations
		.filter(v => v.impact === 'serious' || v.impact === 'critical')
		.map(v => ({id: v.id, impact: v.impact, help: v.help, nodes: v.nodes.slice(0, 5).map(n => n.target.join(' '))})))`)
	for _, v := range found {
		b.t.Errorf("%s: accessibility (%s) %s: %s on %v", screen, v.Impact, v.ID, v.Help, v.Nodes)
	}
}

// seenJS is a predicate over one element as a person sees it: laid out with a size, not
// display:none or visibility:hidden anywhere up its ancestors, not fully transparent.
const seenJS = `(el) => {
	if (!el || !el.isConnected) return false;
	const r = el.getBoundingClientRect();
	if (r.width === 0 && r.height === 0) return false;
	for (let e = el; e; e = e.parentElement) {
		const s = getComputedStyle(e);
		if (s.display === 'none' || s.visibility === 'hidden' || s.opacity === '0') return false;
	}
	return true;
}`

// isSeen says whether the element sel finds is visible to a person (computed style and layout
// box, not the hidden attribute).
func (b *dashBrowser) isSeen(sel string) bool {
	b.t.Helper()
	return evalIn[bool](b, `(`+seenJS+`)(document.querySelector(`+js(sel)+`))`)
}

// checkSeen fails for every selector whose element a person sees when it must be hidden
// (want false) or does not see when it must show (want true).
func (b *dashBrowser) checkSeen(screen string, want bool, sels ...string) {
	b.t.Helper()
	for _, sel := range sels {
		if got := b.isSeen(sel); got != want {
			if want {
				b.t.Errorf("%s: %s is not visible, want it shown", screen, sel)
			} else {
				b.t.Errorf("%s: %s is visible, want it hidden", screen, sel)
			}
		}
	}
}

// dashStep is one step of a browser test whose later steps build on the earlier ones.
type dashStep[F any] struct {
	name string
	run  func(f F)
}

// runDashFlows runs steps in order as subtests on b, checking the page threw nothing after
// each; a failed step stops the test, since the steps after it build on it.
func runDashFlows[F any](t *testing.T, b *dashBrowser, f F, steps []dashStep[F]) {
	t.Helper()
	for _, st := range steps {
		ok := t.Run(st.name, func(t *testing.T) {
			b.t = t
			st.run(f)
			b.checkNoExceptions()
		})
		b.t = t
		if !ok {
			t.Fatalf("stopping: the later flows build on %q", st.name)
		}
	}
}
