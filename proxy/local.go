package proxy

import (
	"context"
	"errors"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/agent-deck/agent-deck/backend"
	"github.com/mark3labs/mcp-go/client/transport"
)

// inheritedEnv lists the variables a local server gets from Agent Deck's own environment:
// enough to find programs, locales, temp and config dirs, and network proxies. Everything else
// (Agent Deck's own settings and keys included) stays out unless the service sets it.
var inheritedEnv = []string{
	"PATH", "HOME", "USER", "LOGNAME", "SHELL", "LANG", "LANGUAGE", "LC_ALL", "LC_CTYPE", "TZ", "TMPDIR",
	"XDG_CONFIG_HOME", "XDG_CACHE_HOME", "XDG_DATA_HOME", "XDG_STATE_HOME", "XDG_RUNTIME_DIR",
	"HTTP_PROXY", "HTTPS_PROXY", "NO_PROXY", "http_proxy", "https_proxy", "no_proxy",
	"SSL_CERT_FILE", "SSL_CERT_DIR", "NODE_EXTRA_CA_CERTS",
}

// childEnv is the env of a local server: the inherited minimum, the service's LocalEnv, and
// the linked credential as <ENV_NAME>=<secret>.
func childEnv(t backend.Target) []string {
	env := map[string]string{}
	for _, k := range inheritedEnv {
		if v, ok := os.LookupEnv(k); ok {
			env[k] = v
		}
	}
	for k, v := range t.LocalEnv {
		env[k] = v
	}
	if c := t.Credential; c != nil && c.EnvName != "" {
		env[c.EnvName] = c.Secret
	}
	out := make([]string, 0, len(env))
	for k, v := range env {
		out = append(out, k+"="+v)
	}
	return out
}

// child is a local server process, leader of its own process group so that it and everything
// it starts can be stopped together.
type child struct {
	cmd    *exec.Cmd
	pgid   int
	stdin  *os.File
	stdout *os.File
	exited chan struct{}

	mu       sync.Mutex
	waitErr  error
	stopOnce sync.Once
	// service names the service for Events; stopping is set once the proxy ends the child, so
	// an exit before that is a crash.
	service  string
	stopping atomic.Bool
}

// openLocal starts the service's command and runs the handshake over its stdio.
func (c *conn) openLocal(t backend.Target) error {
	c.kind = "stdio"
	ch, err := startChild(t, c.svc.p.opts.Launcher, c.svc.stderr)
	if err != nil {
		return err
	}
	ch.service = t.ServiceName
	c.svc.p.opts.Events.localStarted(ch.service)
	c.child = ch
	if !c.svc.p.goOwned(func() { c.watch(ch) }) {
		ch.stopping.Store(true)
		ch.signal(syscall.SIGKILL) // closing down meanwhile: reap it here
		c.watch(ch)
		return errClosed
	}
	out := &eofReader{r: ch.stdout, onEOF: func() { c.markDead(&exitedError{state: ch.stateAfterEOF()}) }}
	capped := newLineCap(out, c.svc.p.opts.ResultHardCap, &c.cut)
	capped.ctx, capped.tk, capped.claim = c.ctx, c.svc.p.budget.ticket(), c.claimTicket
	c.lineTicket = capped.tk
	return c.handshake(c.ctx, transport.NewIO(capped, ch.stdin, nil))
}

// watch waits for the child to exit, then kills whatever is left of its process group. A crash
// is counted before the exit is announced (exited), so whoever reacts to the exit finds it
// counted.
func (c *conn) watch(ch *child) {
	err := ch.cmd.Wait()
	ch.mu.Lock()
	ch.waitErr = err
	ch.mu.Unlock()
	if exitedOnItsOwn(ch.stopping.Load(), c.deathSoFar()) {
		c.svc.p.opts.Events.localCrashed(ch.service)
	}
	close(ch.exited)
	ch.signal(syscall.SIGKILL)
	c.markDead(&exitedError{state: ch.state()})
	// Let the reader drain what the server wrote before exiting, then stop it.
	time.AfterFunc(250*time.Millisecond, func() { _ = ch.stdout.Close() })
}

// exitedOnItsOwn decides whether a local server that exited crashed: it did unless the proxy
// stopped it first. A stop that follows the server's own death is no stop: the call that saw
// its output end waits for the exit only so long (stateAfterEOF), then the connection dies of
// that exit (death is an exitedError) and is torn down, which may happen before Wait returns
// here. Counting by the order of the two alone missed such crashes.
func exitedOnItsOwn(stopping bool, death error) bool {
	var ee *exitedError
	return !stopping || errors.As(death, &ee)
}

func startChild(t backend.Target, launcher []string, stderr io.Writer) (*child, error) {
	env := childEnv(t)
	path, err := lookCommand(t.LocalCommand, env, t.LocalWorkingDir)
	if err != nil {
		return nil, err
	}
	args := t.LocalArgs
	pdeath := syscall.SIGKILL
	if len(launcher) > 0 {
		// The launcher runs in the working dir, and reports a command it cannot run only as an
		// exit: pin the path and check here what can be checked, so the usual failures read the
		// same with and without it.
		if !filepath.IsAbs(path) {
			base := expandHome(t.LocalWorkingDir)
			if base == "" {
				base, _ = os.Getwd()
			}
			path = filepath.Join(base, path)
		}
		if err := checkExecutable(path); err != nil {
			return nil, err
		}
		full := launchArgs(launcher, path, args)
		path, args, pdeath = full[0], full[1:], launcherDeathSignal
	}
	inR, inW, err := os.Pipe()
	if err != nil {
		return nil, err
	}
	outR, outW, err := os.Pipe()
	if err != nil {
		closeAll(inR, inW)
		return nil, err
	}
	errR, errW, err := os.Pipe()
	if err != nil {
		closeAll(inR, inW, outR, outW)
		return nil, err
	}
	cmd := exec.Command(path, args...)
	cmd.Env = env
	cmd.Dir = expandHome(t.LocalWorkingDir)
	cmd.Stdin, cmd.Stdout, cmd.Stderr = inR, outW, errW
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Pdeathsig: pdeath}
	err = cmd.Start()
	closeAll(inR, outW, errW)
	if err != nil {
		closeAll(inW, outR, errR)
		return nil, err
	}
	go func() {
		// Ends when every holder of the write end (the group) has exited.
		_, _ = io.Copy(stderr, errR)
		_ = errR.Close()
	}()
	return &child{cmd: cmd, pgid: cmd.Process.Pid, stdin: inW, stdout: outR, exited: make(chan struct{})}, nil
}

// checkExecutable fails the way exec would for a path that is missing, a directory or not
// executable.
func checkExecutable(path string) error {
	fi, err := os.Stat(path)
	switch {
	case err != nil:
		return &exec.Error{Name: path, Err: err}
	case fi.IsDir() || fi.Mode()&0o111 == 0:
		return &exec.Error{Name: path, Err: syscall.EACCES}
	}
	return nil
}

func closeAll(fs ...*os.File) {
	for _, f := range fs {
		_ = f.Close()
	}
}

// lookCommand resolves a command name against the child's PATH (not Agent Deck's), so a
// service's own PATH setting is honoured.
func lookCommand(name string, env []string, dir string) (string, error) {
	if name == "" {
		return "", &exec.Error{Name: name, Err: exec.ErrNotFound}
	}
	name = expandHome(name)
	if strings.Contains(name, "/") {
		return name, nil
	}
	pathEnv := ""
	for _, kv := range env {
		if v, ok := strings.CutPrefix(kv, "PATH="); ok {
			pathEnv = v
		}
	}
	for _, d := range filepath.SplitList(pathEnv) {
		if d == "" {
			d = "."
		}
		if !filepath.IsAbs(d) && dir != "" {
			d = filepath.Join(expandHome(dir), d)
		}
		p := filepath.Join(d, name)
		if fi, err := os.Stat(p); err == nil && !fi.IsDir() && fi.Mode()&0o111 != 0 {
			return p, nil
		}
	}
	return "", &exec.Error{Name: name, Err: exec.ErrNotFound}
}

func expandHome(p string) string {
	if p == "~" || strings.HasPrefix(p, "~/") {
		if home, err := os.UserHomeDir(); err == nil {
			return filepath.Join(home, p[1:])
		}
	}
	return p
}

// signal sends sig to the child's whole process group.
func (ch *child) signal(sig syscall.Signal) {
	if ch.pgid > 1 {
		_ = syscall.Kill(-ch.pgid, sig)
	}
}

// stateAfterEOF describes the child once its output closed: usually it is exiting, so give
// its exit a moment to be seen.
func (ch *child) stateAfterEOF() string {
	select {
	case <-ch.exited:
	case <-time.After(200 * time.Millisecond):
	}
	return ch.state()
}

// state describes how the child ended, in words safe to show.
func (ch *child) state() string {
	select {
	case <-ch.exited:
	default:
		return "its output closed"
	}
	ch.mu.Lock()
	defer ch.mu.Unlock()
	var ee *exec.ExitError
	if errors.As(ch.waitErr, &ee) {
		return ee.ProcessState.String()
	}
	if ch.waitErr == nil {
		return "exit status 0"
	}
	return "exited"
}

// stop ends the child politely, then firmly: stdin closed, SIGTERM to the group after a
// second, SIGKILL after two more (at once when ctx ends). The group is killed last in every
// case, so nothing the server started survives it.
func (ch *child) stop(ctx context.Context) {
	ch.stopping.Store(true)
	ch.stopOnce.Do(func() {
		_ = ch.stdin.Close()
		steps := []struct {
			wait time.Duration
			sig  syscall.Signal
		}{{time.Second, syscall.SIGTERM}, {2 * time.Second, syscall.SIGKILL}}
		for _, st := range steps {
			if ch.waitExit(ctx, st.wait) {
				break
			}
			ch.signal(st.sig)
		}
		ch.signal(syscall.SIGKILL)
		<-ch.exited
		ch.signal(syscall.SIGKILL)
		ch.waitGroupGone(time.Second)
		_ = ch.stdout.Close()
	})
}

// waitGroupGone waits (bounded) until no process of the child's group is left, so that a stop
// returns only once whatever the server started is gone too. Zombies awaiting their reaper still
// count as present, hence the bound.
func (ch *child) waitGroupGone(bound time.Duration) {
	if ch.pgid <= 1 {
		return
	}
	for deadline := time.Now().Add(bound); time.Now().Before(deadline); time.Sleep(2 * time.Millisecond) {
		if err := syscall.Kill(-ch.pgid, 0); errors.Is(err, syscall.ESRCH) {
			return
		}
	}
}

// waitExit waits up to d for the child to exit; false when it still runs.
func (ch *child) waitExit(ctx context.Context, d time.Duration) bool {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ch.exited:
		return true
	case <-t.C:
		return false
	case <-ctx.Done():
		return false
	}
}

// eofReader calls onEOF once when the stream ends.
type eofReader struct {
	r     io.Reader
	once  sync.Once
	onEOF func()
}

func (e *eofReader) Read(p []byte) (int, error) {
	n, err := e.r.Read(p)
	if err != nil {
		e.once.Do(e.onEOF)
	}
	return n, err
}
