package proxy_test

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/agent-deck/agent-deck/backend"
)

// everythingVersion is the pinned @modelcontextprotocol/server-everything release the tests
// run against. `make test-deps` (part of `make test`) installs it into tests/node from the
// lockfile; AGENT_DECK_EVERYTHING_DIR can point at another npm --prefix.
const everythingVersion = "2026.8.31"

// everythingEntry returns the server's entry script, or skips the test saying how to install it.
func everythingEntry(t *testing.T) string {
	t.Helper()
	dir := os.Getenv("AGENT_DECK_EVERYTHING_DIR")
	if dir == "" {
		dir = filepath.Join("..", "tests", "node")
	}
	pkg := filepath.Join(dir, "node_modules", "@modelcontextprotocol", "server-everything")
	entry := filepath.Join(pkg, "dist", "index.js")
	if _, err := os.Stat(entry); err != nil {
		msg := fmt.Sprintf("@modelcontextprotocol/server-everything is not installed in %s; run `make test-deps`", dir)
		if os.Getenv("CI") != "" {
			t.Fatal(msg)
		}
		t.Skip(msg)
	}
	var meta struct {
		Version string `json:"version"`
	}
	if b, err := os.ReadFile(filepath.Join(pkg, "package.json")); err == nil && json.Unmarshal(b, &meta) == nil &&
		meta.Version != everythingVersion {
		t.Logf("server-everything %s installed; the tests pin %s", meta.Version, everythingVersion)
	}
	if _, err := exec.LookPath("node"); err != nil {
		t.Skip("node is not on PATH")
	}
	return entry
}

// startEverythingHTTP runs the server's Streamable HTTP transport on a free port.
func startEverythingHTTP(t *testing.T, entry string) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	port := ln.Addr().(*net.TCPAddr).Port
	ln.Close()
	cmd := exec.Command("node", entry, "streamableHttp")
	cmd.Env = append(os.Environ(), fmt.Sprintf("PORT=%d", port))
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	stderr, _ := cmd.StderrPipe()
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
		_ = cmd.Wait()
	})
	ready := make(chan struct{})
	go func() {
		sc := bufio.NewScanner(stderr)
		for sc.Scan() {
			if strings.Contains(sc.Text(), "listening on port") {
				close(ready)
				break
			}
		}
		for sc.Scan() {
		}
	}()
	select {
	case <-ready:
	case <-time.After(30 * time.Second):
		t.Fatal("server-everything did not start listening")
	}
	return fmt.Sprintf("http://127.0.0.1:%d/mcp", port)
}

// TestEverythingServer lists and calls tools of the reference MCP server over stdio and over
// Streamable HTTP.
func TestEverythingServer(t *testing.T) {
	entry := everythingEntry(t)
	p, _ := newProxy(t, proxyOptions{connect: 30 * time.Second}.opts())
	stdio := backend.Target{ServiceID: uniqueID("everything"), ServiceName: "everything-stdio",
		Type: backend.ServiceLocal, LocalCommand: "node", LocalArgs: []string{entry, "stdio"}, Revision: "1"}
	httpT := remoteTarget(startEverythingHTTP(t, entry), backend.TransportAuto)
	httpT.ServiceName = "everything-http"
	for _, tg := range []backend.Target{stdio, httpT} {
		t.Run(tg.ServiceName, func(t *testing.T) {
			tools, err := p.ListTools(context.Background(), tg)
			if err != nil {
				t.Fatalf("list tools: %v", err)
			}
			names := map[string]backend.DownstreamTool{}
			for _, tool := range tools {
				names[tool.Name] = tool
			}
			for _, want := range []string{"echo", "get-sum", "get-tiny-image", "get-structured-content"} {
				if _, ok := names[want]; !ok {
					t.Fatalf("%s missing from %d tools", want, len(tools))
				}
			}
			if !names["get-sum"].ReadOnly {
				t.Errorf("get-sum should be read-only")
			}

			res, _ := call(t, p, tg, "echo", map[string]any{"message": "hello deck"})
			if res.Content[0].Text != "Echo: hello deck" {
				t.Errorf("echo = %+v", res)
			}
			res, _ = call(t, p, tg, "get-sum", map[string]any{"a": 2, "b": 40})
			if !strings.Contains(res.Content[0].Text, "42") {
				t.Errorf("get-sum = %+v", res)
			}
			res, _ = call(t, p, tg, "get-tiny-image", nil)
			found := false
			for _, c := range res.Content {
				found = found || (c.Type == "image" && c.MimeType == "image/png" && c.Data != "")
			}
			if !found {
				t.Errorf("get-tiny-image returned no image: %+v", res)
			}
			res, _ = call(t, p, tg, "get-structured-content", map[string]any{"location": "Chicago"})
			if !strings.Contains(string(res.StructuredContent), "temperature") {
				t.Errorf("structured content = %s", res.StructuredContent)
			}
			_, err = tryCall(context.Background(), p, tg, "get-sum", map[string]any{"a": "two"})
			be := wantCode(t, err, backend.CodeInvalidArgument)
			if !strings.Contains(be.Message, "a (number, required)") || !strings.Contains(be.Message, "b (number, required)") {
				t.Errorf("message = %q", be.Message)
			}
		})
	}
}
