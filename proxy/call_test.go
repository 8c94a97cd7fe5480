package proxy_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/agent-deck/agent-deck/backend"
	"github.com/agent-deck/agent-deck/tests/peertest"
	"github.com/google/go-cmp/cmp"
)

// TestCallChecks covers what is checked before forwarding: tool exists, enabled, arguments
// match the schema; each failure teaches.
func TestCallChecks(t *testing.T) {
	p, _ := newProxy(t, proxyOptions{}.opts())
	tg, _ := localTarget(t)
	tg.DisabledTools = []string{"write_note"}
	cases := []struct {
		name     string
		tool     string
		args     string
		code     backend.Code
		contains []string
	}{
		{"unknown tool names the closest", "ecoh", `{}`, backend.CodeNotFound, []string{`"ecoh"`, "closest: echo"}},
		{"disabled tool", "write_note", `{}`, backend.CodeToolDisabled, []string{"write_note", "disabled"}},
		{"missing required parameter", "echo", `{}`, backend.CodeInvalidArgument,
			[]string{"message (string, required)", "count (integer)", "missing property"}},
		{"wrong type", "echo", `{"message": 5}`, backend.CodeInvalidArgument, []string{"message: got number, want string"}},
		{"schema constraint", "echo", `{"message": "x", "count": -1}`, backend.CodeInvalidArgument, []string{"count: minimum"}},
		{"not an object", "echo", `[1, 2]`, backend.CodeInvalidArgument, []string{"JSON object"}},
		{"string not holding an object", "echo", `"nope"`, backend.CodeInvalidArgument, []string{"JSON object"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			_, err := tryCall(context.Background(), p, tg, tc.tool, json.RawMessage(tc.args))
			be := wantCode(t, err, tc.code)
			for _, want := range tc.contains {
				if !strings.Contains(be.Message, want) {
					t.Errorf("message %q lacks %q", be.Message, want)
				}
			}
			if be.Hint == "" {
				t.Errorf("no hint")
			}
		})
	}
	t.Run("parameters in details", func(t *testing.T) {
		_, err := tryCall(context.Background(), p, tg, "echo", json.RawMessage(`{}`))
		be := wantCode(t, err, backend.CodeInvalidArgument)
		b, _ := json.Marshal(be.Details["parameters"])
		want := `[{"name":"message","type":"string","required":true},{"name":"count","type":"integer","required":false}]`
		if diff := cmp.Diff(want, string(b)); diff != "" {
			t.Errorf("parameters (-want +got):\n%s", diff)
		}
	})
	t.Run("listing marks disabled tools", func(t *testing.T) {
		tools, err := p.ListTools(context.Background(), tg)
		if err != nil {
			t.Fatal(err)
		}
		for _, tool := range tools {
			if tool.Enabled == (tool.Name == "write_note") {
				t.Errorf("%s enabled = %v", tool.Name, tool.Enabled)
			}
		}
	})
}

// TestTimeoutAndCancel: a slow call ends at the service timeout or when the caller cancels,
// and the connection stays usable.
func TestTimeoutAndCancel(t *testing.T) {
	httpPeer := peertest.Start(t, "http")
	local, _ := localTarget(t)
	for _, tg := range []backend.Target{local, remoteTarget(httpPeer.URL, backend.TransportAuto)} {
		t.Run(string(tg.Type), func(t *testing.T) {
			p, _ := newProxy(t, proxyOptions{}.opts())
			tg.Timeout = 300 * time.Millisecond
			start := time.Now()
			_, err := tryCall(context.Background(), p, tg, "sleep", map[string]any{"ms": 10000})
			be := wantCode(t, err, backend.CodeDownstreamTimeout)
			if d := time.Since(start); d > 2*time.Second {
				t.Errorf("timeout took %s", d)
			}
			if be.Details["phase"] != "call" {
				t.Errorf("details = %v", be.Details)
			}

			tg.Timeout = 0
			ctx, cancel := context.WithCancel(context.Background())
			time.AfterFunc(200*time.Millisecond, cancel)
			start = time.Now()
			_, err = tryCall(ctx, p, tg, "sleep", map[string]any{"ms": 10000})
			wantCode(t, err, backend.CodeDownstreamTimeout)
			if d := time.Since(start); d > 2*time.Second {
				t.Errorf("cancel took %s", d)
			}
			call(t, p, tg, "echo", map[string]any{"message": "still alive"})
			if st, _ := p.Status(tg.ServiceID); st.Health.Status != backend.HealthHealthy {
				t.Errorf("health after a slow call = %+v", st.Health)
			}
		})
	}
}

// TestBrokenServiceDoesNotDelayOthers: calls to a server that accepts and hangs, and to a
// closed port, do not slow calls to a healthy service.
func TestBrokenServiceDoesNotDelayOthers(t *testing.T) {
	hang, err := net.Listen("tcp", "127.0.0.1:0") // never accepts: connects, then silence
	if err != nil {
		t.Fatal(err)
	}
	defer hang.Close()
	closed, _ := net.Listen("tcp", "127.0.0.1:0")
	closedURL := "http://" + closed.Addr().String() + "/mcp"
	closed.Close()

	p, _ := newProxy(t, proxyOptions{connect: 3 * time.Second}.opts())
	healthy := remoteTarget(peertest.Start(t, "http").URL, backend.TransportAuto)
	call(t, p, healthy, "echo", map[string]any{"message": "warm"})

	hanging := remoteTarget("http://"+hang.Addr().String()+"/mcp", backend.TransportAuto)
	var wg sync.WaitGroup
	errs := make(chan error, 8)
	for range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			_, err := tryCall(context.Background(), p, hanging, "echo", map[string]any{"message": "x"})
			errs <- err
		}()
	}
	time.Sleep(100 * time.Millisecond) // the hanging connects are under way
	for i := range 20 {
		start := time.Now()
		call(t, p, healthy, "echo", map[string]any{"message": fmt.Sprint(i)})
		if d := time.Since(start); d > 250*time.Millisecond {
			t.Errorf("healthy call %d took %s while another service hangs", i, d)
		}
	}
	start := time.Now()
	_, err = tryCall(context.Background(), p, remoteTarget(closedURL, backend.TransportAuto), "echo", map[string]any{"message": "x"})
	wantCode(t, err, backend.CodeDownstreamUnreachable)
	if d := time.Since(start); d > time.Second {
		t.Errorf("closed port took %s to fail", d)
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		wantCode(t, err, backend.CodeDownstreamTimeout)
	}
	if st, _ := p.Status(hanging.ServiceID); st.Health.Status != backend.HealthUnhealthy {
		t.Errorf("hanging service health = %+v", st.Health)
	}
}

// TestConcurrentCalls: many goroutines share one connection (one local process).
func TestConcurrentCalls(t *testing.T) {
	httpPeer := peertest.Start(t, "http")
	ssePeer := peertest.Start(t, "sse")
	local, marker := localTarget(t)
	targets := []backend.Target{local, remoteTarget(httpPeer.URL, backend.TransportAuto),
		remoteTarget(ssePeer.URL, backend.TransportSSE)}
	p, _ := newProxy(t, proxyOptions{}.opts())
	for _, tg := range targets {
		t.Run(tg.ServiceName, func(t *testing.T) {
			var wg sync.WaitGroup
			pids := make(chan string, 32*10)
			for g := range 32 {
				wg.Add(1)
				go func() {
					defer wg.Done()
					for i := range 10 {
						msg := fmt.Sprintf("g%d-%d", g, i)
						res, err := tryCall(context.Background(), p, tg, "echo", map[string]any{"message": msg})
						if err != nil {
							t.Errorf("call: %v", err)
							return
						}
						if !strings.Contains(string(res.Raw), msg) {
							t.Errorf("result %s lacks %s", res.Raw, msg)
						}
						if i == 0 {
							r, err := tryCall(context.Background(), p, tg, "pid", nil)
							if err == nil {
								var out callResult
								_ = json.Unmarshal(r.Raw, &out)
								pids <- out.Content[0].Text
							}
						}
					}
				}()
			}
			wg.Wait()
			close(pids)
			distinct := map[string]bool{}
			for pid := range pids {
				distinct[pid] = true
			}
			if len(distinct) != 1 {
				t.Errorf("calls reached %d processes, want 1", len(distinct))
			}
		})
	}
	if pids := peertest.Processes(t, marker); len(pids) != 1 {
		t.Errorf("local processes = %v, want 1", pids)
	}
}

// TestToolListRefresh: the cached list follows the downstream's list_changed.
func TestToolListRefresh(t *testing.T) {
	httpPeer := peertest.Start(t, "http")
	ssePeer := peertest.Start(t, "sse")
	local, _ := localTarget(t)
	for _, tg := range []backend.Target{local, remoteTarget(httpPeer.URL, backend.TransportAuto),
		remoteTarget(ssePeer.URL, backend.TransportSSE)} {
		t.Run(tg.ServiceName, func(t *testing.T) {
			p, _ := newProxy(t, proxyOptions{}.opts())
			has := func(name string) bool {
				tools, err := p.ListTools(context.Background(), tg)
				if err != nil {
					t.Fatal(err)
				}
				for _, tool := range tools {
					if tool.Name == name {
						return true
					}
				}
				return false
			}
			if has("extra") {
				t.Fatal("extra present before set_tools")
			}
			call(t, p, tg, "set_tools", map[string]any{"add": []string{"extra"}})
			waitFor(t, "extra to appear", func() bool { return has("extra") })
			call(t, p, tg, "extra", map[string]any{"message": "new tool"})
			call(t, p, tg, "set_tools", map[string]any{"remove": []string{"extra"}})
			waitFor(t, "extra to disappear", func() bool { return !has("extra") })
		})
	}
}

// TestPagination reads every page of a paginated tools/list.
func TestPagination(t *testing.T) {
	p, _ := newProxy(t, proxyOptions{}.opts())
	tg, _ := localTarget(t, "-page-size", "3")
	tools, err := p.ListTools(context.Background(), tg)
	if err != nil {
		t.Fatal(err)
	}
	if len(tools) != 22 { // every tool of tests/peer (tools.go and relay_tools.go)
		t.Errorf("got %d tools over pages of 3, want 22", len(tools))
	}
}

// TestSpill: results over the cap are written to a file and replaced by a descriptor.
func TestSpill(t *testing.T) {
	home := t.TempDir()
	opts := proxyOptions{maxResult: 4096}.opts()
	opts.Home = home
	p, _ := newProxy(t, opts)
	tg, _ := localTarget(t)
	cases := []struct {
		name     string
		tool     string
		args     map[string]any
		mime     string
		size     int
		spilled  bool
		fileHead string
	}{
		{"small text stays inline", "big", map[string]any{"bytes": 100}, "", 0, false, ""},
		{"large text", "big", map[string]any{"bytes": 100000}, "text/plain", 100000, true, "0123456789abcdef"},
		{"large image", "binary", map[string]any{"bytes": 20000}, "image/png", 20000, true, "\x89PNG"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			res, raw := call(t, p, tg, tc.tool, tc.args)
			if !tc.spilled {
				if strings.Contains(string(raw.Raw), "spilled") {
					t.Errorf("small result spilled: %s", raw.Raw)
				}
				return
			}
			var d struct {
				Spilled  bool   `json:"spilled"`
				Path     string `json:"path"`
				MimeType string `json:"mime_type"`
				Size     int    `json:"size"`
			}
			if err := json.Unmarshal(res.StructuredContent, &d); err != nil {
				t.Fatalf("descriptor: %v in %s", err, raw.Raw)
			}
			if !d.Spilled || d.MimeType != tc.mime || d.Size != tc.size || !strings.HasPrefix(d.Path, home+"/tool-results/") {
				t.Errorf("descriptor = %+v", d)
			}
			if res.Content[0].Text == "" || len(raw.Raw) > 4096 {
				t.Errorf("replacement result = %s", raw.Raw)
			}
			fi, err := os.Stat(d.Path)
			if err != nil {
				t.Fatal(err)
			}
			if fi.Mode().Perm() != 0o600 || int(fi.Size()) != tc.size {
				t.Errorf("file mode %v size %d", fi.Mode().Perm(), fi.Size())
			}
			b, _ := os.ReadFile(d.Path)
			if !strings.HasPrefix(string(b), tc.fileHead) {
				t.Errorf("file starts with %q", b[:16])
			}
		})
	}
}

// TestStatusFollowsToolSettings: the tool list Status serves without I/O shows the disabled set
// of the latest target, and a refetched list, without waiting for anything else to change.
func TestStatusFollowsToolSettings(t *testing.T) {
	p, _ := newProxy(t, proxyOptions{}.opts())
	tg, _ := localTarget(t)
	disabledOf := func() []string {
		t.Helper()
		st, ok := p.Status(tg.ServiceID)
		if !ok || st.Tools == nil {
			t.Fatalf("no cached tools in status: %+v", st)
		}
		var off []string
		for _, tool := range st.Tools {
			if !tool.Enabled {
				off = append(off, tool.Name)
			}
		}
		return off
	}
	for _, disabled := range [][]string{nil, {"write_note"}, {"echo", "fail"}, {"echo", "fail"}, nil} {
		tg.DisabledTools = disabled
		if _, err := p.ListTools(context.Background(), tg); err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff(disabled, disabledOf()); diff != "" {
			t.Errorf("disabled %v: status (-want +got):\n%s", disabled, diff)
		}
	}
	tg.DisabledTools = []string{"extra"} // not served yet
	if _, err := p.ListTools(context.Background(), tg); err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]string(nil), disabledOf()); diff != "" {
		t.Errorf("before a new list: status (-want +got):\n%s", diff)
	}
	call(t, p, tg, "set_tools", map[string]any{"add": []string{"extra"}})
	p.Check(context.Background(), tg) // the refetched list is rendered again
	if diff := cmp.Diff([]string{"extra"}, disabledOf()); diff != "" {
		t.Errorf("after a new list: status (-want +got):\n%s", diff)
	}
}
