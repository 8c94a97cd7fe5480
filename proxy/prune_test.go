package proxy_test

import (
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/agent-deck/agent-deck/proxy"
)

// TestSpilledResultsArePruned: spilled result files older than the retention are deleted when
// the proxy starts; newer ones, and anything that is not a regular file, stay.
func TestSpilledResultsArePruned(t *testing.T) {
	home := t.TempDir()
	dir := filepath.Join(home, "tool-results")
	if err := os.MkdirAll(filepath.Join(dir, "keep-dir"), 0o700); err != nil {
		t.Fatal(err)
	}
	files := map[string]time.Duration{"old.json": 48 * time.Hour, "edge.txt": 90 * time.Minute, "fresh.png": time.Minute}
	for name, age := range files {
		path := filepath.Join(dir, name)
		if err := os.WriteFile(path, []byte("x"), 0o600); err != nil {
			t.Fatal(err)
		}
		then := time.Now().Add(-age)
		if err := os.Chtimes(path, then, then); err != nil {
			t.Fatal(err)
		}
	}
	p := proxy.New(proxy.Options{Home: home, ResultRetention: time.Hour})
	t.Cleanup(func() { _ = p.Close(context.Background()) })
	for name, want := range map[string]bool{"old.json": false, "edge.txt": false, "fresh.png": true, "keep-dir": true} {
		_, err := os.Stat(filepath.Join(dir, name))
		if got := err == nil; got != want {
			t.Errorf("%s present = %v, want %v", name, got, want)
		}
	}
}
