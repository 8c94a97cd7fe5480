package proxy_test

import (
	"context"
	"os"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/agent-deck/agent-deck/backend"
	"github.com/agent-deck/agent-deck/proxy"
	"github.com/agent-deck/agent-deck/tests/peertest"
)

// launchArg makes this test binary act as the launcher, as the agent-deck binary does with its
// hidden command.
const launchArg = "internal-launch"

func TestMain(m *testing.M) {
	if len(os.Args) > 1 && os.Args[1] == launchArg {
		os.Exit(proxy.RunLauncher(os.Args[2:]))
	}
	os.Exit(m.Run())
}

func launcherOptions() proxy.Options {
	o := proxyOptions{}.opts()
	o.Launcher = []string{os.Args[0], launchArg}
	return o
}

// TestLauncherStdio: through the launcher the MCP stream is byte-exact (text, binary, large
// results), a crash reads as the server's own exit, and Close leaves no process behind: the
// launcher, the server, or what the server started.
func TestLauncherStdio(t *testing.T) {
	p, _ := newProxy(t, launcherOptions())
	tg, marker := localTarget(t)
	echo, _ := call(t, p, tg, "echo", map[string]any{"message": "through the launcher"})
	if len(echo.Content) != 1 || !strings.Contains(echo.Content[0].Text, "through the launcher") {
		t.Fatalf("echo = %+v", echo)
	}
	bin, _ := call(t, p, tg, "binary", nil)
	if len(bin.Content) != 1 || bin.Content[0].MimeType != "image/png" {
		t.Errorf("binary = %+v", bin)
	}
	big, _ := call(t, p, tg, "big", map[string]any{"bytes": 40000})
	if len(big.Content) != 1 || len(big.Content[0].Text) != 40000 {
		t.Errorf("big: %d blocks", len(big.Content))
	}
	res, _ := call(t, p, tg, "spawn", nil)
	grandchild, err := strconv.Atoi(res.Content[0].Text)
	if err != nil {
		t.Fatalf("spawn = %+v", res)
	}
	// launcher, server, grandchild
	if pids := peertest.Processes(t, marker); len(pids) != 3 {
		t.Errorf("processes = %v, want launcher, server and grandchild", pids)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := p.Close(ctx); err != nil {
		t.Fatal(err)
	}
	peertest.WaitGone(t, marker, 5*time.Second)
	if err := syscall.Kill(grandchild, 0); err == nil {
		t.Errorf("grandchild %d still exists", grandchild)
	}
}

// TestLauncherCrash: a server that dies by a signal is reported as such through the launcher,
// and the next call runs on a fresh server.
func TestLauncherCrash(t *testing.T) {
	p, _ := newProxy(t, launcherOptions())
	tg, _ := localTarget(t)
	pid, _ := strconv.Atoi(pidOf(t, p, tg))
	if err := syscall.Kill(pid, syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	waitFor(t, "the killed server to be noticed", func() bool {
		st, _ := p.Status(tg.ServiceID)
		return st.Health.Status == backend.HealthUnhealthy
	})
	_, err := tryCall(context.Background(), p, tg, "pid", nil)
	if be := wantCode(t, err, backend.CodeDownstreamUnreachable); !strings.Contains(be.Message, "signal: killed") {
		t.Errorf("message = %q, want the server's own end (signal: killed)", be.Message)
	}
	if second, _ := strconv.Atoi(pidOf(t, p, tg)); second == pid {
		t.Errorf("pid after restart = %d, want a fresh process", second)
	}
}
