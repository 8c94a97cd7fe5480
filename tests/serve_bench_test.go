package tests

import (
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"syscall"
	"testing"
	"time"
)

// BenchmarkServeColdStart measures `agent-deck serve` from process start to a 200 from /readyz,
// with an embedded cluster that already exists, with its target.
func BenchmarkServeColdStart(b *testing.B) {
	bin := agentDeckBinary(b)
	home := filepath.Join(b.TempDir(), "home")
	runOnce := func() time.Duration {
		start := time.Now()
		cmd := exec.Command(bin, "serve", "--addr", "127.0.0.1:0")
		cmd.Env = append(os.Environ(), "AGENT_DECK_HOME="+home, "AGENT_DECK_DATABASE_URL=")
		if err := cmd.Start(); err != nil {
			b.Fatal(err)
		}
		defer func() {
			_ = cmd.Process.Signal(syscall.SIGTERM)
			_ = cmd.Wait()
		}()
		for deadline := time.Now().Add(60 * time.Second); time.Now().Before(deadline); time.Sleep(5 * time.Millisecond) {
			url := readServerURL(home)
			if url == "" {
				continue
			}
			if resp, err := http.Get(url + "/readyz"); err == nil {
				resp.Body.Close()
				if resp.StatusCode == http.StatusOK {
					return time.Since(start)
				}
			}
		}
		b.Fatal("serve never became ready")
		return 0
	}
	runOnce() // creates the cluster, the key and the admin token
	b.ResetTimer()
	var total time.Duration
	for i := 0; i < b.N; i++ {
		total += runOnce()
	}
	b.ReportMetric(float64(total.Milliseconds())/float64(b.N), "ms-to-ready")
	b.ReportMetric(2000, "ms-to-ready-max")
}
