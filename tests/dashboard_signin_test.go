package tests

import (
	"encoding/json"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/agent-deck/agent-deck/backend"
	"github.com/agent-deck/agent-deck/backend/core"
	"github.com/agent-deck/agent-deck/cli"
	dashboardapi "github.com/agent-deck/agent-deck/dashboard-api"
	"github.com/agent-deck/agent-deck/tests/resttest"
)

// dashboardSignIn signs in the way the dashboard does: an admin asks for a one-time code and the
// page exchanges it for the session cookie. It returns the cookie and the session's CSRF token.
func dashboardSignIn(t *testing.T, srv *cli.Server) (*http.Cookie, string) {
	t.Helper()
	code := dashboardSignInCode(t, srv)
	cookie, csrf, status, body := dashboardExchange(t, srv, code)
	if status != http.StatusCreated || cookie == nil {
		t.Fatalf("exchange of a fresh code: status %d, cookie %v: %s", status, cookie, body)
	}
	return cookie, csrf
}

func dashboardSignInCode(t testing.TB, srv *cli.Server) string {
	t.Helper()
	status, body := frontDoorCall(t, srv, srv.AdminToken(), "POST", "/api/v1/dashboard/signin-codes", nil)
	if status != http.StatusOK {
		t.Fatalf("sign-in code: status %d: %s", status, body)
	}
	var out core.SignInCode
	must(t, json.Unmarshal(body, &out))
	return out.Code
}

func dashboardExchange(t *testing.T, srv *cli.Server, code string) (*http.Cookie, string, int, []byte) {
	t.Helper()
	resp, err := http.Post(srv.URL()+"/api/v1/dashboard/session", "application/json",
		strings.NewReader(toJSON(t, map[string]string{"code": code})))
	must(t, err)
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	var info dashboardapi.DashboardSessionInfo
	_ = json.Unmarshal(body, &info)
	for _, c := range resp.Cookies() {
		if c.Name == dashboardapi.SessionCookie {
			return c, info.CSRFToken, resp.StatusCode, body
		}
	}
	return nil, "", resp.StatusCode, body
}

// cookieCall sends a request with the dashboard cookie and the given headers (pairs).
func cookieCall(t *testing.T, srv *cli.Server, cookie *http.Cookie, method, path, contentType string, body []byte, headers ...string) (int, []byte) {
	t.Helper()
	pairs := []string{"Cookie", cookie.Name + "=" + cookie.Value}
	if contentType != "" {
		pairs = append(pairs, "Content-Type", contentType)
	}
	a := resttest.New(srv.URL(), "").Do(t, "", method, path, body, append(pairs, headers...)...)
	return a.Status, a.Body
}

func deckCount(t *testing.T, srv *cli.Server) int {
	t.Helper()
	status, body := frontDoorCall(t, srv, srv.AdminToken(), "GET", "/api/v1/decks", nil)
	if status != http.StatusOK {
		t.Fatalf("list decks: %d %s", status, body)
	}
	var decks []map[string]any
	must(t, json.Unmarshal(body, &decks))
	return len(decks)
}

// attackDashboardCrossOriginFormPost: a page elsewhere (even another local port) posts a form
// to the API while the browser holds the dashboard cookie. Nothing is created.
func attackDashboardCrossOriginFormPost(t *testing.T) {
	srv := startFrontDoor(t, nil)
	cookie, _ := dashboardSignIn(t, srv)
	for _, origin := range []string{"http://localhost:5173", "https://evil.example.com", "null", ""} {
		status, body := cookieCall(t, srv, cookie, "POST", "/api/v1/decks", "application/x-www-form-urlencoded",
			[]byte(`{"name":"pwned"}`), "Origin", origin)
		if status != http.StatusForbidden {
			t.Errorf("form post from Origin %q: status %d, want 403: %s", origin, status, body)
		}
	}
	if n := deckCount(t, srv); n != 0 {
		t.Errorf("a cross-origin form post created %d decks", n)
	}
}

// attackDashboardMissingCSRF: a request from the server's own origin with the cookie but
// without (or with a wrong) CSRF header is refused; with the header it works.
func attackDashboardMissingCSRF(t *testing.T) {
	srv := startFrontDoor(t, nil)
	cookie, csrf := dashboardSignIn(t, srv)
	rows := []struct {
		name, csrf string
		want       int
	}{
		{"no header", "", http.StatusForbidden},
		{"another session's token", core.DashboardCSRF("adk_other"), http.StatusForbidden},
		{"the session's token", csrf, http.StatusCreated},
	}
	for _, r := range rows {
		headers := []string{"Origin", srv.URL()}
		if r.csrf != "" {
			headers = append(headers, core.HeaderCSRF, r.csrf)
		}
		status, body := cookieCall(t, srv, cookie, "POST", "/api/v1/decks", "application/json",
			[]byte(`{"name":"d-`+strings.ReplaceAll(r.name, " ", "-")+`"}`), headers...)
		if status != r.want {
			t.Errorf("%s: status %d, want %d: %s", r.name, status, r.want, body)
		}
	}
	if n := deckCount(t, srv); n != 1 {
		t.Errorf("%d decks exist, want only the one made with the CSRF token", n)
	}
}

// attackDashboardReusedCode: a sign-in code seen once (a browser history, a shoulder) opens no
// second session; nor does a made-up one, nor the session secret used as a bearer token, nor a
// revoked session's cookie.
func attackDashboardReusedCode(t *testing.T) {
	srv := startFrontDoor(t, nil)
	code := dashboardSignInCode(t, srv)
	cookie, _, status, body := dashboardExchange(t, srv, code)
	if status != http.StatusCreated || cookie == nil {
		t.Fatalf("first exchange: %d %s", status, body)
	}
	if !cookie.HttpOnly || cookie.SameSite != http.SameSiteStrictMode || cookie.Secure {
		t.Errorf("cookie attributes: HttpOnly %v SameSite %v Secure %v; want HttpOnly, Strict, not Secure over plain HTTP",
			cookie.HttpOnly, cookie.SameSite, cookie.Secure)
	}
	for _, c := range []string{code, "adc_made-up"} {
		if again, _, status, body := dashboardExchange(t, srv, c); status != http.StatusUnauthorized || again != nil {
			t.Errorf("exchange of %q: status %d, cookie %v, want 401 and none: %s", c[:6], status, again, body)
		}
	}
	if status, body := frontDoorCall(t, srv, cookie.Value, "GET", "/api/v1/decks", nil); status != http.StatusUnauthorized {
		t.Errorf("session secret as a bearer token: status %d, want 401: %s", status, body)
	}
	if status, body := cookieCall(t, srv, cookie, "GET", "/api/v1/decks", "", nil); status != http.StatusOK {
		t.Fatalf("cookie read: status %d: %s", status, body)
	}
	status, body = frontDoorCall(t, srv, srv.AdminToken(), "GET", "/api/v1/tokens", nil)
	var tokens []backend.Token
	must(t, json.Unmarshal(body, &tokens))
	var id string
	for _, tok := range tokens {
		if tok.Kind == backend.TokenKindDashboard && tok.ExpiresAt != nil {
			id = tok.ID
		}
	}
	if status != http.StatusOK || id == "" {
		t.Fatalf("the dashboard session is not listed with the tokens: %d %s", status, body)
	}
	if status, body := frontDoorCall(t, srv, srv.AdminToken(), "DELETE", "/api/v1/tokens/"+id, nil); status != http.StatusNoContent {
		t.Fatalf("revoke: %d %s", status, body)
	}
	if status, body := cookieCall(t, srv, cookie, "GET", "/api/v1/decks", "", nil); status != http.StatusUnauthorized {
		t.Errorf("revoked session's cookie: status %d, want 401: %s", status, body)
	}
}

// TestDashboardCommandPrintsSignInURL: `agent-deck dashboard --no-open` prints a one-time URL
// on the server whose code (in the fragment) the page exchanges once for the session cookie.
func TestDashboardCommandPrintsSignInURL(t *testing.T) {
	e := startCLIEnv(t)
	r := e.run("", "dashboard", "--no-open").wantCode(t, 0)
	link := strings.TrimSpace(r.stdout)
	prefix := e.srv.URL() + "/signin#code="
	if !strings.HasPrefix(link, prefix) {
		t.Fatalf("dashboard printed %q, want a URL starting %q", link, prefix)
	}
	code := strings.TrimPrefix(link, prefix)
	if cookie, _, status, body := dashboardExchange(t, e.srv, code); status != http.StatusCreated || cookie == nil {
		t.Fatalf("exchange of the printed code: %d %s", status, body)
	}
	if _, _, status, _ := dashboardExchange(t, e.srv, code); status != http.StatusUnauthorized {
		t.Errorf("second exchange of the printed code: %d, want 401", status)
	}
}

// TestDashboardCommandOpensBrowser: without --no-open the command hands the one-time URL to the
// desktop's opener (xdg-open here, a stand-in that records its argument) and prints no code.
func TestDashboardCommandOpensBrowser(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("the opener stand-in is an xdg-open shell script")
	}
	e := startCLIEnv(t)
	bin := t.TempDir()
	opened := filepath.Join(bin, "opened")
	script := "#!/bin/sh\nprintf '%s' \"$1\" > " + opened + ".tmp && mv " + opened + ".tmp " + opened + "\n"
	must(t, os.WriteFile(filepath.Join(bin, "xdg-open"), []byte(script), 0o755))
	t.Setenv("PATH", bin+string(os.PathListSeparator)+os.Getenv("PATH"))
	r := e.run("", "dashboard").wantCode(t, 0)
	if strings.Contains(r.stdout+r.stderr, "code=") {
		t.Errorf("the command printed the code although it opened a browser: %q %q", r.stdout, r.stderr)
	}
	var link []byte
	for deadline := time.Now().Add(30 * time.Second); ; {
		var err error
		if link, err = os.ReadFile(opened); err == nil {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("xdg-open was not called")
		}
		time.Sleep(20 * time.Millisecond)
	}
	prefix := e.srv.URL() + "/signin#code="
	if !strings.HasPrefix(string(link), prefix) {
		t.Fatalf("opened %q, want a URL starting %q", link, prefix)
	}
	if cookie, _, status, body := dashboardExchange(t, e.srv, strings.TrimPrefix(string(link), prefix)); status != http.StatusCreated || cookie == nil {
		t.Fatalf("exchange of the opened code: %d %s", status, body)
	}
}
