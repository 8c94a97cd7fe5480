package cluster

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
)

// Processes returns the ids of running PostgreSQL processes serving dataDir: the postmaster
// (whose command line names the data dir) and its children. Tests use it to prove a stop left
// nothing behind.
func Processes(dataDir string) ([]int, error) {
	dataDir = absClean(dataDir)
	entries, err := os.ReadDir("/proc")
	if err != nil {
		return nil, err
	}
	parents := map[int]bool{}
	children := map[int]int{} // pid → parent pid, for postgres processes
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		if isPostmasterFor(pid, dataDir) {
			parents[pid] = true
		} else if ppid := parentOf(pid); ppid > 0 {
			children[pid] = ppid
		}
	}
	var pids []int
	for pid := range parents {
		pids = append(pids, pid)
	}
	for pid, ppid := range children {
		if parents[ppid] {
			pids = append(pids, pid)
		}
	}
	return pids, nil
}

func absClean(p string) string {
	if abs, err := filepath.Abs(p); err == nil {
		return abs
	}
	return filepath.Clean(p)
}

// isPostmasterFor reports whether pid is a postgres server whose command line names dataDir.
func isPostmasterFor(pid int, dataDir string) bool {
	raw, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/cmdline")
	if err != nil || len(raw) == 0 {
		return false
	}
	args := strings.Split(strings.TrimRight(string(raw), "\x00"), "\x00")
	base := filepath.Base(args[0])
	if base != "postgres" && base != "postmaster" {
		return false
	}
	for _, a := range args[1:] {
		if absClean(a) == dataDir {
			return true
		}
	}
	return false
}

// parentOf returns the parent pid of pid from /proc, 0 when unknown.
func parentOf(pid int) int {
	raw, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return 0
	}
	// The command name is in parentheses and may hold spaces: parse after the last ')'.
	i := bytes.LastIndexByte(raw, ')')
	if i < 0 {
		return 0
	}
	fields := strings.Fields(string(raw[i+1:]))
	if len(fields) < 2 {
		return 0
	}
	ppid, _ := strconv.Atoi(fields[1])
	return ppid
}

// alive reports whether a process exists and runs (a process of another user counts). A zombie,
// dead but not yet reaped by its parent, does not: it holds no lock, serves nothing and owns
// nothing, so a server it left behind is stale.
func alive(pid int) bool {
	err := syscall.Kill(pid, 0)
	return (err == nil || errors.Is(err, syscall.EPERM)) && !isZombie(pid)
}

// lockFilePID reads the pid on the first line of a PostgreSQL lock file (postmaster.pid or a
// socket's .lock file); 0 when absent or unreadable.
func lockFilePID(path string) int {
	raw, err := os.ReadFile(path)
	if err != nil {
		return 0
	}
	line, _, _ := strings.Cut(string(raw), "\n")
	pid, err := strconv.Atoi(strings.TrimSpace(line))
	if err != nil {
		return 0
	}
	// A negative pid marks a single-user backend.
	if pid < 0 {
		pid = -pid
	}
	return pid
}

// runningPostmaster returns the pid of the live postmaster that owns dataDir, 0 when none.
// A pid file naming a dead or unrelated process (a crash, then pid reuse) counts as none.
func runningPostmaster(dataDir string) int {
	pid := lockFilePID(filepath.Join(dataDir, "postmaster.pid"))
	if pid <= 0 || !alive(pid) {
		return 0
	}
	if _, err := os.Stat("/proc/self/cmdline"); err != nil {
		return pid // no /proc: trust the pid
	}
	if isPostmasterFor(pid, dataDir) {
		return pid
	}
	return 0
}
