package cluster

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"time"
)

// logFileName is the server log inside the data dir; it is rotated once it grows past
// maxLogSize so a long-lived home does not fill the disk.
const (
	logFileName = "postgres.log"
	maxLogSize  = 10 << 20
)

// initdbIfNeeded creates the cluster when DataDir holds none. initdb writes into a sibling
// directory that is renamed into place, so an interrupted initdb never leaves a half-made
// cluster behind.
func (c *Cluster) initdbIfNeeded(ctx context.Context) error {
	dataDir := c.opts.DataDir
	if _, err := os.Stat(filepath.Join(dataDir, "PG_VERSION")); err == nil {
		if err := c.ensureOwner(dataDir); err != nil {
			return err
		}
		return nil
	}
	if entries, err := os.ReadDir(dataDir); err == nil && len(entries) > 0 {
		return fmt.Errorf("%s exists but is not a PostgreSQL data directory: move it away", dataDir)
	}
	tmp := dataDir + ".initdb"
	if err := os.RemoveAll(tmp); err != nil {
		return err
	}
	if err := c.acct.makeDir(tmp); err != nil {
		return fmt.Errorf("create %s: %w", tmp, err)
	}
	initdb, err := tool(c.binDir, "initdb")
	if err != nil {
		return err
	}
	args := []string{"-D", tmp, "-U", Superuser, "--encoding=UTF8", "--locale=C",
		"--auth-local=trust", "--auth-host=scram-sha-256"}
	if hasUTF8CLocale() {
		// Case-insensitive names need lower() to know non-ASCII letters; sorting stays C.
		args = append(args, "--lc-ctype=C.UTF-8")
	}
	if c.opts.Settings["fsync"] == "off" {
		args = append(args, "--no-sync")
	}
	start := time.Now()
	if out, err := c.run(ctx, initdb, args...); err != nil {
		_ = os.RemoveAll(tmp)
		return fmt.Errorf("initdb %s: %w\n%s", dataDir, err, tail(out, 20))
	}
	_ = os.Remove(dataDir) // an empty dir left by the caller; rename needs the name free
	if err := os.Rename(tmp, dataDir); err != nil {
		return fmt.Errorf("move new cluster into %s: %w", dataDir, err)
	}
	c.log.Info("postgres cluster created", "data_dir", dataDir, "took", time.Since(start).Round(time.Millisecond))
	return nil
}

// ensureOwner hands an existing cluster to the server account when it belongs to someone
// else (it was created by an earlier non-root run, or copied in).
func (c *Cluster) ensureOwner(dir string) error {
	if c.acct == nil {
		return nil
	}
	info, err := os.Stat(dir)
	if err != nil {
		return err
	}
	if c.acct.owns(info) {
		return nil
	}
	c.log.Info("handing the postgres data dir to the server user", "data_dir", dir, "user", c.acct.name)
	return c.acct.chownTree(dir)
}

func hasUTF8CLocale() bool {
	out, err := exec.Command("locale", "-a").Output()
	if err != nil {
		return false
	}
	for _, l := range strings.Fields(string(out)) {
		if strings.EqualFold(l, "C.UTF-8") || strings.EqualFold(l, "C.utf8") {
			return true
		}
	}
	return false
}

// run runs a server program as the server account and returns its combined output.
func (c *Cluster) run(ctx context.Context, name string, args ...string) ([]byte, error) {
	cmd := c.acct.command(name, args...)
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	select {
	case err := <-done:
		return out.Bytes(), err
	case <-ctx.Done():
		_ = cmd.Process.Kill()
		<-done
		return out.Bytes(), ctx.Err()
	}
}

// clearStale deals with what a crash leaves: a server from an earlier run still holding the
// data dir is stopped; lock files naming dead or unrelated processes are removed.
func (c *Cluster) clearStale(ctx context.Context) error {
	pidFile := filepath.Join(c.opts.DataDir, "postmaster.pid")
	if pid := runningPostmaster(c.opts.DataDir); pid > 0 {
		if owner := liveOwner(pidFile, pid); owner > 0 {
			return fmt.Errorf("the postgres server (pid %d) on %s belongs to a running process (pid %d); "+
				"refusing to stop it: stop that process first: %w", pid, c.opts.DataDir, owner, ErrOwned)
		}
		c.log.Warn("a postgres server from an earlier run still holds the data dir; stopping it",
			"pid", pid, "data_dir", c.opts.DataDir)
		c.pid = pid
		if err := c.pgctlStop(ctx); err != nil {
			return err
		}
	} else if _, err := os.Stat(pidFile); err == nil {
		c.log.Info("removing a stale postmaster.pid left by a crash", "data_dir", c.opts.DataDir)
		if err := os.Remove(pidFile); err != nil {
			return err
		}
	}
	lock := c.socketPath() + ".lock"
	if pid := lockFilePID(lock); pid > 0 && !isPostgresProcess(pid) {
		c.log.Info("removing a stale socket lock file", "path", lock)
		_ = os.Remove(lock)
		_ = os.Remove(c.socketPath())
	}
	return nil
}

// isPostgresProcess reports whether pid is alive and runs a postgres binary.
func isPostgresProcess(pid int) bool {
	if !alive(pid) {
		return false
	}
	raw, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/cmdline")
	if err != nil {
		return true // cannot tell: assume it is, and let the server decide
	}
	arg0, _, _ := strings.Cut(string(raw), "\x00")
	base := filepath.Base(arg0)
	return base == "postgres" || base == "postmaster" || strings.HasPrefix(arg0, "postgres:")
}

// serverArgs are the settings every start passes, shell-quoted for pg_ctl -o.
func (c *Cluster) serverArgs() string {
	settings := map[string]string{
		"listen_addresses":        "",
		"unix_socket_directories": c.socketDir,
		"port":                    strconv.Itoa(c.port),
	}
	if c.opts.Port > 0 {
		settings["listen_addresses"] = "127.0.0.1"
	}
	for k, v := range c.opts.Settings {
		settings[k] = v
	}
	keys := make([]string, 0, len(settings))
	for k := range settings {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	var b strings.Builder
	for _, k := range keys {
		fmt.Fprintf(&b, " -c %s", shellQuote(k+"="+settings[k]))
	}
	return strings.TrimSpace(b.String())
}

// shellQuote quotes s for /bin/sh, which pg_ctl uses to launch the server.
func shellQuote(s string) string {
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

func (c *Cluster) pgctlStart(ctx context.Context) error {
	pgctl, err := tool(c.binDir, "pg_ctl")
	if err != nil {
		return err
	}
	logFile := filepath.Join(c.opts.DataDir, logFileName)
	if info, err := os.Stat(logFile); err == nil && info.Size() > maxLogSize {
		_ = os.Rename(logFile, logFile+".old")
	}
	// pg_ctl bounds its own wait (-t); it is not killed on ctx so no half-started server
	// escapes supervision.
	out, err := c.run(context.WithoutCancel(ctx), pgctl, "start", "-w", "-t", "60", "-s",
		"-D", c.opts.DataDir, "-l", logFile, "-o", c.serverArgs())
	if err != nil {
		logTail, _ := os.ReadFile(logFile)
		return fmt.Errorf("start postgres in %s: %w\n%s%s", c.opts.DataDir, err, tail(out, 10), tail(logTail, 20))
	}
	if ctx.Err() != nil {
		c.pid = lockFilePID(filepath.Join(c.opts.DataDir, "postmaster.pid"))
		_ = c.pgctlStop(context.WithoutCancel(ctx))
		return ctx.Err()
	}
	return nil
}

// pgctlStop stops the server (fast, then immediate) and waits for the postmaster to exit.
func (c *Cluster) pgctlStop(ctx context.Context) error {
	pid := c.pid
	if pid <= 0 {
		pid = runningPostmaster(c.opts.DataDir)
	}
	if pid <= 0 || !alive(pid) {
		return nil
	}
	pgctl, err := tool(c.binDir, "pg_ctl")
	if err != nil {
		return err
	}
	for _, mode := range []string{"fast", "immediate"} {
		out, err := c.run(ctx, pgctl, "stop", "-w", "-t", "30", "-s", "-D", c.opts.DataDir, "-m", mode)
		if waitExit(ctx, pid, 10*time.Second) {
			return nil
		}
		c.log.Warn("postgres did not stop", "mode", mode, "err", err, "output", string(tail(out, 5)))
	}
	return fmt.Errorf("postgres (pid %d) did not stop", pid)
}

// waitExit polls until the process is gone, up to limit.
func waitExit(ctx context.Context, pid int, limit time.Duration) bool {
	deadline := time.Now().Add(limit)
	for alive(pid) {
		if time.Now().After(deadline) || ctx.Err() != nil {
			return false
		}
		time.Sleep(20 * time.Millisecond)
	}
	return true
}

// isZombie reports whether pid has exited and waits for its parent to reap it (state Z in
// /proc/PID/stat); false when that cannot be read.
func isZombie(pid int) bool {
	raw, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return false
	}
	i := bytes.LastIndexByte(raw, ')')
	return i >= 0 && len(raw) > i+2 && raw[i+2] == 'Z'
}

// tail returns the last n lines of out.
func tail(out []byte, n int) []byte {
	lines := bytes.Split(bytes.TrimRight(out, "\n"), []byte("\n"))
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	if len(lines) == 1 && len(lines[0]) == 0 {
		return nil
	}
	return append(bytes.Join(lines, []byte("\n")), '\n')
}

// createDatabase creates the application database when it does not exist yet.
func (c *Cluster) createDatabase(ctx context.Context) error {
	if c.opts.SkipDatabase {
		return nil
	}
	psql, err := tool(c.binDir, "psql")
	if err != nil {
		return err
	}
	cmd := exec.CommandContext(ctx, psql, "-X", "-q", "-v", "ON_ERROR_STOP=1", "-v", "db="+c.opts.Database,
		"-h", c.socketDir, "-p", strconv.Itoa(c.port), "-U", Superuser, "-d", "postgres")
	cmd.Stdin = strings.NewReader(`SELECT format('CREATE DATABASE %I', :'db')
WHERE NOT EXISTS (SELECT FROM pg_database WHERE datname = :'db')\gexec
`)
	if out, err := cmd.CombinedOutput(); err != nil {
		return fmt.Errorf("create database %s: %w\n%s", c.opts.Database, err, tail(out, 10))
	}
	return nil
}
