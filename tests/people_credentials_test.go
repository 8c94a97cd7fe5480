package tests

import (
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"strings"
	"sync"
	"testing"

	"github.com/agent-deck/agent-deck/backend"
	"github.com/agent-deck/agent-deck/backend/core"
)

// captureProxy sits between the hub and a downstream server and records the Authorization
// header of every request, so a test sees exactly which secret went out.
type captureProxy struct {
	URL string
	mu  sync.Mutex
	got []string
}

func startCaptureProxy(t *testing.T, upstream string) *captureProxy {
	t.Helper()
	u, err := url.Parse(upstream)
	if err != nil {
		t.Fatal(err)
	}
	c := &captureProxy{}
	rp := httputil.NewSingleHostReverseProxy(&url.URL{Scheme: u.Scheme, Host: u.Host})
	srv := httptest.NewServer(fullDuplex(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		c.mu.Lock()
		c.got = append(c.got, r.Header.Get("Authorization"))
		c.mu.Unlock()
		rp.ServeHTTP(w, r)
	})))
	// The hub keeps streams open through the proxy until it stops: cut them, or Close waits.
	t.Cleanup(func() { srv.CloseClientConnections(); srv.Close() })
	c.URL = srv.URL + u.Path
	return c
}

// take returns the Authorization headers seen since the last take.
func (c *captureProxy) take() []string {
	c.mu.Lock()
	defer c.mu.Unlock()
	out := c.got
	c.got = nil
	return out
}

// TestBringYourOwnCredential (issue 26): a GitHub-like service whose credential each person
// brings their own of sends alice's secret for alice's calls and bob's for bob's, on MCP and
// REST, never the other's; the admin, who set none, gets CREDENTIAL_MISSING with the command.
func TestBringYourOwnCredential(t *testing.T) {
	h := startTeamHub(t, mcpStackOptions{})
	capture := startCaptureProxy(t, startHTTPPeer(t))
	admin := h.s.api()
	var cred backend.Credential
	admin.Must(t, http.StatusCreated, "POST", "/api/v1/credentials", core.CredentialInput{Label: "GitHub", Personal: true}, &cred)
	if !cred.Personal || cred.HasSecret {
		t.Fatalf("credential %+v, want personal without a shared secret", cred)
	}
	admin.Must(t, http.StatusCreated, "POST", "/api/v1/services", core.ServiceInput{Name: "github", Type: backend.ServiceRemote,
		URL: capture.URL, CredentialID: cred.ID}, nil)
	admin.Must(t, http.StatusCreated, "POST", "/api/v1/decks", core.DeckInput{Name: "team"}, nil)
	admin.Must(t, http.StatusOK, "POST", "/api/v1/decks/team/cards", core.CardRef{CardType: backend.CardService, CardID: "github"}, nil)
	admin.Must(t, http.StatusOK, "PUT", "/api/v1/decks/team/sharing", core.DeckSharingInput{Sharing: backend.ShareEveryone}, nil)

	secrets := map[string]string{"alice": "ghp_alice_" + randHex(8), "bob": "ghp_bob_" + randHex(8)}
	for _, who := range []string{"alice", "bob"} {
		r := runCLI(t.TempDir(), strings.NewReader(secrets[who]+"\n"), "--server", h.s.URL, "--token", h.person[who],
			"credential", "set-mine", "GitHub").wantCode(t, 0)
		if strings.Contains(r.stdout+r.stderr, secrets[who]) {
			t.Errorf("set-mine prints the secret: %s %s", r.stdout, r.stderr)
		}
	}
	var mine backend.Credential
	h.as(h.person["alice"]).Must(t, http.StatusOK, "GET", "/api/v1/credentials/GitHub", nil, &mine)
	if !mine.HasOwnSecret || mine.HasSecret {
		t.Errorf("alice reads %+v, want her own secret set and no shared one", mine)
	}

	sessions := map[string]*mcpConn{}
	for _, who := range []string{"alice", "bob", "admin"} {
		sessions[who] = h.s.connect(t, h.agent[who], nil, "")
		sessions[who].ok("bind_workspace", map[string]any{"workspaceRoot": "/w/" + who, "deckId": "team"}, nil)
	}
	echo := map[string]any{"serviceId": "github", "toolName": "echo", "arguments": map[string]any{"message": "hi"}}
	capture.take()
	// Interleaved, so that a connection kept for one person would show up in the other's call.
	for _, who := range []string{"alice", "bob", "alice", "bob"} {
		sessions[who].ok("call_service_tool", echo, nil)
		for _, auth := range capture.take() {
			if auth != "Bearer "+secrets[who] {
				t.Errorf("%s's MCP call went out with %q, want %s's own secret", who, auth, who)
			}
		}
	}
	for _, who := range []string{"alice", "bob"} {
		h.as(h.agent[who]).Must(t, http.StatusOK, "POST", "/api/v1/services/github/call",
			core.CallInput{ToolName: "echo", Deck: "team", Arguments: []byte(`{"message":"rest"}`)}, nil)
		for _, auth := range capture.take() {
			if auth != "Bearer "+secrets[who] {
				t.Errorf("%s's REST call went out with %q", who, auth)
			}
		}
	}

	e := sessions["admin"].fails("call_service_tool", echo)
	if e.Code != "CREDENTIAL_MISSING" || !strings.Contains(e.Hint, "agent-deck credential set-mine "+cred.ID) {
		t.Errorf("the admin's call without a secret of theirs: %+v", e)
	}
	a := h.as(h.person["admin"]).Do(t, h.s.AdminToken, "POST", "/api/v1/services/github/call",
		core.CallInput{ToolName: "echo", Arguments: []byte(`{"message":"x"}`)})
	if code, _, _ := a.Err(); code != backend.CodeCredentialMissing || a.Status != http.StatusConflict {
		t.Errorf("the admin's REST call: %d %s", a.Status, a.Body)
	}
	if got := capture.take(); len(got) != 0 {
		t.Errorf("calls without a secret reached the service: %q", got)
	}
	// The trail names the person of every call: bob's two (MCP, REST), and the admin's refusals.
	for _, c := range auditCalls(t, h.s, url.Values{"person": {"bob"}}, 3) {
		if c.Person != "bob" || c.TokenName != "bob agent" {
			t.Errorf("bob's trail holds %+v", c)
		}
	}
	if ref := auditCalls(t, h.s, url.Values{"person": {"admin"}, "outcome": {"error"}}, 2); ref[0].ErrorCode != backend.CodeCredentialMissing {
		t.Errorf("the admin's refused call is recorded as %+v", ref[0])
	}
	// Secrets stay write-only for everyone, admins included.
	for _, c := range []interface{ Bodies() [][]byte }{admin, h.as(h.person["alice"])} {
		for _, b := range c.Bodies() {
			for _, s := range secrets {
				if strings.Contains(string(b), s) {
					t.Errorf("an answer holds a personal secret: %s", b)
				}
			}
		}
	}
}
