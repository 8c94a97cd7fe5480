package proxy

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"os/signal"
	"strconv"
	"syscall"
	"time"
)

// A local server is started in its own process group with Pdeathsig, so it dies with the deck.
// What it starts in turn does not get Pdeathsig, and a kill -9 of the deck gives nobody the chance
// to kill the group: such grandchildren used to live on with parent 1. The launcher closes that
// hole without cgroups. The deck starts a small process (its own binary, re-executed with a hidden
// command, see Options.Launcher) as the group leader, with Pdeathsig; the launcher makes itself a
// child subreaper (orphans of the server are re-parented to it, not to init) and runs the real
// command in the same group, its stdio passed through as the very same file descriptors, so the
// MCP stream is untouched and the launcher never writes to stdout. When the deck dies the
// launcher gets launcherDeathSignal and kills every process of its group and every descendant
// with SIGKILL; when the server exits, it does the same for what the server left behind and exits
// with the server's status.

// launcherDeathSignal is the launcher's Pdeathsig. It is catchable (SIGKILL would give no chance
// to clean up); a SIGTERM sent to the whole group by a normal stop arrives too and is told apart
// by looking at the parent, which is then still the deck.
const launcherDeathSignal = syscall.SIGTERM

// parentCheckEvery is how often the launcher also looks whether the deck is still its parent.
const parentCheckEvery = 2 * time.Second

// prSetChildSubreaper is PR_SET_CHILD_SUBREAPER from <linux/prctl.h>.
const prSetChildSubreaper = 36

// launchArgs is the argv of the launcher for path and args: the launcher prefix, the deck's pid
// (so the launcher can tell whether the deck died before its Pdeathsig was armed), then the
// command.
func launchArgs(launcher []string, path string, args []string) []string {
	out := append([]string{}, launcher...)
	out = append(out, strconv.Itoa(os.Getpid()), path)
	return append(out, args...)
}

// RunLauncher is the launcher's body: args are the deck's pid, the command and its arguments.
// It returns the exit code to exit with (the command's). The agent-deck binary runs it from a
// hidden command; test binaries may run it from TestMain.
func RunLauncher(args []string) int {
	if len(args) < 2 {
		fmt.Fprintln(os.Stderr, "agent-deck launcher: expected <deck pid> <command> [args...]")
		return 2
	}
	deck, err := strconv.Atoi(args[0])
	if err != nil {
		fmt.Fprintln(os.Stderr, "agent-deck launcher: bad deck pid", args[0])
		return 2
	}
	if _, _, errno := syscall.RawSyscall(syscall.SYS_PRCTL, prSetChildSubreaper, 1, 0); errno != 0 {
		fmt.Fprintln(os.Stderr, "agent-deck launcher: cannot become a subreaper:", errno)
		return 2
	}
	sigs := make(chan os.Signal, 8)
	signal.Notify(sigs, launcherDeathSignal, syscall.SIGINT, syscall.SIGHUP)
	if os.Getppid() != deck {
		return 137 // the deck died before Pdeathsig was armed: start nothing
	}
	cmd := exec.Command(args[1], args[2:]...)
	cmd.Stdin, cmd.Stdout, cmd.Stderr = os.Stdin, os.Stdout, os.Stderr
	cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
	if err := cmd.Start(); err != nil {
		fmt.Fprintln(os.Stderr, "agent-deck launcher: cannot start the server:", err)
		return 127
	}
	exited := make(chan syscall.WaitStatus, 1)
	go reap(cmd.Process.Pid, exited)
	// Pdeathsig fires when the thread that started the launcher ends, which is normally the
	// deck's death; the parent check, also made on a slow tick, catches a signal spent early.
	tick := time.NewTicker(parentCheckEvery)
	defer tick.Stop()
	for {
		select {
		case <-sigs:
		case <-tick.C:
		case ws := <-exited:
			killTree()
			return mirrorExit(ws)
		}
		if os.Getppid() != deck {
			killTree()
			_ = syscall.Kill(-os.Getpid(), syscall.SIGKILL) // the group, this process last
			return 137
		}
		// Otherwise a stop signalled the whole group: the server got it too; wait for its exit.
	}
}

// reap waits for every child (as a subreaper, orphans become children too, and must be reaped
// so they do not linger as zombies) and reports the server's own exit.
func reap(server int, exited chan<- syscall.WaitStatus) {
	for {
		var ws syscall.WaitStatus
		pid, err := syscall.Wait4(-1, &ws, 0, nil)
		if errors.Is(err, syscall.EINTR) {
			continue
		}
		if err != nil {
			return
		}
		if pid == server {
			exited <- ws
		}
	}
}

// killTree sends SIGKILL to every other process of this group and every descendant of this
// process, whatever group it moved to. Two passes catch what forked during the first.
func killTree() {
	self := os.Getpid()
	for range 2 {
		for _, pid := range treeOf(self) {
			_ = syscall.Kill(pid, syscall.SIGKILL)
		}
	}
}

// treeOf lists the processes in root's process group or below root, root excluded.
func treeOf(root int) []int {
	entries, err := os.ReadDir("/proc")
	if err != nil {
		return nil
	}
	parent := map[int]int{}
	var out []int
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil || pid == root {
			continue
		}
		ppid, pgid, ok := procStat(pid)
		if !ok {
			continue
		}
		parent[pid] = ppid
		if pgid == root {
			out = append(out, pid)
		}
	}
	for pid := range parent {
		for p, hops := parent[pid], 0; p > 1 && hops < 64; p, hops = parent[p], hops+1 {
			if p == root {
				out = append(out, pid)
				break
			}
		}
	}
	return out
}

// procStat reads the parent and process group of pid from /proc/<pid>/stat.
func procStat(pid int) (ppid, pgid int, ok bool) {
	raw, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return 0, 0, false
	}
	// The command name is in parentheses and may hold anything: parse after the last ')'.
	i := bytes.LastIndexByte(raw, ')')
	if i < 0 {
		return 0, 0, false
	}
	var state byte
	if _, err := fmt.Sscanf(string(raw[i+1:]), " %c %d %d", &state, &ppid, &pgid); err != nil {
		return 0, 0, false
	}
	return ppid, pgid, true
}

// mirrorExit ends the launcher the way the server ended: the same exit code, or the same signal,
// so the deck reports the server's own exit.
func mirrorExit(ws syscall.WaitStatus) int {
	if ws.Signaled() {
		sig := ws.Signal()
		signal.Reset(sig)
		_ = syscall.Kill(os.Getpid(), sig)
		return 128 + int(sig)
	}
	return ws.ExitStatus()
}
