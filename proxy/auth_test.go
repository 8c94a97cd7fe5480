package proxy_test

import (
	"context"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"strings"
	"testing"

	"github.com/agent-deck/agent-deck/backend"
	"github.com/agent-deck/agent-deck/proxy"
	"github.com/agent-deck/agent-deck/tests/peertest"
)

// seen is whoami's report of one header or env var.
type seen struct {
	Present bool   `json:"present"`
	Value   string `json:"value"`
	SHA256  string `json:"sha256"`
}

type whoamiReport struct {
	Headers map[string]seen `json:"headers"`
	Env     map[string]seen `json:"env"`
}

func sha(s string) string {
	sum := sha256.Sum256([]byte(s))
	return hex.EncodeToString(sum[:])
}

const planted = "s3cr3t-PLANTED-7f9a2c"

// noSecretIn fails if the planted secret appears in text.
func noSecretIn(t *testing.T, where, text string) {
	t.Helper()
	if strings.Contains(text, planted) {
		t.Errorf("secret found in %s: %s", where, text)
	}
}

// TestCredentialsAtEgress proves each auth scheme arrives at a remote server as specified,
// and that the secret never comes back: not in results (the peer echoes it; the proxy masks
// it) nor in logs.
func TestCredentialsAtEgress(t *testing.T) {
	httpPeer := peertest.Start(t, "http")
	ssePeer := peertest.Start(t, "sse")
	cases := []struct {
		name       string
		scheme     backend.AuthScheme
		headerName string
		header     string // header that must arrive
		want       string // its exact value
	}{
		{"bearer", backend.SchemeBearer, "", "Authorization", "Bearer " + planted},
		{"header", backend.SchemeHeader, "X-Api-Token", "X-Api-Token", planted},
		{"http_basic_user", backend.SchemeHTTPBasicUser, "", "Authorization",
			"Basic " + base64.StdEncoding.EncodeToString([]byte(planted+":"))},
	}
	remotes := []struct {
		name string
		url  string
		tr   backend.Transport
	}{{"streamable_http", httpPeer.URL, backend.TransportStreamableHTTP}, {"sse", ssePeer.URL, backend.TransportSSE}}
	p, logs := newProxy(t, proxyOptions{}.opts())
	for _, tc := range cases {
		for _, remote := range remotes {
			t.Run(tc.name+"/"+remote.name, func(t *testing.T) {
				tg := remoteTarget(remote.url, remote.tr)
				tg.Headers = map[string]string{"X-Team": "platform"}
				tg.Credential = &backend.TargetCredential{ID: "cred_x", Scheme: tc.scheme, HeaderName: tc.headerName,
					EnvName: "X_API_KEY", Secret: planted}
				tg.Secrets = []string{planted} // as the core lists them
				got, raw := whoami(t, p, tg, map[string]any{"headers": []string{tc.header, "X-Team"}})
				if h := got.Headers[tc.header]; !h.Present || h.SHA256 != sha(tc.want) {
					t.Errorf("%s arrived as %+v, want the value with sha256 %s", tc.header, h, sha(tc.want))
				}
				if got.Headers["X-Team"].Value != "platform" {
					t.Errorf("service header X-Team = %+v", got.Headers["X-Team"])
				}
				noSecretIn(t, "result", string(raw))
			})
		}
	}
	noSecretIn(t, "logs", logs.String())
}

// TestCredentialInLocalEnv: a local server gets the credential as <ENV_NAME>=<secret> beside
// its own env, not Agent Deck's; the secret is masked in results and in the stderr tail.
func TestCredentialInLocalEnv(t *testing.T) {
	t.Setenv("AGENT_DECK_SECRET_KEY", "must-not-reach-children")
	p, logs := newProxy(t, proxyOptions{}.opts())
	tg, _ := localTarget(t)
	tg.Credential = &backend.TargetCredential{ID: "cred_x", Scheme: backend.SchemeBearer, EnvName: "X_API_KEY", Secret: planted}
	tg.Secrets = []string{planted} // as the core lists them
	got, raw := whoami(t, p, tg, map[string]any{"env": []string{"X_API_KEY", "PEER_MARKER", "AGENT_DECK_SECRET_KEY", "PATH"}})
	if e := got.Env["X_API_KEY"]; !e.Present || e.SHA256 != sha(planted) {
		t.Errorf("X_API_KEY arrived as %+v", e)
	}
	if !got.Env["PEER_MARKER"].Present || !got.Env["PATH"].Present {
		t.Errorf("LocalEnv or inherited PATH missing: %+v", got.Env)
	}
	if got.Env["AGENT_DECK_SECRET_KEY"].Present {
		t.Errorf("Agent Deck's own env leaked into the child")
	}
	noSecretIn(t, "result", string(raw))

	call(t, p, tg, "log", map[string]any{"text": "my key is " + planted})
	var tail string
	waitFor(t, "the stderr line", func() bool {
		st, _ := p.Status(tg.ServiceID)
		tail = st.Health.Stderr
		return strings.Contains(tail, "my key is")
	})
	if !strings.Contains(tail, "my key is "+backend.MaskedValue) {
		t.Errorf("stderr tail = %q", tail)
	}
	noSecretIn(t, "stderr tail", tail)
	noSecretIn(t, "logs", logs.String())
}

// TestRejectedCredential: a 401 is DOWNSTREAM_AUTH at connect, health auth_required, with no
// secret in the error; the right secret then works.
func TestRejectedCredential(t *testing.T) {
	guarded := peertest.Start(t, "http", "PEER_REQUIRE_AUTHORIZATION=Bearer the-right-one")
	p, logs := newProxy(t, proxyOptions{}.opts())
	tg := remoteTarget(guarded.URL, backend.TransportAuto)
	tg.Credential = &backend.TargetCredential{ID: "cred_x", Scheme: backend.SchemeBearer, Secret: planted}
	_, err := tryCall(context.Background(), p, tg, "echo", map[string]any{"message": "x"})
	be := wantCode(t, err, backend.CodeDownstreamAuth)
	if be.Details["phase"] != "connect" || be.Details["service_id"] != tg.ServiceID {
		t.Errorf("details = %v", be.Details)
	}
	noSecretIn(t, "error", be.Message+be.Hint)
	if st, _ := p.Status(tg.ServiceID); st.Health.Status != backend.HealthAuthRequired {
		t.Errorf("health = %+v, want auth_required", st.Health)
	}
	tg.Credential.Secret = "the-right-one"
	call(t, p, tg, "echo", map[string]any{"message": "x"})
	noSecretIn(t, "logs", logs.String())
}

func whoami(t *testing.T, p *proxy.Proxy, tg backend.Target, args map[string]any) (whoamiReport, []byte) {
	t.Helper()
	res, raw := call(t, p, tg, "whoami", args)
	var got whoamiReport
	if err := json.Unmarshal(res.StructuredContent, &got); err != nil {
		t.Fatalf("decode whoami: %v", err)
	}
	return got, raw.Raw
}
