// Package cluster runs Agent Deck's embedded PostgreSQL: a private cluster created from the
// server binaries installed on the machine, listening on a Unix socket, started and stopped with
// the process that owns it. The same code starts the one-per-test-binary test cluster.
package cluster

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"sync"
)

// DefaultDatabase is the application database created in a fresh cluster.
const DefaultDatabase = "agentdeck"

// Superuser is the database role initdb creates; local socket connections trust it, and the
// socket directory's permissions are what keep other OS users out.
const Superuser = "postgres"

// defaultPort names the socket file (.s.PGSQL.5432) when the cluster listens on no TCP port.
const defaultPort = 5432

// maxSocketPath keeps the socket path well inside the kernel's sun_path limit (108 bytes).
const maxSocketPath = 100

// Options configures a cluster. Only DataDir is required.
type Options struct {
	// DataDir is the cluster's data directory; it is created with initdb when it holds none.
	DataDir string
	// SystemDataDir is where the cluster lives instead of DataDir when running as root and the
	// server account (postgres) cannot reach DataDir as the directories above it are: Agent Deck
	// never changes the permissions of those (they are the user's). DataDir() says which one is
	// used. Empty makes an unreachable DataDir an error.
	SystemDataDir string
	// SocketDir holds the Unix socket; default DataDir. A path too long for a socket falls
	// back to a short directory under the system temp dir (logged).
	SocketDir string
	// Port > 0 also listens on 127.0.0.1:Port (password auth only); 0 means Unix socket only.
	Port int
	// Database is created when missing; default DefaultDatabase.
	Database string
	// SkipDatabase creates no application database (the test harness makes its own).
	SkipDatabase bool
	// Settings are extra server settings passed as `-c name=value` (tests turn fsync off).
	Settings map[string]string
	// StopOnExit starts a small watchdog process that stops the server if this process dies
	// without calling Stop (a crash or SIGKILL), so no server outlives its owner.
	StopOnExit bool
	// Supervise restarts the server (with backoff, logging each attempt) whenever it dies while
	// the cluster is not stopped, so a killed or crashed PostgreSQL does not take the owner down
	// for good.
	Supervise bool
	// Logger receives what the cluster does; nil discards.
	Logger *slog.Logger
}

// Cluster is a running PostgreSQL server owned by this process.
type Cluster struct {
	opts      Options
	log       *slog.Logger
	binDir    string
	acct      *account
	socketDir string
	tmpSocket bool // socketDir was made under the temp dir and is removed on Stop
	port      int
	pid       int
	watchdog  *exec.Cmd

	mu      sync.Mutex
	stopped bool

	// supStop ends the supervisor (closed once, by Stop); supDone is closed when it has returned.
	supStop  chan struct{}
	supDone  chan struct{}
	stopOnce sync.Once
}

// Start creates the cluster on first use, starts it and waits until it accepts connections.
func Start(ctx context.Context, opts Options) (*Cluster, error) {
	if opts.DataDir == "" {
		return nil, errors.New("cluster: DataDir is required")
	}
	c := &Cluster{opts: opts, log: opts.Logger, port: opts.Port}
	if c.log == nil {
		c.log = slog.New(slog.DiscardHandler)
	}
	if c.port <= 0 {
		c.port = defaultPort
	}
	c.opts.DataDir = absClean(opts.DataDir)
	if c.opts.Database == "" {
		c.opts.Database = DefaultDatabase
	}
	var err error
	if c.binDir, err = FindBinDir(); err != nil {
		return nil, err
	}
	if c.acct, err = lookupAccount(); err != nil {
		return nil, err
	}
	if err := c.prepareDirs(); err != nil {
		return nil, err
	}
	if err := c.start(ctx); err != nil {
		c.removeTmpSocket()
		return nil, err
	}
	if opts.Supervise {
		c.supStop, c.supDone = make(chan struct{}), make(chan struct{})
		go c.supervise()
	}
	return c, nil
}

// launch starts the postmaster on an initialised data directory, first clearing what a dead
// one left behind, and watches it when the cluster must stop with this process. Both the first
// start and the supervisor's restarts go through here.
func (c *Cluster) launch(ctx context.Context) error {
	if err := c.clearStale(ctx); err != nil {
		return err
	}
	if err := c.pgctlStart(ctx); err != nil {
		return err
	}
	c.pid = lockFilePID(c.pidFile())
	if c.opts.StopOnExit {
		c.startWatchdog()
	}
	return nil
}

func (c *Cluster) start(ctx context.Context) error {
	if err := c.initdbIfNeeded(ctx); err != nil {
		return err
	}
	if err := c.launch(ctx); err != nil {
		return err
	}
	if err := c.createDatabase(ctx); err != nil {
		_ = c.Stop(context.WithoutCancel(ctx))
		return err
	}
	c.log.Info("postgres started", "data_dir", c.opts.DataDir, "socket_dir", c.socketDir,
		"bin_dir", c.binDir)
	return nil
}

// prepareDirs creates the data and socket directories, owned by the server's account and
// reachable by it as the directories above them are.
func (c *Cluster) prepareDirs() error {
	if err := c.placeDataDir(); err != nil {
		return err
	}
	if err := os.MkdirAll(filepath.Dir(c.opts.DataDir), 0o755); err != nil {
		return fmt.Errorf("create parent of %s: %w", c.opts.DataDir, err)
	}
	c.socketDir = c.opts.SocketDir
	if c.socketDir == "" {
		c.socketDir = c.opts.DataDir
	}
	c.socketDir = absClean(c.socketDir)
	if len(c.socketPath()) >= maxSocketPath {
		tmp, err := os.MkdirTemp("", "agent-deck-pg-")
		if err != nil {
			return fmt.Errorf("create a short socket dir: %w", err)
		}
		c.log.Warn("postgres socket path too long for a Unix socket; using a short dir instead",
			"wanted", c.socketDir, "using", tmp, "limit_bytes", maxSocketPath)
		c.socketDir, c.tmpSocket = tmp, true
	}
	if c.socketDir == c.opts.DataDir {
		return nil
	}
	if err := os.MkdirAll(filepath.Dir(c.socketDir), 0o755); err != nil {
		return fmt.Errorf("create parent of %s: %w", c.socketDir, err)
	}
	if err := c.acct.checkReachable(c.socketDir); err != nil {
		return err
	}
	if err := c.acct.makeDir(c.socketDir); err != nil {
		return fmt.Errorf("create socket dir %s: %w", c.socketDir, err)
	}
	return nil
}

// placeDataDir picks the data directory: DataDir when the server account can reach it as it is,
// else SystemDataDir. A cluster already in SystemDataDir stays there; one in an unreachable
// DataDir is moved there (it was reachable once, made so by an older version).
func (c *Cluster) placeDataDir() error {
	want, sys := c.opts.DataDir, c.opts.SystemDataDir
	if sys != "" {
		sys = absClean(sys)
	}
	err := c.acct.checkReachable(want)
	switch {
	case err == nil && !(sys != "" && hasCluster(sys) && !hasCluster(want)):
		return nil
	case sys == "":
		return err
	}
	// Root-owned and open to traversal only: the server account passes through, nobody lists it.
	if err := os.MkdirAll(filepath.Dir(sys), 0o711); err != nil {
		return fmt.Errorf("create %s: %w", filepath.Dir(sys), err)
	}
	if err := c.acct.checkReachable(sys); err != nil {
		return err
	}
	if hasCluster(want) && !hasCluster(sys) {
		c.log.Warn("moving the postgres data dir where the server user can reach it without opening up the home",
			"from", want, "to", sys)
		if err := os.Rename(want, sys); err != nil {
			return fmt.Errorf("move the postgres data dir from %s to %s (the %s user cannot reach it "+
				"where it is): %w", want, sys, c.acct.name, err)
		}
	}
	c.opts.DataDir = sys
	return nil
}

func hasCluster(dir string) bool {
	_, err := os.Stat(filepath.Join(dir, "PG_VERSION"))
	return err == nil
}

func (c *Cluster) socketPath() string {
	return filepath.Join(c.socketDir, ".s.PGSQL."+strconv.Itoa(c.port))
}

// URL returns a connection URL for dbname over the Unix socket, as the superuser.
func (c *Cluster) URL(dbname string) string {
	q := url.Values{}
	q.Set("host", c.socketDir)
	q.Set("port", strconv.Itoa(c.port))
	q.Set("sslmode", "disable")
	u := url.URL{Scheme: "postgres", User: url.User(Superuser), Path: "/" + dbname, RawQuery: q.Encode()}
	return u.String()
}

// DataDir is the cluster's data directory.
func (c *Cluster) DataDir() string { return c.opts.DataDir }

// SocketDir is the directory holding the server's Unix socket.
func (c *Cluster) SocketDir() string { return c.socketDir }

// Port is the port number (the socket file's suffix; a TCP port only when Options.Port > 0).
func (c *Cluster) Port() int { return c.port }

// BinDir is where the server binaries were found.
func (c *Cluster) BinDir() string { return c.binDir }

// PID is the postmaster's process id (it changes when a supervised cluster is restarted).
func (c *Cluster) PID() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.pid
}

func (c *Cluster) pidFile() string { return filepath.Join(c.opts.DataDir, "postmaster.pid") }

// Database is the application database created at start (unless Options.SkipDatabase).
func (c *Cluster) Database() string { return c.opts.Database }

// Stop shuts the server down (fast: sessions are ended, data is flushed) and waits until no
// server process is left. It is safe to call more than once. A cancelled ctx does not cut the
// shutdown short (leaving a server behind would be worse); pg_ctl's own timeouts bound it.
func (c *Cluster) Stop(ctx context.Context) error {
	ctx = context.WithoutCancel(ctx)
	c.stopOnce.Do(func() {
		if c.supStop != nil {
			close(c.supStop)
			<-c.supDone
		}
	})
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.stopped {
		return nil
	}
	c.stopped = true
	c.stopWatchdog()
	defer c.removeTmpSocket()
	err := c.pgctlStop(ctx)
	if err != nil {
		return err
	}
	c.log.Info("postgres stopped", "data_dir", c.opts.DataDir)
	return nil
}

func (c *Cluster) removeTmpSocket() {
	if c.tmpSocket {
		_ = os.RemoveAll(c.socketDir)
	}
}
