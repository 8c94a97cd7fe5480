// Package peertest builds and runs the test MCP server in tests/peer, and finds the processes
// it leaves behind, for Agent Deck's proxy tests and benchmarks.
package peertest

import (
	"bufio"
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
)

var (
	buildOnce sync.Once
	buildPath string
	buildErr  error
)

// Build compiles tests/peer once per test binary and returns the executable's path. The binary
// is cached under the system temp dir by a hash of its sources, so reruns skip the build.
func Build(tb testing.TB) string {
	tb.Helper()
	buildOnce.Do(func() { buildPath, buildErr = build() })
	if buildErr != nil {
		tb.Fatalf("build peer: %v", buildErr)
	}
	return buildPath
}

func build() (string, error) {
	_, file, _, _ := runtime.Caller(0)
	root := filepath.Clean(filepath.Join(filepath.Dir(file), "..", ".."))
	src := filepath.Join(root, "tests", "peer")
	h := sha256.New()
	files, _ := filepath.Glob(filepath.Join(src, "*.go"))
	files = append(files, filepath.Join(root, "go.sum"))
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			return "", err
		}
		h.Write(b)
	}
	dir := filepath.Join(os.TempDir(), "agent-deck-peer", hex.EncodeToString(h.Sum(nil))[:16])
	out := filepath.Join(dir, "peer")
	if _, err := os.Stat(out); err == nil {
		return out, nil
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", err
	}
	tmp := fmt.Sprintf("%s.%d", out, os.Getpid())
	cmd := exec.Command("go", "build", "-o", tmp, "./tests/peer")
	cmd.Dir = root
	if b, err := cmd.CombinedOutput(); err != nil {
		return "", fmt.Errorf("%v: %s", err, b)
	}
	return out, os.Rename(tmp, out)
}

// Server is a peer serving HTTP (Streamable HTTP or SSE) on loopback.
type Server struct {
	URL string
	Cmd *exec.Cmd
}

// Start runs the peer with the given transport ("http" or "sse") and extra env, waits for its
// URL, and stops it when the test ends.
func Start(tb testing.TB, transport string, env ...string) *Server {
	tb.Helper()
	bin := Build(tb)
	urlFile := filepath.Join(tb.TempDir(), "url")
	cmd := exec.Command(bin, "-transport", transport, "-addr", "127.0.0.1:0", "-url-file", urlFile)
	cmd.Env = append(os.Environ(), env...)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		tb.Fatalf("start peer: %v", err)
	}
	tb.Cleanup(func() {
		_ = cmd.Process.Kill()
		_ = cmd.Wait()
	})
	deadline := time.Now().Add(10 * time.Second)
	for time.Now().Before(deadline) {
		if b, err := os.ReadFile(urlFile); err == nil {
			return &Server{URL: strings.TrimSpace(string(b)), Cmd: cmd}
		}
		time.Sleep(10 * time.Millisecond)
	}
	tb.Fatalf("peer did not announce its URL; stderr: %s", stderr.String())
	return nil
}

// Processes returns the pids of live (not zombie) processes whose environment contains the
// entry marker ("NAME=value"): a local server started with it, and anything it started.
func Processes(tb testing.TB, marker string) []int {
	tb.Helper()
	entries, err := os.ReadDir("/proc")
	if err != nil {
		tb.Fatalf("read /proc: %v", err)
	}
	var pids []int
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		env, err := os.ReadFile(filepath.Join("/proc", e.Name(), "environ"))
		if err != nil || !containsEntry(env, marker) || zombie(pid) {
			continue
		}
		pids = append(pids, pid)
	}
	return pids
}

func containsEntry(environ []byte, marker string) bool {
	for _, kv := range bytes.Split(environ, []byte{0}) {
		if string(kv) == marker {
			return true
		}
	}
	return false
}

func zombie(pid int) bool {
	f, err := os.Open(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return true
	}
	defer f.Close()
	line, _ := bufio.NewReader(f).ReadString('\n')
	// pid (comm) state ...; comm may hold spaces, so read after the last ')'.
	i := strings.LastIndexByte(line, ')')
	return i < 0 || i+2 >= len(line) || line[i+2] == 'Z' || line[i+2] == 'X'
}

// WaitGone waits until no process carries marker, or fails the test listing the survivors.
func WaitGone(tb testing.TB, marker string, within time.Duration) {
	tb.Helper()
	deadline := time.Now().Add(within)
	for {
		pids := Processes(tb, marker)
		if len(pids) == 0 {
			return
		}
		if time.Now().After(deadline) {
			tb.Fatalf("processes still running with %s: %v", marker, pids)
		}
		time.Sleep(20 * time.Millisecond)
	}
}
