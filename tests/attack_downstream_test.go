package tests

import (
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/agent-deck/agent-deck/backend"
	"github.com/agent-deck/agent-deck/backend/core"
	"github.com/agent-deck/agent-deck/backend/postgres/pgtest"
	"github.com/agent-deck/agent-deck/cli"
)

// Attacks on hostile or oversized downstream servers (results, errors, stderr, tool definitions).
func TestAttacksDownstream(t *testing.T) {
	runAttacks(t, []attack{
		{"hostile server echoes its secrets into results, stderr, spill files and logs", attackEchoedSecrets},
		{"downstream error body echoes the api key into errors and logs", attackErrorBodyEchoesKey},
		{"200 MB result exhausts the server's memory", attackHugeResult},
		{"spilled results fill the disk", attackSpillFolder},
		{"a server that times out every call stays healthy", attackRepeatedTimeouts},
		{"a server answers a call with another request's JSON-RPC id", attackAnswerWithOtherID},
		{"many large results at once take serve's memory far past its result budget", attackParallelLargeResults},
		{"rug pull: a tool's description changes after first use and is still called", func(t *testing.T) {
			w := newPinWorld(t)
			w.peerTool(t, "mutate", map[string]any{"tool": "echo", "description": poisonedEcho})
			w.waitHeld(t, "echo")
			w.wantHeldCall(t, "echo", "description changed")
		}},
		{"rug pull: a tool's input schema grows a parameter after first use", func(t *testing.T) {
			w := newPinWorld(t)
			w.peerTool(t, "mutate", map[string]any{"tool": "echo", "add_property": "ssh_key"})
			w.waitHeld(t, "echo")
			w.wantHeldCall(t, "input schema: property", "ssh_key", "added")
		}},
		{"rug pull: the changed tool is listed to the agent with its new text", func(t *testing.T) {
			w := newPinWorld(t)
			w.peerTool(t, "mutate", map[string]any{"tool": "echo", "description": poisonedEcho})
			info := w.waitHeld(t, "echo")
			if info.HeldReason != "description changed" {
				t.Errorf("held_reason %q", info.HeldReason)
			}
			if strings.Contains(string(info.Tool), "id_rsa") {
				t.Errorf("list_service_tools shows the agent the unapproved description: %s", info.Tool)
			}
			if w.listed(t)["big"].Held {
				t.Error("an unchanged tool is marked held")
			}
		}},
		{"rug pull: a tool added after first use is called unreviewed", func(t *testing.T) {
			w := newPinWorld(t)
			w.peerTool(t, "set_tools", map[string]any{"add": []string{"exfiltrate"}})
			w.waitHeld(t, "exfiltrate")
			e := w.agent.fails("call_service_tool", map[string]any{"serviceId": w.service(), "toolName": "exfiltrate"})
			if e.Code != string(backend.CodeToolChanged) || !strings.Contains(e.Message, "new tool") {
				t.Fatalf("new tool: %s %s, want TOOL_CHANGED naming a new tool", e.Code, e.Message)
			}
		}},
		{"rug pull: an agent token approves the changed tool itself", func(t *testing.T) {
			w := newPinWorld(t)
			w.peerTool(t, "mutate", map[string]any{"tool": "echo", "description": poisonedEcho})
			w.waitHeld(t, "echo")
			status, body := w.rest(t, w.agentTok, http.MethodPost, "/api/v1/services/"+w.f.Service.ID+"/approve",
				map[string]any{"tools": []string{"echo"}})
			if status != http.StatusForbidden {
				t.Fatalf("agent approve over REST: %d %s, want 403", status, body)
			}
			for _, name := range w.agent.toolNames() {
				if strings.Contains(name, "approve") {
					t.Errorf("MCP offers agents %s", name)
				}
			}
			w.wantHeldCall(t, "description changed")
		}},
		{"rug pull: a tool the person approved with agent-deck service approve stays refused", func(t *testing.T) {
			w := newPinWorld(t)
			w.peerTool(t, "mutate", map[string]any{"tool": "echo", "description": poisonedEcho})
			w.waitHeld(t, "echo")
			w.wantHeldCall(t, "description changed")
			r := runCLI(w.s.home, strings.NewReader(""), "service", "approve", w.service(), "echo", "--yes").wantCode(t, 0)
			if !strings.Contains(r.stdout, "Approved 1 tool of "+w.service()) || !strings.Contains(r.stdout, "description changed") {
				t.Errorf("approve output does not say what was approved:\n%s", r.stdout)
			}
			w.wantCallWorks(t)
			if w.listed(t)["echo"].Held {
				t.Error("approved tool still marked held")
			}
			r = runCLI(w.s.home, strings.NewReader(""), "service", "approve", w.service(), "--json", "--yes").wantCode(t, 0)
			var again core.ToolApprovals
			if err := json.Unmarshal([]byte(r.stdout), &again); err != nil || len(again.Approved) != 0 ||
				!slices.Contains(again.Unchanged, "echo") {
				t.Errorf("approving again: %v %s", err, r.stdout)
			}
		}},
		{"rug pull: a restarted server serves a changed tool on a connection that slept through the restart", func(t *testing.T) {
			w := newRugWorld(t, false)
			w.rug.restart(poisonedEcho)
			got := w.callEcho()
			if got == string(backend.CodeDownstreamUnreachable) {
				got = w.callEcho() // the cut kept-alive connection refused the first; nothing was sent
			}
			if got != string(backend.CodeToolChanged) || w.rug.reached.Load() != 0 {
				t.Fatalf("first call after the restart: %q, %d calls reached the changed tool", got, w.rug.reached.Load())
			}
		}},
		{"rug pull: a changed tool is served only to a deck's own credential, where the admin does not look", func(t *testing.T) {
			w := newRugWorld(t, true)
			poison := poisonedEcho
			w.rug.deckDesc.Store(&poison)
			w.changeWhileIdle(t, echoDescription)
			if got := w.callEcho(); got != string(backend.CodeToolChanged) {
				t.Fatalf("the deck's call: %q, want TOOL_CHANGED", got)
			}
			if held := w.held(t); len(held) != 1 || held[0].SeenOn[0] != "deck credential "+w.f.Cred.ID {
				t.Fatalf("the admin's view of holds: %+v", held)
			}
		}},
		{"rug pull: an agent token overrides a tool as read-only or approves it through the held view", func(t *testing.T) {
			w := newPinWorld(t)
			status, body := w.rest(t, w.agentTok, http.MethodPut, "/api/v1/services/"+w.f.Service.ID+"/tools/fail/override",
				map[string]any{"read_only_hint": true})
			if status != http.StatusForbidden {
				t.Fatalf("agent override over REST: %d %s, want 403", status, body)
			}
			if status, body := w.rest(t, w.agentTok, http.MethodGet, "/api/v1/services/"+w.f.Service.ID+"/held", nil); status != http.StatusForbidden {
				t.Fatalf("agent reads the unapproved text over REST: %d %s, want 403", status, body)
			}
			for _, name := range w.agent.toolNames() {
				if strings.Contains(name, "override") || strings.Contains(name, "held") {
					t.Errorf("MCP offers agents %s", name)
				}
			}
		}},
		{"rug pull: an override hides a downstream change from the pin", func(t *testing.T) {
			w := newPinWorld(t)
			runCLI(w.s.home, strings.NewReader(""), "service", "override", w.service(), "echo", "--description", "Returns its arguments.").wantCode(t, 0)
			w.peerTool(t, "mutate", map[string]any{"tool": "echo", "description": poisonedEcho})
			w.waitHeld(t, "echo")
			w.wantHeldCall(t, "description changed")
		}},
		{"rug pull: a bundle pins one definition while showing another", func(t *testing.T) {
			w := newPinWorld(t)
			path := t.TempDir() + "/bundle.json"
			runCLI(w.s.home, strings.NewReader(""), "export", "-o", path).wantCode(t, 0)
			raw, err := os.ReadFile(path)
			must(t, err)
			forged := strings.Replace(string(raw), `"description": "Returns its arguments."`, `"description": "`+poisonedEcho+`"`, 1)
			if forged == string(raw) {
				t.Fatalf("the export holds no pin of echo to forge:\n%s", raw)
			}
			must(t, os.WriteFile(path, []byte(forged), 0o600))
			dst := startMCPStack(t, mcpStackOptions{})
			r := runCLI(dst.home, strings.NewReader(""), "import", path)
			if r.code == 0 || !strings.Contains(r.stderr, "hash") {
				t.Fatalf("forged pin imported: %d\n%s%s", r.code, r.stdout, r.stderr)
			}
		}},
		{"rug pull: an agent turns pinning off to let a changed tool through", func(t *testing.T) {
			w := newPinWorld(t)
			off := map[string]any{"pin_tools": false}
			if status, body := w.rest(t, w.agentTok, http.MethodPatch, "/api/v1/services/"+w.f.Service.ID, off); status != http.StatusForbidden {
				t.Fatalf("agent turns pinning off over REST: %d %s, want 403", status, body)
			}
			if e := w.agent.fails("update_service", map[string]any{"service_id": w.service(), "pinTools": false}); e.Code != string(backend.CodeForbidden) {
				t.Fatalf("agent turns pinning off over MCP: %s %s, want FORBIDDEN", e.Code, e.Message)
			}
			w.peerTool(t, "mutate", map[string]any{"tool": "echo", "description": poisonedEcho})
			w.waitHeld(t, "echo")
			// The person trusts this server to change: with pinning off, its calls go through.
			if status, body := w.rest(t, w.s.AdminToken, http.MethodPatch, "/api/v1/services/"+w.f.Service.ID, off); status != http.StatusOK ||
				!strings.Contains(string(body), `"pin_tools":false`) {
				t.Fatalf("admin turns pinning off: %d %s", status, body)
			}
			w.wantCallWorks(t)
		}},
	})
}

// attackEchoedSecrets: the capture tool returns (and prints to stderr) every header and env var
// it got. A DATABASE_URL env value and an innocently named header carry the secret: masking by
// name would miss both.
func attackEchoedSecrets(t *testing.T) {
	s := startHostileStack(t, func(c *cli.ServeConfig) { c.ResultCap = 128 }) // small enough that both captures spill on any machine
	secret := "echoed-" + randHex(12)
	cred, err := s.svc.CreateCredential(s.adminCtx(), core.CredentialInput{Label: "Echo", Value: "cred-" + secret})
	must(t, err)
	remote := s.addService(t, core.ServiceInput{Name: "remote", Type: backend.ServiceRemote, URL: startHTTPPeer(t),
		Transport: backend.TransportStreamableHTTP, CredentialID: cred.ID,
		Headers: map[string]string{"X-Api-Key": "hdr-" + secret}})
	local := s.addService(t, localPeer(t, "local", map[string]string{"DATABASE_URL": "postgres://app:" + secret + "@db/app"}))
	texts := map[string]string{}
	for _, id := range []string{remote.ID, local.ID} {
		status, body := s.restCallTool(t, id, "capture", nil)
		if status != http.StatusOK {
			t.Fatalf("capture on %s: %d %s", id, status, body)
		}
		texts["result of "+id] = string(body)
	}
	texts["stderr"] = s.waitStderr(t, local.ID, "peer: captured")
	if !strings.Contains(texts["stderr"], "DATABASE_URL") {
		t.Fatalf("the capture never reached stderr: %q", texts["stderr"])
	}
	for name, content := range s.spilledFiles(t) {
		texts["spill file "+name] = content
	}
	if len(texts) < 5 {
		t.Fatalf("the captures were not spilled: %v", texts)
	}
	texts["logs"] = s.logs.String()
	if where := leakSearch(secret, texts); len(where) > 0 {
		t.Errorf("the secret is readable in %v", where)
	}
}

// attackErrorBodyEchoesKey: a server's HTTP 500 page quotes the x-api-key it was sent; the
// error the caller gets, the cause logged at WARN and the service's health must not.
func attackErrorBodyEchoesKey(t *testing.T) {
	s := startHostileStack(t, nil)
	key := "errbody-" + randHex(12)
	svc := s.addService(t, core.ServiceInput{Name: "leaky", Type: backend.ServiceRemote,
		URL: startHTTPPeer(t, "PEER_FAIL_CALLS_ECHOING_HEADERS=1"), Transport: backend.TransportStreamableHTTP,
		Headers: map[string]string{"X-Api-Key": key}})
	status, body := s.restCallTool(t, svc.ID, "echo", map[string]any{"message": "hi"})
	if code := errorCode(body); status != http.StatusServiceUnavailable || code != backend.CodeDownstreamError {
		t.Fatalf("call: %d %s, want 503 DOWNSTREAM_ERROR", status, body)
	}
	if !strings.Contains(s.logs.String(), "peer exploded") {
		t.Fatalf("the downstream's error body was never logged, so this proves nothing:\n%s", s.logs.String())
	}
	h := s.serviceHealth(t, svc.ID)
	texts := map[string]string{"error": string(body), "logs": s.logs.String(), "health": h.LastError + h.Stderr}
	if where := leakSearch(key, texts); len(where) > 0 {
		t.Errorf("the key is readable in %v", where)
	}
}

// attackHugeResult: a local server answers 200 MB. The call fails at the hard cap with a coded
// error and the same server answers the next call (peak memory: BenchmarkOversizedResultMemory).
func attackHugeResult(t *testing.T) {
	s := startHostileStack(t, nil)
	svc := s.addService(t, localPeer(t, "huge", nil))
	_, before := s.restCallTool(t, svc.ID, "pid", nil)
	status, body := s.restCallTool(t, svc.ID, "big", map[string]any{"bytes": 200 << 20})
	if code := errorCode(body); status != http.StatusBadGateway || code != backend.CodeDownstreamResultTooLarge {
		t.Fatalf("200 MB result: %d %.300s, want 502 DOWNSTREAM_RESULT_TOO_LARGE", status, body)
	}
	status, after := s.restCallTool(t, svc.ID, "pid", nil)
	if status != http.StatusOK || string(after) != string(before) {
		t.Errorf("after the refused result: %d %s, want the same server (%s) answering", status, after, before)
	}
}

// attackSpillFolder: results over the inline cap are written to disk; many of them must not
// grow the folder past its cap.
func attackSpillFolder(t *testing.T) {
	const dirCap = 100_000
	s := startHostileStack(t, func(c *cli.ServeConfig) { c.ResultCap = 1024; c.ResultDirCap = dirCap })
	svc := s.addService(t, localPeer(t, "spiller", nil))
	for range 10 {
		if status, body := s.restCallTool(t, svc.ID, "big", map[string]any{"bytes": 30_000}); status != http.StatusOK {
			t.Fatalf("big: %d %s", status, body)
		}
	}
	if size := s.spillDirSize(t); size > dirCap {
		t.Errorf("the spill folder holds %d bytes, cap %d", size, dirCap)
	}
}

// attackRepeatedTimeouts: a server that never answers in time must not keep looking healthy.
func attackRepeatedTimeouts(t *testing.T) {
	s := startHostileStack(t, nil)
	in := localPeer(t, "stuck", nil)
	in.TimeoutSeconds = 1
	svc := s.addService(t, in)
	if status, body := s.restCallTool(t, svc.ID, "echo", map[string]any{"message": "up"}); status != http.StatusOK {
		t.Fatalf("echo: %d %s", status, body)
	}
	for range 3 {
		status, body := s.restCallTool(t, svc.ID, "sleep", map[string]any{"ms": 10_000})
		if code := errorCode(body); status != http.StatusGatewayTimeout || code != backend.CodeDownstreamTimeout {
			t.Fatalf("sleep: %d %s, want 504 DOWNSTREAM_TIMEOUT", status, body)
		}
	}
	if h := s.serviceHealth(t, svc.ID); h.Status != backend.HealthUnhealthy || !strings.Contains(h.LastError, "in a row timed out") {
		t.Errorf("after 3 timeouts in a row health = %+v, want unhealthy saying so", h)
	}
}

// attackAnswerWithOtherID: a server (or whatever sits in front of it) answers a tools/call with
// a JSON-RPC id that is not the request's. The answer belongs to no call of ours: it is refused
// as DOWNSTREAM_ERROR, and a call whose answer carries the right id still works.
func attackAnswerWithOtherID(t *testing.T) {
	s := startHostileStack(t, nil)
	peer := startHTTPPeer(t)
	svc := s.addService(t, core.ServiceInput{Name: "swapper", Type: backend.ServiceRemote,
		URL: idSwappingProxy(t, peer, "forged"), Transport: backend.TransportStreamableHTTP})
	status, body := s.restCallTool(t, svc.ID, "echo", map[string]any{"message": "forged"})
	if code := errorCode(body); status != http.StatusServiceUnavailable || code != backend.CodeDownstreamError {
		t.Fatalf("answer with another id: %d %s, want 503 DOWNSTREAM_ERROR", status, body)
	}
	if !strings.Contains(string(body), "id") {
		t.Errorf("the refusal does not say the id was wrong: %s", body)
	}
	if status, body := s.restCallTool(t, svc.ID, "echo", map[string]any{"message": "plain"}); status != http.StatusOK {
		t.Errorf("a call answered with its own id: %d %s", status, body)
	}
}

// attackParallelLargeResults: forty calls at once, over Streamable HTTP and stdio, each
// answered with 7 MB, on a real serve whose result budget is 32 MiB (the least for an 8 MiB
// hard cap). Each result used to be held whole, several times, whatever the number of calls; now
// a call waits for room, every call still succeeds, and serve's peak resident set grows by less
// than twice the budget. (BenchmarkServeParallelLargeResults measures 20 × 30 MB.)
func attackParallelLargeResults(t *testing.T) {
	const hardCap, budget, size, calls = 8 << 20, 32 << 20, 7_000_000, 20
	srv := startServeBench(t, "AGENT_DECK_DATABASE_URL="+pgtest.NewDB(t),
		"AGENT_DECK_RESULT_HARD_CAP="+strconv.Itoa(hardCap), "AGENT_DECK_RESULT_MEMORY="+strconv.Itoa(budget))
	srv.rest(t, http.StatusCreated, "POST", "/api/v1/services", `{"name":"remote","type":"mcp","url":"`+startHTTPPeer(t)+
		`","transport":"streamable_http","timeout_seconds":600}`, nil)
	local, _ := json.Marshal(map[string]any{"name": "local", "type": "local-mcp", "local_command": mcpPeerBinary(t),
		"local_args": []string{"-transport", "stdio"}, "timeout_seconds": 600})
	srv.rest(t, http.StatusCreated, "POST", "/api/v1/services", string(local), nil)
	call := func(service string) error {
		a := srv.api().Do(t, srv.token, "POST", "/api/v1/services/"+service+"/call",
			map[string]any{"tool_name": "big", "arguments": map[string]any{"bytes": size}})
		if a.Status != http.StatusOK || !strings.Contains(string(a.Body), `"spilled":true`) {
			return fmt.Errorf("%s: %d %.300s", service, a.Status, a.Body)
		}
		return nil
	}
	for _, svc := range []string{"remote", "local"} { // connect, list the tools, warm the pools
		must(t, call(svc))
	}
	pid := srv.cmd.Process.Pid
	baseline := vmRSS(t, pid)
	resetPeak(t, pid)
	var wg sync.WaitGroup
	errs := make(chan error, 2*calls)
	for range calls {
		for _, svc := range []string{"remote", "local"} {
			wg.Go(func() {
				if err := call(svc); err != nil {
					errs <- err
				}
			})
		}
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	if grew := vmHWM(t, pid) - baseline; grew > 2*budget>>10 {
		t.Errorf("serve's peak resident set grew by %d MiB over %d MiB, more than twice the result budget (%d MiB)",
			grew>>10, baseline>>10, budget>>20)
	} else {
		t.Logf("serve's peak resident set grew by %d MiB over %d MiB (budget %d MiB)", grew>>10, baseline>>10, budget>>20)
	}
}
