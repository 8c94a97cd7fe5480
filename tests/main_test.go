// Package tests holds Agent Deck's end-to-end tests: the real binary or cli.Start, a real
// PostgreSQL cluster (one per test binary, one database per test) and real MCP peers.
package tests

import (
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/agent-deck/agent-deck/backend/postgres/pgtest"
)

func TestMain(m *testing.M) {
	pgtest.Main(m)
}

var (
	binOnce sync.Once
	binPath string
	binErr  error
)

// agentDeckBinary builds cmd/agent-deck once per test binary.
func agentDeckBinary(t testing.TB) string {
	t.Helper()
	binOnce.Do(func() {
		dir, err := os.MkdirTemp("", "agent-deck-bin-")
		if err != nil {
			binErr = err
			return
		}
		binPath = filepath.Join(dir, "agent-deck")
		cmd := exec.Command("go", "build", "-o", binPath, "../cmd/agent-deck")
		if out, err := cmd.CombinedOutput(); err != nil {
			binErr = errors.New("go build: " + err.Error() + "\n" + string(out))
		}
	})
	if binErr != nil {
		t.Fatal(binErr)
	}
	return binPath
}

// syncBuffer collects a child process's output while the test reads it.
type syncBuffer struct {
	mu sync.Mutex
	b  strings.Builder
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

func asExitError(err error, target **exec.ExitError) bool { return errors.As(err, target) }

// must fails the test on a setup error that leaves nothing to check.
func must(t testing.TB, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

// toJSON is v as JSON text.
func toJSON(t testing.TB, v any) string {
	t.Helper()
	b, err := json.Marshal(v)
	must(t, err)
	return string(b)
}
