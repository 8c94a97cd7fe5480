package cluster

import (
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
)

// watchdogScript polls its owner ($1) and the postmaster ($3), a zombie counting as dead; when the owner dies first and
// the pid file still names that postmaster, it asks the server for a fast shutdown.
const watchdogScript = `
up() {
	kill -0 "$1" 2>/dev/null || return 1
	s=$(cat "/proc/$1/stat" 2>/dev/null) || return 0
	s=${s##*) }
	[ "${s%% *}" != Z ]
}
while up "$1" && up "$3"; do sleep 1; done
if ! up "$1" && [ "$(head -n 1 "$2" 2>/dev/null)" = "$3" ]; then
	kill -INT "$3" 2>/dev/null
fi
`

// watchdogName is the watchdog's $0, by which liveOwner finds it.
const watchdogName = "agent-deck-pg-watchdog"

// startWatchdog starts a process, in its own process group so a terminal's Ctrl-C does not
// reach it, that stops the server if this process dies without calling Stop.
func (c *Cluster) startWatchdog() {
	if c.pid <= 0 {
		return
	}
	cmd := exec.Command("/bin/sh", "-c", watchdogScript, watchdogName,
		strconv.Itoa(os.Getpid()), filepath.Join(c.opts.DataDir, "postmaster.pid"), strconv.Itoa(c.pid))
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := cmd.Start(); err != nil {
		c.log.Warn("could not start the postgres watchdog", "err", err)
		return
	}
	c.watchdog = cmd
}

// ErrOwned means the data dir's server belongs to another live process (its watchdog names it),
// so it is not stale and must not be stopped.
var ErrOwned = errors.New("the cluster has a live owner")

// liveOwner returns the pid of the live process whose watchdog guards the postmaster pid on
// pidFile, 0 when there is none: only a server whose owner is gone may be stopped as stale.
func liveOwner(pidFile string, postmaster int) int {
	entries, err := os.ReadDir("/proc")
	if err != nil {
		return 0
	}
	for _, e := range entries {
		raw, err := os.ReadFile(filepath.Join("/proc", e.Name(), "cmdline"))
		if err != nil {
			continue
		}
		args := strings.Split(strings.TrimRight(string(raw), "\x00"), "\x00")
		// /bin/sh -c <script> agent-deck-pg-watchdog <owner> <pid file> <postmaster>
		if len(args) != 7 || args[3] != watchdogName || args[5] != pidFile || args[6] != strconv.Itoa(postmaster) {
			continue
		}
		if owner, err := strconv.Atoi(args[4]); err == nil && owner != os.Getpid() && alive(owner) {
			return owner
		}
	}
	return 0
}

func (c *Cluster) stopWatchdog() {
	if c.watchdog == nil {
		return
	}
	_ = c.watchdog.Process.Kill()
	_ = c.watchdog.Wait()
	c.watchdog = nil
}
