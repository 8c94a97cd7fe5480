package cluster

import (
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"syscall"
)

// watchdogScript polls its owner ($1) and the postmaster ($3); when the owner dies first and
// the pid file still names that postmaster, it asks the server for a fast shutdown.
const watchdogScript = `
while kill -0 "$1" 2>/dev/null && kill -0 "$3" 2>/dev/null; do sleep 1; done
if ! kill -0 "$1" 2>/dev/null && [ "$(head -n 1 "$2" 2>/dev/null)" = "$3" ]; then
	kill -INT "$3" 2>/dev/null
fi
`

// startWatchdog starts a process, in its own process group so a terminal's Ctrl-C does not
// reach it, that stops the server if this process dies without calling Stop.
func (c *Cluster) startWatchdog() {
	if c.pid <= 0 {
		return
	}
	cmd := exec.Command("/bin/sh", "-c", watchdogScript, "agent-deck-pg-watchdog",
		strconv.Itoa(os.Getpid()), filepath.Join(c.opts.DataDir, "postmaster.pid"), strconv.Itoa(c.pid))
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := cmd.Start(); err != nil {
		c.log.Warn("could not start the postgres watchdog", "err", err)
		return
	}
	c.watchdog = cmd
}

func (c *Cluster) stopWatchdog() {
	if c.watchdog == nil {
		return
	}
	_ = c.watchdog.Process.Kill()
	_ = c.watchdog.Wait()
	c.watchdog = nil
}
