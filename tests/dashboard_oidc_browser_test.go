package tests

import (
	"context"
	"crypto/rand"
	"encoding/base64"
	"log/slog"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/zitadel/oidc/v3/example/server/exampleop"
	"github.com/zitadel/oidc/v3/example/server/storage"

	"github.com/agent-deck/agent-deck/backend"
	"github.com/agent-deck/agent-deck/backend/core"
	"github.com/agent-deck/agent-deck/backend/postgres/pgtest"
	"github.com/agent-deck/agent-deck/cli"
)

// oidcUsers are the people of the test's own OpenID provider: alice, whom the hub knows by
// her e-mail, and mallory, whom it does not.
type oidcUsers map[string]*storage.User

func (u oidcUsers) GetUserByID(id string) *storage.User { return u[id] }
func (u oidcUsers) GetUserByUsername(name string) *storage.User {
	for _, x := range u {
		if x.Username == name {
			return x
		}
	}
	return nil
}
func (u oidcUsers) ExampleClientID() string { return "service" }

// startOIDCProvider runs zitadel/oidc's OpenID provider (its example server: in-memory users
// and clients, a login form) on a loopback listener, with agent-deck as a web client whose
// redirect URL is known only once the hub runs: redirect is called for it.
func startOIDCProvider(t *testing.T, users oidcUsers) (issuer string, serve func(redirect string)) {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	issuer = "http://" + ln.Addr().String()
	return issuer, func(redirect string) {
		st := storage.NewStorageWithClients(users, map[string]*storage.Client{
			"agent-deck": storage.WebClient("agent-deck", "oidc-client-secret", redirect)})
		srv := &http.Server{Handler: exampleop.SetupServer(issuer, st, slog.New(slog.DiscardHandler), false), ReadHeaderTimeout: 10 * time.Second}
		go func() { _ = srv.Serve(ln) }()
		t.Cleanup(func() { _ = srv.Close() })
	}
}

// TestDashboardOIDCSignInInBrowser (issue 26): in headless Chromium, alice signs in to the
// dashboard at the test's own OpenID provider and lands signed in as herself (a member); mallory,
// whose e-mail no person of the hub has, is refused on the sign-in page.
func TestDashboardOIDCSignInInBrowser(t *testing.T) {
	users := oidcUsers{
		"id-alice":   {ID: "id-alice", Username: "alice", Password: "alice-pw", Email: "alice@example.com", EmailVerified: true},
		"id-mallory": {ID: "id-mallory", Username: "mallory", Password: "mallory-pw", Email: "mallory@example.com", EmailVerified: true},
	}
	issuer, serveOIDC := startOIDCProvider(t, users)
	key := make([]byte, 32)
	_, _ = rand.Read(key)
	srv, err := cli.Start(context.Background(), cli.ServeConfig{Home: t.TempDir(), Addr: "127.0.0.1:0",
		DatabaseURL: pgtest.NewDB(t), SecretKey: base64.StdEncoding.EncodeToString(key), Profile: "standard",
		Logger: slog.New(slog.DiscardHandler),
		OIDC:   cli.OIDCConfig{Issuer: issuer, ClientID: "agent-deck", ClientSecret: "oidc-client-secret"}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
		defer cancel()
		_ = srv.Close(ctx)
	})
	serveOIDC(srv.URL() + "/api/v1/dashboard/oidc/callback")
	admin := backend.WithActor(context.Background(), backend.SystemActor)
	if _, err := srv.Service().AddPerson(admin, core.PersonInput{Name: "alice", Role: backend.RoleMember, Email: "alice@example.com"}); err != nil {
		t.Fatal(err)
	}

	signIn := func(b *dashBrowser, user, password string) {
		b.t.Helper()
		b.do("opening the sign-in page", chromedp.Navigate(srv.URL()+"/signin"))
		b.waitFor("the provider's sign-in link", `!!document.getElementById('oidc-signin')`)
		b.checkAccessibility("signin-oidc")
		b.click("#oidc-signin")
		b.waitFor("the provider's login form", `location.href.startsWith(`+js(issuer)+`) && !!document.getElementById('username')`)
		b.typeInto("#username", user)
		b.typeInto("#password", password)
		b.click("button[type=submit]")
	}

	t.Run("alice signs in as herself", func(t *testing.T) {
		b := startDashBrowser(t, srv)
		signIn(b, "alice", "alice-pw")
		b.waitFor("the dashboard, signed in", `location.href.startsWith(`+js(srv.URL())+`) && !!document.querySelector('main h1') && !location.pathname.startsWith('/signin')`)
		who := evalIn[map[string]any](b, `fetch('/api/v1/dashboard/session').then(r => r.json())`)
		if who["person"] != "alice" || who["role"] != "member" {
			t.Errorf("the dashboard session is %v, want alice's as a member", who)
		}
		me := evalIn[map[string]any](b, `fetch('/api/v1/me').then(r => r.json())`)
		if me["name"] != "alice" {
			t.Errorf("/api/v1/me = %v", me)
		}
		b.screenshot("oidc-signed-in")
		b.checkNoExceptions()
	})

	t.Run("an unknown e-mail is refused", func(t *testing.T) {
		b := startDashBrowser(t, srv)
		signIn(b, "mallory", "mallory-pw")
		b.waitFor("the refusal on the sign-in page", `location.pathname === '/signin' && (document.querySelector('[role=alert]')?.innerText || '').includes('mallory@example.com')`)
		msg := evalIn[string](b, `document.querySelector('[role=alert]').innerText`)
		if !strings.Contains(msg, "not a person of this hub") {
			t.Errorf("refusal %q", msg)
		}
		if got := evalIn[int](b, `fetch('/api/v1/dashboard/session').then(r => r.status)`); got != http.StatusUnauthorized {
			t.Errorf("mallory's browser has a session: status %d", got)
		}
		b.screenshot("oidc-refused")
		b.checkNoExceptions()
	})
}
