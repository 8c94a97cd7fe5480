package tests

import (
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"net/http"
	"reflect"
	"regexp"
	"strings"
	"testing"

	"github.com/agent-deck/agent-deck/backend"
	"github.com/agent-deck/agent-deck/backend/core"
	"github.com/agent-deck/agent-deck/tests/resttest"
)

var (
	// screenData is the JSON the landing page carries for its script: the reads behind it.
	screenData = regexp.MustCompile(`<script type="application/json" id="screen-data">([^<]*)</script>`)
	// inlineScript and inlineStyle are the landing page's one inline script and stylesheet.
	inlineScript = regexp.MustCompile(`<script>([^<]*)</script>`)
	inlineStyle  = regexp.MustCompile(`<style>([^<]*)</style>`)
)

// landingPage GETs / with a dashboard session (the client's cookie) and returns the page.
func landingPage(t *testing.T, c *resttest.Client) resttest.Answer {
	t.Helper()
	a := c.Do(t, "", http.MethodGet, "/", nil)
	if a.Status != http.StatusOK {
		t.Fatalf("GET /: %d %s", a.Status, a.Body)
	}
	return a
}

// checkLandingReads fails unless the landing page carries exactly the three collection reads
// the same session makes through REST, and returns them.
func checkLandingReads(t *testing.T, c *resttest.Client, page []byte) map[string][]map[string]any {
	t.Helper()
	m := screenData.FindSubmatch(page)
	if m == nil {
		t.Fatalf("the landing page carries no reads:\n%.400s", page)
	}
	var got map[string][]map[string]any
	if err := json.Unmarshal(m[1], &got); err != nil {
		t.Fatalf("the landing page's reads are not JSON (%v): %.300s", err, m[1])
	}
	for _, list := range []string{"services", "credentials", "playbooks"} {
		var want []map[string]any
		c.Must(t, http.StatusOK, http.MethodGet, "/api/v1/"+list, nil, &want)
		if !reflect.DeepEqual(got[list], want) {
			t.Errorf("the landing page's %s differ from GET /api/v1/%s:\npage: %v\nREST: %v", list, list, got[list], want)
		}
	}
	return got
}

// TestDashboardLandingPageDrawsTheCollection: / with a valid session comes with the person's
// collection drawn in it, the reads behind it (exactly the REST reads), the stylesheet in the
// page, and a CSP that allows the page's inline script and style by their hashes and nothing
// else inline; it is kept by no cache. The sign-in page, and / without a valid session, are the
// shell as before: nothing drawn, no reads, nav hidden.
func TestDashboardLandingPageDrawsTheCollection(t *testing.T) {
	srv := startFrontDoor(t, nil)
	seedCollection(t, srv)
	cookie, _ := dashboardSignIn(t, srv)
	session := resttest.New(srv.URL(), "")
	session.Header = http.Header{"Cookie": {cookie.Name + "=" + cookie.Value}}
	a := landingPage(t, session)
	page := string(a.Body)
	reads := checkLandingReads(t, session, a.Body)
	if n := len(reads["services"]) + len(reads["credentials"]) + len(reads["playbooks"]); n != 9 {
		t.Errorf("the landing page carries %d cards, want the 9 seeded", n)
	}
	for _, want := range []string{`<main id="main" tabindex="-1" data-screen="collection">`, `<h3 elementtiming="first-card">svc-0</h3>`,
		`aria-label="Playbook Runbook 2"`, `<nav aria-label="Main" id="nav">`, `aria-current="page">Collection</a>`,
		`<link rel="preload" href="/api/v1/dashboard/session" as="fetch" crossorigin>`} {
		if !strings.Contains(page, want) {
			t.Errorf("the landing page lacks %s", want)
		}
	}
	if cc := a.Header.Get("Cache-Control"); cc != "no-store" || !strings.Contains(a.Header.Get("Vary"), "Cookie") {
		t.Errorf("the landing page is cached as %q (Vary %q); want no-store, Vary: Cookie", cc, a.Header.Get("Vary"))
	}
	csp := a.Header.Get("Content-Security-Policy")
	for _, inline := range []*regexp.Regexp{inlineScript, inlineStyle} {
		m := inline.FindStringSubmatch(page)
		if m == nil {
			t.Fatalf("the landing page has no %s", inline)
		}
		sum := sha256.Sum256([]byte(m[1]))
		if hash := "'sha256-" + base64.StdEncoding.EncodeToString(sum[:]) + "'"; !strings.Contains(csp, hash) {
			t.Errorf("the CSP %q does not allow the page's %s by its hash %s", csp, inline, hash)
		}
	}
	if strings.Contains(csp, "unsafe-inline") || strings.Count(page, "<script>") != 1 || strings.Count(page, "<style>") != 1 {
		t.Errorf("the landing page runs more inline than its one script and stylesheet (CSP %q)", csp)
	}

	// The shell: the sign-in page whatever the cookie, and / without a valid session.
	anon := resttest.New(srv.URL(), "")
	shell := anon.Do(t, "", http.MethodGet, "/signin", nil)
	for _, c := range []struct {
		name   string
		path   string
		cookie string
	}{
		{"/signin with the session", "/signin", cookie.Value},
		{"/ with no cookie", "/", ""},
		{"/ with a cookie that is no session", "/", "anything"},
	} {
		cl := resttest.New(srv.URL(), "")
		if c.cookie != "" {
			cl.Header = http.Header{"Cookie": {cookie.Name + "=" + c.cookie}}
		}
		a := cl.Do(t, "", http.MethodGet, c.path, nil)
		if a.Status != http.StatusOK || string(a.Body) != string(shell.Body) || a.Header.Get("Cache-Control") != "no-cache" {
			t.Errorf("%s: %d, Cache-Control %q, the shell %v; want 200, no-cache, the sign-in page's shell:\n%.600s", c.name, a.Status,
				a.Header.Get("Cache-Control"), string(a.Body) == string(shell.Body), a.Body)
		}
	}
	for _, leak := range []string{"screen-data", "data-screen", "svc-0", "/api/v1/services", "/api/v1/dashboard/session", "<script>", "<style>"} {
		if strings.Contains(string(shell.Body), leak) {
			t.Errorf("the shell carries %q", leak)
		}
	}
	if !strings.Contains(string(shell.Body), `<nav aria-label="Main" id="nav" hidden>`) {
		t.Errorf("the shell shows the nav before sign-in:\n%s", shell.Body)
	}
}

// attackDashboardLandingOtherPersonsCards: the page at / of a member's dashboard session draws
// exactly what that member's REST reads return: none of another person's private cards, and
// the same cards as the member's own reads.
func attackDashboardLandingOtherPersonsCards(t *testing.T) {
	h, _ := alicesHub(t)
	h.as(h.person["bob"]).Must(t, http.StatusCreated, "POST", "/api/v1/playbooks", backend.PlaybookInput{Title: "Bob notes", Body: "y"}, nil)
	for person, own := range map[string]string{"alice": "Alice runbook", "bob": "Bob notes"} {
		c := h.dashboard(t, person)
		page := landingPage(t, c).Body
		checkLandingReads(t, c, page)
		if !strings.Contains(string(page), own) {
			t.Errorf("%s's landing page lacks their own %q", person, own)
		}
	}
	page := string(landingPage(t, h.dashboard(t, "bob")).Body)
	for _, alices := range []string{"alice-svc", "Alice runbook", "pb_alice_runbook"} {
		if strings.Contains(page, alices) {
			t.Errorf("bob's landing page shows alice's %q", alices)
		}
	}
}

// attackDashboardLandingMarkupNames: names, labels, titles and triggers with markup are drawn
// as text by the server, and the page's reads cannot close their script element.
func attackDashboardLandingMarkupNames(t *testing.T) {
	srv := startFrontDoor(t, nil)
	hostile := []string{
		`</h3><img src=x onerror="window.__pwned=1">`,
		`"><svg onload="window.__pwned=2">`,
		`</script><script>window.__pwned=3</script>`,
		`<b onmouseover="window.__pwned=4">x</b>`,
	}
	admin := resttest.New(srv.URL(), srv.AdminToken())
	admin.Must(t, http.StatusCreated, "POST", "/api/v1/services", core.ServiceInput{Name: hostile[0], Type: backend.ServiceRemote,
		URL: "http://127.0.0.1:1/mcp", Description: hostile[3]}, nil)
	admin.Must(t, http.StatusCreated, "POST", "/api/v1/credentials", core.CredentialInput{Label: hostile[1], Value: "v-" + randHex(6),
		Tags: []string{`</script><script>alert(5)</script>`}}, nil)
	admin.Must(t, http.StatusCreated, "POST", "/api/v1/playbooks", backend.PlaybookInput{Title: hostile[2], Body: hostile[0],
		Triggers: []string{hostile[3]}}, nil)
	cookie, _ := dashboardSignIn(t, srv)
	c := resttest.New(srv.URL(), "")
	c.Header = http.Header{"Cookie": {cookie.Name + "=" + cookie.Value}}
	page := landingPage(t, c).Body
	checkLandingReads(t, c, page)
	// Only as escaped text: in the markup as &lt;img…, in the reads as \u003cimg….
	for _, raw := range []string{"<img", "<svg", "<b ", "</script><script>"} {
		if n := strings.Count(string(page), raw); n > 0 {
			t.Errorf("the landing page carries %d raw %q", n, raw)
		}
	}
	if n := strings.Count(string(page), "<script"); n != 2 {
		t.Errorf("the landing page has %d script elements, want its 2 (the inline one that starts the app, the reads)", n)
	}
	if !strings.Contains(string(page), `<h3 elementtiming="first-card">&lt;/h3&gt;&lt;img src=x onerror=&#34;window.__pwned=1&#34;&gt;</h3>`) {
		t.Errorf("the service's name is not drawn as text:\n%s", page)
	}
}
