package tests

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"net"
	"net/http"
	"net/http/httputil"
	"net/netip"
	"net/url"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/agent-deck/agent-deck/backend"
	"github.com/agent-deck/agent-deck/backend/core"
	"github.com/agent-deck/agent-deck/cli"
	"github.com/agent-deck/agent-deck/proxy"
	"github.com/agent-deck/agent-deck/tests/resttest"
)

// Helpers of the target-policy attacks (SPEC §10): who may point a service where, deck scoping
// of direct REST calls, and secrets kept off URLs and out of reach.

// policyDeck is a real deck with two real peers: home, the service's own, and evil, the URL an
// attacker wants the deck's secrets sent to. evil sits behind a loopback proxy that counts every
// request it gets, so a test can prove it got nothing.
type policyDeck struct {
	stack   *mcpStack
	home    string
	evil    string
	evilHit *atomic.Int64
	agent   string // an agent-scoped token
	fx      mcpFixture
	secret  string // the value of the service's secret header
	svc     backend.ServiceCard
}

// startPolicyDeck seeds deck "ops" with a peer service that carries a secret header.
func startPolicyDeck(t *testing.T) *policyDeck {
	t.Helper()
	s := startMCPStack(t, mcpStackOptions{})
	d := &policyDeck{stack: s, home: startHTTPPeer(t), secret: "sk-policy-" + randHex(8)}
	d.evil, d.evilHit = countingProxy(t, startHTTPPeer(t))
	d.fx = s.seedDeck(t, "ops", d.home)
	var err error
	d.svc, err = s.svc.UpdateService(s.adminCtx(), d.fx.Service.ID, core.ServicePatch{
		Headers: &map[string]string{"X-Api-Key": d.secret}})
	if err != nil {
		t.Fatal(err)
	}
	d.agent = s.token(backend.ScopeAgent)
	return d
}

// countingProxy forwards to target and counts the requests; it returns its own URL (same path).
func countingProxy(t *testing.T, target string) (string, *atomic.Int64) {
	t.Helper()
	u, err := url.Parse(target)
	if err != nil {
		t.Fatal(err)
	}
	hits := &atomic.Int64{}
	rp := httputil.NewSingleHostReverseProxy(&url.URL{Scheme: u.Scheme, Host: u.Host})
	srv := &http.Server{Handler: fullDuplex(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		hits.Add(1)
		r.Host = u.Host // the name the request was sent to is not the target's (DNS rebinding guard)
		rp.ServeHTTP(w, r)
	}))}
	ln := mcpListenRetry(t, "127.0.0.1:0")
	go func() { _ = srv.Serve(ln) }()
	t.Cleanup(func() { _ = srv.Close() })
	return "http://" + ln.Addr().String() + u.Path, hits
}

// rest sends a REST request to the stack with token and extra headers.
func (d *policyDeck) rest(t *testing.T, token, method, path string, body any, headers ...string) resttest.Answer {
	t.Helper()
	return d.stack.api().Do(t, token, method, "/api/v1"+path, body, headers...)
}

// wantRefused fails unless a REST answer is the coded refusal.
func wantRefused(t *testing.T, a resttest.Answer, status int, code backend.Code) {
	t.Helper()
	if got, msg, _ := a.Err(); a.Status != status || got != code {
		t.Fatalf("status %d code %q (%s), want %d %s", a.Status, got, msg, status, code)
	}
}

// stillHome proves the service still reaches its own peer with its secret header, and that the
// attacker's URL got nothing: the refused change changed nothing.
func (d *policyDeck) stillHome(t *testing.T) {
	t.Helper()
	a := d.rest(t, d.agent, http.MethodPost, "/services/"+d.svc.ID+"/call", map[string]any{
		"tool_name": "whoami", "arguments": map[string]any{"headers": []string{"X-Api-Key"}}, "deck": "ops"})
	if a.Status != http.StatusOK {
		t.Fatalf("call after the refused change: %d %s", a.Status, a.Body)
	}
	if want := sha256hex(d.secret); !strings.Contains(string(a.Body), want) {
		t.Errorf("the secret header did not reach the home peer: %s", a.Body)
	}
	got, err := d.stack.svc.GetService(d.stack.adminCtx(), d.svc.ID)
	if err != nil {
		t.Fatal(err)
	}
	if got.URL != d.home {
		t.Errorf("service url = %q, want %q", got.URL, d.home)
	}
	if n := d.evilHit.Load(); n != 0 {
		t.Errorf("the attacker's URL got %d requests", n)
	}
}

// basicAuth is the Authorization value of HTTP basic auth.
func basicAuth(user, pass string) string {
	return "Basic " + base64.StdEncoding.EncodeToString([]byte(user+":"+pass))
}

// metadataURLs spell link-local and cloud-metadata hosts in the forms an attacker would try.
var metadataURLs = []string{
	"http://169.254.169.254/latest/meta-data/",
	"http://2852039166/",
	"http://0xA9FEA9FE/",
	"http://0251.0376.0251.0376/",
	"http://[::ffff:169.254.169.254]/",
	"http://[fe80::1]/",
	"http://[fd00:ec2::254]/",
	"http://metadata.google.internal./computeMetadata/v1/",
	"http://METADATA/",
	"http://100.100.100.200/",
}

// privateURLs are private-range hosts: admin only.
var privateURLs = []string{
	"http://10.0.0.8/mcp", "http://192.168.1.20:8080/mcp", "http://172.16.4.4/", "http://100.64.1.1/",
	"http://[fd12::1]/",
}

// jsonInto decodes a JSON body.
func jsonInto(b []byte, out any) error { return json.Unmarshal(b, out) }

// newDeck creates a deck as admin.
func newDeck(t *testing.T, s *mcpStack, name string) backend.Deck {
	t.Helper()
	d, err := s.svc.CreateDeck(s.adminCtx(), core.DeckInput{Name: name})
	if err != nil {
		t.Fatal(err)
	}
	return d
}

// inwardNet is a network for the deck under test: a resolver that answers the names it is given
// (nothing else resolves), and a dialer that connects every address that is not loopback to
// capture instead, noting the address asked for. So a name can resolve to 169.254.169.254 or
// 10.0.0.1 on any machine, and what the deck sends there lands on a loopback server the test
// counts.
type inwardNet struct {
	names   map[string][]netip.Addr
	capture string // host:port of the loopback capture server
	mu      sync.Mutex
	dialed  []string
	sent    strings.Builder // every byte written on a rerouted connection
}

// recordedConn is a rerouted connection whose writes are noted in n.sent.
type recordedConn struct {
	net.Conn
	n *inwardNet
}

func (c recordedConn) Write(p []byte) (int, error) {
	c.n.mu.Lock()
	c.n.sent.Write(p)
	c.n.mu.Unlock()
	return c.Conn.Write(p)
}

// sentSince returns what rerouted connections carried after mark (a length sent returned).
func (n *inwardNet) sentSince(mark int) string {
	n.mu.Lock()
	defer n.mu.Unlock()
	return n.sent.String()[mark:]
}

// sentLen marks how much rerouted connections carried so far.
func (n *inwardNet) sentLen() int {
	n.mu.Lock()
	defer n.mu.Unlock()
	return n.sent.Len()
}

func (n *inwardNet) network() proxy.Network {
	return proxy.Network{
		LookupIP: func(_ context.Context, host string) ([]netip.Addr, error) {
			if a, ok := n.names[strings.ToLower(strings.TrimSuffix(host, "."))]; ok {
				return a, nil
			}
			return nil, &net.DNSError{Err: "no such host", Name: host, IsNotFound: true}
		},
		Dial: func(ctx context.Context, network, address string) (net.Conn, error) {
			var d net.Dialer
			ap, err := netip.ParseAddrPort(address)
			if err != nil || ap.Addr().IsLoopback() {
				return d.DialContext(ctx, network, address)
			}
			n.mu.Lock()
			n.dialed = append(n.dialed, address)
			n.mu.Unlock()
			c, err := d.DialContext(ctx, network, n.capture)
			if err != nil {
				return nil, err
			}
			return recordedConn{Conn: c, n: n}, nil
		},
	}
}

// dials returns the non-loopback addresses dialed so far.
func (n *inwardNet) dials() []string {
	n.mu.Lock()
	defer n.mu.Unlock()
	return append([]string(nil), n.dialed...)
}

// inwardDeck is a deck whose proxy resolves names with an inwardNet, with a capture server: a
// counting proxy in front of a real peer, so a dial the deck is allowed reaches a real server.
type inwardDeck struct {
	stack   *mcpStack
	canary  string // the secret header every service of the deck carries
	net     *inwardNet
	port    string // the capture server's port, used in every URL so what is dialed is routed there
	hits    *atomic.Int64
	agent   string
	capture string // the capture server's own URL
}

func startInwardDeck(t *testing.T) *inwardDeck {
	t.Helper()
	capture, hits := countingProxy(t, startHTTPPeer(t))
	u, err := url.Parse(capture)
	must(t, err)
	in := &inwardNet{capture: u.Host, names: map[string][]netip.Addr{
		"imds.rebind.test":   {netip.MustParseAddr("169.254.169.254")},
		"ec2v6.rebind.test":  {netip.MustParseAddr("fd00:ec2::254")},
		"lan.rebind.test":    {netip.MustParseAddr("10.0.0.1")},
		"mapped.rebind.test": {netip.MustParseAddr("::ffff:192.168.1.1")},
		"mixed.rebind.test":  {netip.MustParseAddr("203.0.113.7"), netip.MustParseAddr("10.0.0.1")},
		"pub.rebind.test":    {netip.MustParseAddr("203.0.113.7")},
	}}
	s := startMCPStack(t, mcpStackOptions{Serve: func(c *cli.ServeConfig) { c.Network = in.network() }})
	return &inwardDeck{stack: s, net: in, port: u.Port(), hits: hits, agent: s.token(backend.ScopeAgent), capture: capture,
		canary: "canary-inward-" + randHex(8)}
}

// register creates a streamable HTTP service at rawURL with token, carrying the deck's canary
// as a secret header, and returns its id.
func (d *inwardDeck) register(t *testing.T, token, rawURL string) string {
	t.Helper()
	return d.registerWith(t, token, rawURL, map[string]string{"X-Api-Key": d.canary})
}

// registerWith creates a streamable HTTP service at rawURL with token and headers (none: a
// service an agent may repoint) and returns its id.
func (d *inwardDeck) registerWith(t *testing.T, token, rawURL string, headers map[string]string) string {
	t.Helper()
	a := d.stack.api().Do(t, token, http.MethodPost, "/api/v1/services",
		map[string]any{"name": "svc-" + randHex(4), "type": "mcp", "url": rawURL, "transport": "streamable_http",
			"headers": headers})
	var card backend.ServiceCard
	if a.Status != http.StatusCreated || jsonInto(a.Body, &card) != nil {
		t.Fatalf("register %s: %d %s", rawURL, a.Status, a.Body)
	}
	return card.ID
}

// call calls the service's echo tool as admin (an admin may call a service on no deck): the
// caller does not matter, the service's URL and who set it do.
func (d *inwardDeck) call(t *testing.T, id string) resttest.Answer {
	t.Helper()
	return d.stack.api().Do(t, d.stack.AdminToken, http.MethodPost, "/api/v1/services/"+id+"/call",
		map[string]any{"tool_name": "echo", "arguments": map[string]any{"message": "hi"}})
}

// wantRefusedDial fails unless the call was refused as FORBIDDEN naming the address class, with
// nothing sent to the capture server, the canary least of all.
func (d *inwardDeck) wantRefusedDial(t *testing.T, what, id string) {
	t.Helper()
	before, mark := d.hits.Load(), d.net.sentLen()
	defer func() {
		if strings.Contains(d.net.sentSince(mark), d.canary) {
			t.Errorf("%s: the service's secret header reached the capture server", what)
		}
	}()
	a := d.call(t, id)
	t.Logf("%s: %s", what, a.Body)
	code, msg, _ := a.Err()
	if a.Status != http.StatusForbidden || code != backend.CodeForbidden || !strings.Contains(msg, "resolves to") {
		t.Errorf("%s: %d %s, want 403 FORBIDDEN saying what the name resolves to", what, a.Status, a.Body)
	}
	if n := d.hits.Load() - before; n != 0 {
		t.Errorf("%s: the capture server got %d requests", what, n)
	}
}
