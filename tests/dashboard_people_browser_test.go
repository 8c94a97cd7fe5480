package tests

import (
	"strings"
	"testing"

	"github.com/chromedp/chromedp"
)

// TestDashboardPeopleInBrowser (issue 26): in Settings › People the admin adds carol, hands her
// a one-time sign-in link, carol's own browser signs in with it as a member, and the admin
// removes her: her session ends.
func TestDashboardPeopleInBrowser(t *testing.T) {
	chromiumPath(t)
	srv := startFrontDoor(t, nil)
	admin := startDashBrowser(t, srv)
	carol := startDashBrowser(t, srv) // both now: each start empties the test's screenshot folder
	admin.do("opening the one-time URL", chromedp.Navigate(srv.URL()+"/signin#code="+dashboardSignInCode(t, srv)))
	admin.waitFor("the collection", `document.querySelector('main h1')?.textContent === 'Collection'`)
	admin.visit("#/settings", "Settings")
	admin.waitFor("the people", `!!document.querySelector('[data-person="admin"]')`)
	admin.typeInto("input[name=person]", "carol")
	admin.typeInto("input[name=email]", "carol@example.com")
	admin.click("form[aria-label='Add a person'] button[type=submit]")
	admin.waitFor("carol in the list", `!!document.querySelector('[data-person="carol"]')`)
	admin.click(`button[aria-label="Sign-in link for carol"]`)
	admin.waitFor("carol's sign-in link", `!!document.querySelector('[data-signin-link]')`)
	link := evalIn[string](admin, `document.querySelector('[data-signin-link]').textContent`)
	admin.checkAccessibility("settings (people)")
	admin.screenshot("settings-people")

	carol.do("opening carol's link", chromedp.Navigate(link))
	carol.waitFor("carol's collection", `document.querySelector('main h1')?.textContent === 'Collection'`)
	carol.visit("#/settings", "Settings")
	carol.waitFor("carol's own view of people", mainHas("You are carol, a member"))
	if evalIn[bool](carol, `!!document.querySelector('form[aria-label="Add a person"]')`) {
		t.Error("a member is offered to add people")
	}

	admin.click(`button[aria-label="Remove carol"]`)
	admin.click("dialog button.danger[type=submit]")
	admin.waitFor("carol gone from the list", `!document.querySelector('[data-person="carol"]')`)
	if got := evalIn[int](carol, `fetch('/api/v1/decks').then(r => r.status)`); got != 401 {
		t.Errorf("carol's dashboard after her removal: status %d, want 401", got)
	}
	for _, b := range []*dashBrowser{admin, carol} {
		b.checkNoExceptions()
	}
	if !strings.Contains(link, "#code=") {
		t.Errorf("link %q is not a one-time sign-in URL", link)
	}
}
