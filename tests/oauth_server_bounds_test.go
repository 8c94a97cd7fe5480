package tests

import (
	"context"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/agent-deck/agent-deck/cli"
)

// TestOAuthClientBounds: registered clients are bounded in total. At the bound the oldest client
// that never signed in makes room; a server full of signed-in clients refuses in the RFC 7591
// shape. A client that completes no sign-in within its time expires: it can no longer start
// one, and the next registration deletes it. A client that signed in stays.
func TestOAuthClientBounds(t *testing.T) {
	t.Run("total", func(t *testing.T) {
		var dbURL string
		srv := startFrontDoor(t, func(c *cli.ServeConfig) {
			dbURL, c.OAuthMaxClients, c.OAuthRegistrationsPerMinute = c.DatabaseURL, 3, 600
		})
		clients := []*oauthClient{}
		for range 4 {
			clients = append(clients, newOAuthClient(t, srv))
		}
		_, challenge := pkce()
		wantNoRedirect(t, clients[0], clients[0].authorizeQuery(challenge, nil), http.StatusUnauthorized, "invalid_client")
		if status, _, body := clients[3].authorize(clients[3].authorizeQuery(challenge, nil)); status != http.StatusFound {
			t.Fatalf("the newest client: %d %s", status, body)
		}
		if n := sqlInt(t, dbURL, `SELECT count(*) FROM oauth_clients`); n != 3 {
			t.Errorf("%d clients kept, want 3", n)
		}
		sqlExec(t, dbURL, `UPDATE oauth_clients SET signed_in_at = now()`)
		status, body := oauthPost(t, srv.URL()+"/oauth/register", "application/json", `{"redirect_uris":["http://127.0.0.1:1/cb"]}`)
		if status != http.StatusServiceUnavailable || !strings.Contains(string(body), `"error":"temporarily_unavailable"`) ||
			!strings.Contains(string(body), "--oauth-max-clients") {
			t.Errorf("register on a server full of signed-in clients: %d %s", status, body)
		}
	})
	t.Run("expiry", func(t *testing.T) {
		var dbURL string
		// Long enough for a sign-in on a busy machine: the used client signs in within it.
		const ttl = 2 * time.Second
		srv := startFrontDoor(t, func(c *cli.ServeConfig) { dbURL, c.OAuthUnusedClientTTL = c.DatabaseURL, ttl })
		used := newOAuthClient(t, srv)
		_, refresh := used.signIn()
		idle := newOAuthClient(t, srv)
		time.Sleep(ttl + 100*time.Millisecond)
		_, challenge := pkce()
		status, _, body := idle.authorize(idle.authorizeQuery(challenge, nil))
		if status != http.StatusUnauthorized || !strings.Contains(body, "invalid_client") || !strings.Contains(body, "expired") {
			t.Errorf("authorize with a client that never signed in, past its time: %d %s", status, body)
		}
		newOAuthClient(t, srv)
		if n := sqlInt(t, dbURL, `SELECT count(*) FROM oauth_clients WHERE id = '`+idle.id+`'`); n != 0 {
			t.Error("the expired client was not deleted by the next registration")
		}
		if status, _, body := used.authorize(used.authorizeQuery(challenge, nil)); status != http.StatusFound {
			t.Errorf("the client that signed in: %d %s", status, body)
		}
		status, out := used.token(url.Values{"grant_type": {"refresh_token"}, "refresh_token": {refresh}, "client_id": {used.id}})
		if status != http.StatusOK || out["access_token"] == nil {
			t.Errorf("refresh of the signed-in client: %d %v", status, out)
		}
	})
}

func sqlExec(t *testing.T, dbURL, q string) {
	t.Helper()
	conn, err := pgx.Connect(context.Background(), dbURL)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(context.Background())
	if _, err := conn.Exec(context.Background(), q); err != nil {
		t.Fatal(err)
	}
}

func sqlInt(t *testing.T, dbURL, q string) int {
	t.Helper()
	conn, err := pgx.Connect(context.Background(), dbURL)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(context.Background())
	var n int
	if err := conn.QueryRow(context.Background(), q).Scan(&n); err != nil {
		t.Fatal(err)
	}
	return n
}
