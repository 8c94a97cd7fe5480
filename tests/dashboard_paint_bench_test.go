package tests

import (
	"fmt"
	"net/http"
	"slices"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"

	"github.com/agent-deck/agent-deck/cli"
)

// firstPaintTarget is the target for the collection's first card, in milliseconds from
// navigation start, on this machine.
const firstPaintTarget = 100

// firstPaintWarmLoads is how many loads of a fresh browser are not measured.
const firstPaintWarmLoads = 5

// paintTiming is what the Performance API says about one load of the collection: when its first
// card was painted (Element Timing), and when each resource the page fetched started and ended,
// all in milliseconds since navigation start.
type paintTiming struct {
	FirstCard float64         `json:"first_card"`
	FCP       float64         `json:"fcp"`
	DOMReady  float64         `json:"dom_ready"`
	Resources []paintResource `json:"resources"`
}

type paintResource struct {
	Name  string  `json:"name"`
	Start float64 `json:"start"`
	End   float64 `json:"end"`
}

// String is the load as a waterfall, for the log: where the time went.
func (p paintTiming) String() string {
	var b strings.Builder
	fmt.Fprintf(&b, "first card painted at %.1f ms (first contentful paint %.1f ms, DOMContentLoaded %.1f ms)\n", p.FirstCard, p.FCP, p.DOMReady)
	for _, r := range p.Resources {
		fmt.Fprintf(&b, "  %7.1f → %7.1f ms  %s\n", r.Start, r.End, r.Name)
	}
	return b.String()
}

// seedCollection gives the collection a few cards of each type through REST.
func seedCollection(t testing.TB, srv *cli.Server) {
	t.Helper()
	for i := range 3 {
		for _, c := range []struct {
			path string
			body map[string]any
		}{
			{"/api/v1/services", map[string]any{"name": fmt.Sprintf("svc-%d", i), "type": "mcp", "url": fmt.Sprintf("http://127.0.0.1:1/mcp/%d", i)}},
			{"/api/v1/credentials", map[string]any{"label": fmt.Sprintf("Key %d", i), "scheme": "bearer", "value": "v-" + randHex(8)}},
			{"/api/v1/playbooks", map[string]any{"title": fmt.Sprintf("Runbook %d", i), "body": "# Steps\n\n- one\n- two\n"}},
		} {
			if status, body := frontDoorCall(t, srv, srv.AdminToken(), http.MethodPost, c.path, []byte(toJSON(t, c.body))); status != http.StatusCreated {
				t.Fatalf("seeding %s: %d %s", c.path, status, body)
			}
		}
	}
}

// collectionFirstPaint loads the collection afresh in a signed-in browser and reads the
// Performance API: the paint of the first card's title (it carries elementtiming) and the
// resource timings.
func collectionFirstPaint(b *dashBrowser) paintTiming {
	b.t.Helper()
	// From a blank page: a navigation to the same address with a hash would not load anything.
	b.do("loading the collection", chromedp.Navigate("about:blank"), chromedp.Navigate(b.srv.URL()+"/#/collection"))
	return evalIn[paintTiming](b, `new Promise((resolve) => {
		const done = (card) => {
			const nav = performance.getEntriesByType('navigation')[0];
			resolve({
				first_card: card.renderTime || card.loadTime,
				fcp: performance.getEntriesByName('first-contentful-paint')[0]?.startTime || 0,
				dom_ready: nav ? nav.domContentLoadedEventEnd : 0,
				resources: [nav ? {name: 'document', start: nav.startTime, end: nav.responseEnd} : null,
					...performance.getEntriesByType('resource').map((r) => ({name: r.name.replace(location.origin, ''), start: r.startTime, end: r.responseEnd}))].filter(Boolean),
			});
		};
		new PerformanceObserver((list, obs) => {
			const card = list.getEntries().find((e) => e.identifier === 'first-card');
			if (card) { obs.disconnect(); done(card); }
		}).observe({type: 'element', buffered: true});
	})`)
}

// BenchmarkDashboardCollectionFirstPaint measures, in headless Chromium against a real serve,
// the time from navigation start to the paint of the collection's first card (Element Timing),
// signed in, over a collection of nine cards; its target is 100 ms on this machine.
func BenchmarkDashboardCollectionFirstPaint(bm *testing.B) {
	srv := startFrontDoor(bm, nil)
	seedCollection(bm, srv)
	b := startDashBrowser(bm, srv)
	b.do("signing in", chromedp.Navigate(srv.URL()+"/signin#code="+dashboardSignInCode(bm, srv)))
	b.waitFor("the collection", `document.querySelector('main h1')?.textContent === 'Collection'`)
	// The browser's own start-up is not the page's: a fresh headless Chromium paints its first
	// few loads of any page slower (here about 175, 155, 130 ms, then a steady ~100 on a quiet
	// machine) while its caches and processes warm up, as a browser in use already has.
	for range firstPaintWarmLoads {
		collectionFirstPaint(b)
	}
	bm.ResetTimer()
	var ms []float64
	for range bm.N {
		ms = append(ms, collectionFirstPaint(b).FirstCard)
	}
	bm.StopTimer()
	slices.Sort(ms)
	bm.ReportMetric(ms[len(ms)/2], "first-paint-ms")
	bm.ReportMetric(firstPaintTarget, "first-paint-ms-max")
}
