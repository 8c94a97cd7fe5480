package cluster_test

import (
	"context"
	"errors"
	"log/slog"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/agent-deck/agent-deck/backend/postgres/cluster"
)

// reachableTempDir is t.TempDir() opened for traversal, so that as root the postgres user can
// reach clusters under it: the cluster never changes the permissions of directories above its
// data dir.
func reachableTempDir(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	for _, d := range []string{dir, filepath.Dir(dir)} {
		if err := os.Chmod(d, 0o711); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

func testOptions(t *testing.T, dataDir string) cluster.Options {
	t.Helper()
	return cluster.Options{
		DataDir:  dataDir,
		Settings: map[string]string{"fsync": "off"},
		Logger:   slog.New(slog.NewTextHandler(testWriter{t}, nil)),
	}
}

type testWriter struct{ t *testing.T }

func (w testWriter) Write(p []byte) (int, error) {
	w.t.Log(strings.TrimRight(string(p), "\n"))
	return len(p), nil
}

func start(t *testing.T, opts cluster.Options) *cluster.Cluster {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	c, err := cluster.Start(ctx, opts)
	if err != nil {
		t.Fatalf("Start: %v", err)
	}
	t.Cleanup(func() { _ = c.Stop(context.Background()) })
	return c
}

// psql runs sql against the cluster's application database and returns the trimmed output.
func psql(t *testing.T, c *cluster.Cluster, sql string) string {
	t.Helper()
	psql := filepath.Join(c.BinDir(), "psql")
	out, err := exec.Command(psql, "-X", "-q", "-t", "-A", "-v", "ON_ERROR_STOP=1",
		c.URL(c.Database()), "-c", sql).CombinedOutput()
	if err != nil {
		t.Fatalf("psql %q: %v\n%s", sql, err, out)
	}
	return strings.TrimSpace(string(out))
}

func assertNoProcesses(t *testing.T, dataDir string) {
	t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for {
		pids, err := cluster.Processes(dataDir)
		if err != nil {
			t.Fatalf("Processes: %v", err)
		}
		if len(pids) == 0 {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("postgres processes left for %s: %v", dataDir, pids)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

func TestStartStopRestartKeepsData(t *testing.T) {
	dataDir := filepath.Join(reachableTempDir(t), "home", "postgres")
	c := start(t, testOptions(t, dataDir))
	if pids, _ := cluster.Processes(dataDir); len(pids) == 0 {
		t.Fatalf("no postgres process found for %s after Start", dataDir)
	}
	if _, err := os.Stat(filepath.Join(c.SocketDir(), ".s.PGSQL."+strconv.Itoa(c.Port()))); err != nil {
		t.Fatalf("socket: %v", err)
	}
	psql(t, c, "CREATE TABLE kept (v text); INSERT INTO kept VALUES ('still here')")
	if err := c.Stop(context.Background()); err != nil {
		t.Fatalf("Stop: %v", err)
	}
	assertNoProcesses(t, dataDir)
	if err := c.Stop(context.Background()); err != nil {
		t.Fatalf("second Stop: %v", err)
	}

	c2 := start(t, testOptions(t, dataDir))
	if got := psql(t, c2, "SELECT v FROM kept"); got != "still here" {
		t.Fatalf("after restart got %q, want %q", got, "still here")
	}
	if err := c2.Stop(context.Background()); err != nil {
		t.Fatalf("Stop: %v", err)
	}
	assertNoProcesses(t, dataDir)
}

func TestStartAfterCrash(t *testing.T) {
	tests := []struct {
		name  string
		crash func(t *testing.T, c *cluster.Cluster)
	}{
		{
			// The owner died, the server kept running: the next Start stops and restarts it.
			name:  "server still running",
			crash: func(t *testing.T, c *cluster.Cluster) {},
		},
		{
			// The server was killed: its postmaster.pid is stale.
			name: "server killed",
			crash: func(t *testing.T, c *cluster.Cluster) {
				if err := syscall.Kill(c.PID(), syscall.SIGKILL); err != nil {
					t.Fatalf("kill: %v", err)
				}
				assertNoProcesses(t, c.DataDir())
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dataDir := filepath.Join(reachableTempDir(t), "pg")
			ctx := context.Background()
			first, err := cluster.Start(ctx, testOptions(t, dataDir))
			if err != nil {
				t.Fatalf("Start: %v", err)
			}
			psql(t, first, "CREATE TABLE kept (v int); INSERT INTO kept VALUES (7)")
			tt.crash(t, first)

			second := start(t, testOptions(t, dataDir))
			if got := psql(t, second, "SELECT v FROM kept"); got != "7" {
				t.Fatalf("got %q, want 7", got)
			}
			if err := second.Stop(ctx); err != nil {
				t.Fatalf("Stop: %v", err)
			}
			assertNoProcesses(t, dataDir)
		})
	}
}

func TestLongSocketPathFallsBack(t *testing.T) {
	base := reachableTempDir(t)
	long := filepath.Join(base, strings.Repeat("s", 120))
	opts := testOptions(t, filepath.Join(base, "pg"))
	opts.SocketDir = long
	c := start(t, opts)
	if c.SocketDir() == long || len(c.SocketDir()) > 80 {
		t.Fatalf("socket dir %q: want a short fallback", c.SocketDir())
	}
	if got := psql(t, c, "SELECT 1"); got != "1" {
		t.Fatalf("got %q", got)
	}
	dir := c.SocketDir()
	if err := c.Stop(context.Background()); err != nil {
		t.Fatalf("Stop: %v", err)
	}
	if _, err := os.Stat(dir); !os.IsNotExist(err) {
		t.Fatalf("fallback socket dir %s not removed: %v", dir, err)
	}
}

func TestURLUsesSocket(t *testing.T) {
	c := start(t, testOptions(t, filepath.Join(reachableTempDir(t), "pg")))
	u := c.URL("agentdeck")
	if !strings.Contains(u, "host="+strings.ReplaceAll(c.SocketDir(), "/", "%2F")) {
		t.Fatalf("URL %q does not name socket dir %q", u, c.SocketDir())
	}
	if got := psql(t, c, "SELECT current_database()"); got != cluster.DefaultDatabase {
		t.Fatalf("database %q, want %q", got, cluster.DefaultDatabase)
	}
}

// TestStopOnExitWatchdog kills the cluster's owner outright (no Stop) and expects the
// watchdog to take the server down with it.
func TestStopOnExitWatchdog(t *testing.T) {
	if dir := os.Getenv("CLUSTER_TEST_OWNER_DIR"); dir != "" {
		opts := testOptions(t, dir)
		opts.StopOnExit = true
		if _, err := cluster.Start(context.Background(), opts); err != nil {
			t.Fatalf("Start: %v", err)
		}
		os.Stdout.WriteString("ready\n")
		time.Sleep(time.Minute)
		return
	}
	dataDir := filepath.Join(reachableTempDir(t), "pg")
	owner := exec.Command(os.Args[0], "-test.run=^TestStopOnExitWatchdog$")
	owner.Env = append(os.Environ(), "CLUSTER_TEST_OWNER_DIR="+dataDir)
	out, err := owner.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := owner.Start(); err != nil {
		t.Fatal(err)
	}
	buf := make([]byte, 4096)
	var seen strings.Builder
	for !strings.Contains(seen.String(), "ready") {
		n, err := out.Read(buf)
		if err != nil {
			_ = owner.Process.Kill()
			t.Fatalf("owner exited before the cluster was ready: %v\n%s", err, seen.String())
		}
		seen.Write(buf[:n])
	}
	if pids, _ := cluster.Processes(dataDir); len(pids) == 0 {
		t.Fatal("no server running under the owner")
	}
	_ = owner.Process.Kill()
	_ = owner.Wait()
	deadline := time.Now().Add(15 * time.Second)
	for {
		pids, _ := cluster.Processes(dataDir)
		if len(pids) == 0 {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("server outlived its owner: %v", pids)
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// TestUnreachableDataDirIsNotOpenedUp: as root, a data dir the postgres user cannot reach is an
// error naming the closed directory, and no directory above it changes mode.
func TestUnreachableDataDirIsNotOpenedUp(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("only root runs the cluster as another user")
	}
	closed := t.TempDir() // 0700, root's
	before, _ := os.Stat(closed)
	_, err := cluster.Start(context.Background(), testOptions(t, filepath.Join(closed, "home", "pg")))
	if !errors.Is(err, cluster.ErrUnreachable) || !strings.Contains(err.Error(), closed) {
		t.Fatalf("Start = %v, want ErrUnreachable naming %s", err, closed)
	}
	after, _ := os.Stat(closed)
	if after.Mode() != before.Mode() {
		t.Errorf("mode of %s changed from %v to %v", closed, before.Mode(), after.Mode())
	}
}

// TestSuperviseRestartsKilledServer: a supervised cluster whose postmaster is killed comes back
// by itself with the same data, and Stop afterwards leaves nothing running.
func TestSuperviseRestartsKilledServer(t *testing.T) {
	dataDir := filepath.Join(reachableTempDir(t), "pg")
	opts := testOptions(t, dataDir)
	opts.Supervise = true
	c := start(t, opts)
	psql(t, c, "CREATE TABLE kept (v text); INSERT INTO kept VALUES ('survived')")
	first := c.PID()
	if err := syscall.Kill(first, syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(60 * time.Second)
	for c.PID() == first || c.PID() == 0 || !acceptsConnections(c) {
		if time.Now().After(deadline) {
			t.Fatalf("the killed server was not restarted (pid %d)", c.PID())
		}
		time.Sleep(50 * time.Millisecond)
	}
	if got := psql(t, c, "SELECT v FROM kept"); got != "survived" {
		t.Fatalf("after the restart got %q", got)
	}
	if err := c.Stop(context.Background()); err != nil {
		t.Fatalf("Stop: %v", err)
	}
	assertNoProcesses(t, dataDir)
}

func acceptsConnections(c *cluster.Cluster) bool {
	psql := filepath.Join(c.BinDir(), "psql")
	return exec.Command(psql, "-X", "-q", "-t", "-A", c.URL(c.Database()), "-c", "SELECT 1").Run() == nil
}

// TestStartRefusesOwnedServer: a server whose owner still runs (its watchdog says so) is not
// stale: a second Start on the data dir refuses rather than stopping it.
func TestStartRefusesOwnedServer(t *testing.T) {
	dataDir := filepath.Join(reachableTempDir(t), "pg")
	owner := exec.Command(os.Args[0], "-test.run=^TestStopOnExitWatchdog$")
	owner.Env = append(os.Environ(), "CLUSTER_TEST_OWNER_DIR="+dataDir)
	out, err := owner.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := owner.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_ = owner.Process.Kill()
		_ = owner.Wait()
		assertNoProcesses(t, dataDir)
	})
	buf := make([]byte, 4096)
	var seen strings.Builder
	for !strings.Contains(seen.String(), "ready") {
		n, err := out.Read(buf)
		if err != nil {
			t.Fatalf("owner exited before the cluster was ready: %v\n%s", err, seen.String())
		}
		seen.Write(buf[:n])
	}
	before, _ := cluster.Processes(dataDir)
	_, err = cluster.Start(context.Background(), testOptions(t, dataDir))
	if !errors.Is(err, cluster.ErrOwned) {
		t.Fatalf("Start on an owned data dir = %v, want ErrOwned", err)
	}
	if after, _ := cluster.Processes(dataDir); len(after) == 0 || len(before) == 0 {
		t.Fatalf("the owned server was stopped (before %v, after %v)", before, after)
	}
}
