package cli

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"
	"sync"
	"time"

	"github.com/urfave/cli/v2"

	"github.com/agent-deck/agent-deck/backend"
	"github.com/agent-deck/agent-deck/cli/client"
)

// mcpStdioCommand bridges a stdio-only MCP client (Claude Desktop) to the running server's
// /mcp endpoint. Only protocol messages reach stdout; diagnostics go to stderr.
func mcpStdioCommand() *cli.Command {
	return &cli.Command{
		Name:  "mcp-stdio",
		Usage: "bridge a stdio-only MCP client to the deck server's /mcp endpoint",
		Description: "Reads JSON-RPC messages, one per line, on stdin, sends them to the server's /mcp " +
			"endpoint (the local server and its admin token unless --server/--token say otherwise), and " +
			"writes the answers, one per line, to stdout.",
		Flags: []cli.Flag{
			&cli.StringFlag{Name: "deck", EnvVars: []string{backend.EnvDeckID},
				Usage: "pre-bind the session to this deck (id or name)"},
			&cli.StringFlag{Name: "profile", EnvVars: []string{backend.EnvProfile},
				Usage: "ask for a smaller tool profile: " + backend.ProfileChoices()},
		},
		Action: func(c *cli.Context) error {
			cl, err := client.New(client.Options{Home: global(c, flagHome), Server: global(c, flagServer),
				Token: global(c, flagToken)})
			if err != nil {
				return fail(err)
			}
			opts := StdioBridgeOptions{URL: cl.BaseURL + "/mcp", Token: cl.Token,
				Deck: c.String("deck"), Profile: c.String("profile")}
			if err := RunMCPStdio(c.Context, opts, c.App.Reader, c.App.Writer, c.App.ErrWriter); err != nil {
				return cli.Exit(err.Error(), exitInternal)
			}
			return nil
		},
	}
}

// StdioBridgeOptions say where the bridge sends messages and how it introduces itself.
type StdioBridgeOptions struct {
	// URL is the MCP endpoint, e.g. http://127.0.0.1:1110/mcp.
	URL   string
	Token string
	// Deck and Profile become the x-agent-deck-deck-id and x-agent-deck-profile headers.
	Deck    string
	Profile string
	// HTTP is the client to use; nil means one without an overall timeout (calls can be long).
	HTTP *http.Client
}

// maxStdioMessage bounds one line of JSON-RPC on stdin.
const maxStdioMessage = 16 << 20

// RunMCPStdio runs the bridge until stdin ends or ctx is cancelled, then ends the session. The
// handshake (initialize, notifications/initialized) runs in order, alone; later messages are
// sent concurrently so a slow tool call never holds up a ping or a cancellation — except around
// a binding call (bind_workspace, switch_bound_deck, session), which waits for the requests read before it
// and holds up the ones read after it until it has answered, so a call pipelined right after a
// bind sees the binding.
//
// What the server asks the client during a call (elicitation, sampling, roots) comes on that
// call's answer and goes to stdout like the rest; the client's answer, read on stdin, is posted
// back. Once the session is open the bridge also listens on its GET stream, where the server
// sends what belongs to no call (the roots question that binds the session, messages that
// trailed a call's answer).
func RunMCPStdio(ctx context.Context, opts StdioBridgeOptions, stdin io.Reader, stdout, stderr io.Writer) error {
	b := &stdioBridge{opts: opts, out: stdout, log: stderr, http: opts.HTTP}
	if b.http == nil {
		b.http = &http.Client{}
	}
	ctx, stopListening := context.WithCancel(ctx)
	defer stopListening()
	var listening sync.WaitGroup
	defer listening.Wait()
	defer stopListening() // runs first: the stream ends before the wait
	in := bufio.NewReaderSize(stdin, 64<<10)
	var wg sync.WaitGroup
	sem := make(chan struct{}, 16)
	var order bindOrder
	for {
		line, err := readLine(in)
		if len(bytes.TrimSpace(line)) > 0 {
			msg := append([]byte(nil), bytes.TrimSpace(line)...)
			if b.sessionID() == "" || isInitialize(msg) || isInitializedNote(msg) {
				b.forward(ctx, msg)
				if isInitializedNote(msg) {
					listening.Go(func() { b.listen(ctx) })
				}
			} else {
				sem <- struct{}{}
				wg.Add(1)
				wait, done := order.next(msg)
				go func() {
					defer func() { <-sem; wg.Done() }()
					defer done()
					wait(ctx)
					b.forward(ctx, msg)
				}()
			}
		}
		if err != nil {
			wg.Wait()
			b.endSession()
			if errors.Is(err, io.EOF) || ctx.Err() != nil {
				return nil
			}
			return fmt.Errorf("reading stdin: %w", err)
		}
	}
}

// bindOrder keeps a session's requests in order around binding calls: a binding call waits for
// every request read before it, and every request read after it waits for its answer. Other
// requests and notifications run concurrently. Only the reading loop calls next.
type bindOrder struct {
	barrier chan struct{}   // closed when the last binding call has answered; nil: none yet
	since   *sync.WaitGroup // requests read since that binding call
}

// next returns what msg must wait for before it is sent, and what it must call once answered.
func (o *bindOrder) next(msg []byte) (wait func(context.Context), done func()) {
	if o.since == nil {
		o.since = &sync.WaitGroup{}
	}
	prev, before := o.barrier, o.since
	if !isBindingCall(msg) {
		if !isRequest(msg) {
			return func(context.Context) {}, func() {}
		}
		before.Add(1)
		return func(ctx context.Context) { waitClosed(ctx, prev) }, before.Done
	}
	mine := make(chan struct{})
	o.barrier, o.since = mine, &sync.WaitGroup{}
	return func(ctx context.Context) {
		waitClosed(ctx, prev)
		idle := make(chan struct{})
		go func() { before.Wait(); close(idle) }()
		waitClosed(ctx, idle)
	}, func() { close(mine) }
}

func waitClosed(ctx context.Context, ch chan struct{}) {
	if ch == nil {
		return
	}
	select {
	case <-ch:
	case <-ctx.Done():
	}
}

// isBindingCall reports whether msg is a tools/call that changes the session's binding.
func isBindingCall(msg []byte) bool {
	if !bytes.Contains(msg, []byte("bind")) && !bytes.Contains(msg, []byte("session")) {
		return false
	}
	var m struct {
		Method string `json:"method"`
		Params struct {
			Name string `json:"name"`
		} `json:"params"`
	}
	if json.Unmarshal(msg, &m) != nil || m.Method != "tools/call" {
		return false
	}
	// The resource profile binds through `session` (actions bind and switch; get waits too,
	// which costs nothing).
	return m.Params.Name == "bind_workspace" || m.Params.Name == "switch_bound_deck" || m.Params.Name == "session"
}

// readLine returns one line without its newline; a line over the limit is an error.
func readLine(r *bufio.Reader) ([]byte, error) {
	var line []byte
	for {
		chunk, isPrefix, err := r.ReadLine()
		line = append(line, chunk...)
		if len(line) > maxStdioMessage {
			return nil, fmt.Errorf("a message is over %d bytes", maxStdioMessage)
		}
		if err != nil || !isPrefix {
			return line, err
		}
	}
}

type stdioBridge struct {
	opts StdioBridgeOptions
	http *http.Client
	log  io.Writer

	outMu sync.Mutex
	out   io.Writer

	renewMu sync.Mutex

	mu       sync.Mutex
	session  string
	version  string
	initMsgs [][]byte // initialize and notifications/initialized, replayed when the session expires
}

func (b *stdioBridge) sessionID() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.session
}

// forward sends one message and copies every answer to stdout. When the server no longer knows
// the session (404) and the message is a request, the bridge opens a new session with the saved
// handshake and sends the request again.
func (b *stdioBridge) forward(ctx context.Context, msg []byte) {
	init := isInitialize(msg)
	if init || isInitializedNote(msg) {
		b.mu.Lock()
		if init {
			b.initMsgs = nil
		}
		b.initMsgs = append(b.initMsgs, msg)
		b.mu.Unlock()
	}
	status, used, err := b.post(ctx, msg, b.writeLine)
	if status == http.StatusNotFound && !init && isRequest(msg) && b.renew(ctx, used) {
		_, _, err = b.post(ctx, msg, b.writeLine)
	}
	if err != nil {
		fmt.Fprintf(b.log, "agent-deck mcp-stdio: %v\n", err)
		b.replyError(msg, err)
	}
}

// renew replays the saved handshake to replace the stale session, once however many requests
// found it gone; their answers to the replay are discarded.
func (b *stdioBridge) renew(ctx context.Context, stale string) bool {
	b.renewMu.Lock()
	defer b.renewMu.Unlock()
	if cur := b.sessionID(); cur != "" && cur != stale {
		return true
	}
	b.mu.Lock()
	msgs := append([][]byte(nil), b.initMsgs...)
	b.session = ""
	b.mu.Unlock()
	if len(msgs) == 0 {
		return false
	}
	fmt.Fprintln(b.log, "agent-deck mcp-stdio: the session expired; starting a new one (bind again)")
	for _, m := range msgs {
		if _, _, err := b.post(ctx, m, func([]byte) {}); err != nil {
			return false
		}
	}
	return b.sessionID() != ""
}

// post sends one message and hands each JSON-RPC message of the answer to emit. It returns the
// HTTP status, the session id it sent, and an error for anything that is not an MCP answer.
func (b *stdioBridge) post(ctx context.Context, msg []byte, emit func([]byte)) (int, string, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, b.opts.URL, bytes.NewReader(msg))
	if err != nil {
		return 0, "", err
	}
	used := b.setHeaders(req)
	status, err := b.send(req, msg, emit)
	return status, used, err
}

func (b *stdioBridge) send(req *http.Request, msg []byte, emit func([]byte)) (int, error) {
	resp, err := b.http.Do(req)
	if err != nil {
		return 0, fmt.Errorf("no deck server at %s (start it with `agent-deck serve`): %w", b.opts.URL, err)
	}
	defer resp.Body.Close()
	if id := resp.Header.Get(backend.HeaderMCPSession); id != "" && isInitialize(msg) {
		b.mu.Lock()
		b.session = id
		b.mu.Unlock()
	}
	switch {
	case resp.StatusCode == http.StatusAccepted:
		return resp.StatusCode, nil
	case resp.StatusCode >= 300:
		body, _ := io.ReadAll(io.LimitReader(resp.Body, 4096))
		return resp.StatusCode, fmt.Errorf("the deck server answered %s: %s", resp.Status, serverMessage(body))
	case strings.HasPrefix(resp.Header.Get("Content-Type"), "text/event-stream"):
		return resp.StatusCode, readSSE(resp.Body, func(data []byte) { b.note(msg, data); emit(data) })
	}
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		return resp.StatusCode, fmt.Errorf("reading the answer: %w", err)
	}
	if len(bytes.TrimSpace(body)) > 0 {
		b.note(msg, body)
		emit(body)
	}
	return resp.StatusCode, nil
}

// setHeaders adds the token, the connection's headers and the session; it returns the session id
// sent.
func (b *stdioBridge) setHeaders(req *http.Request) string {
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	if b.opts.Token != "" {
		req.Header.Set("Authorization", "Bearer "+b.opts.Token)
	}
	if b.opts.Deck != "" {
		req.Header.Set(backend.HeaderDeckID, b.opts.Deck)
	}
	if b.opts.Profile != "" {
		req.Header.Set(backend.HeaderProfile, b.opts.Profile)
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.session != "" {
		req.Header.Set(backend.HeaderMCPSession, b.session)
	}
	if b.version != "" {
		req.Header.Set(backend.HeaderMCPProtocolVersion, b.version)
	}
	return b.session
}

// note remembers the protocol version the initialize answer negotiated.
func (b *stdioBridge) note(msg, answer []byte) {
	if !isInitialize(msg) {
		return
	}
	var r struct {
		Result struct {
			ProtocolVersion string `json:"protocolVersion"`
		} `json:"result"`
	}
	if json.Unmarshal(answer, &r) == nil && r.Result.ProtocolVersion != "" {
		b.mu.Lock()
		b.version = r.Result.ProtocolVersion
		b.mu.Unlock()
	}
}

// writeLine writes one JSON-RPC message as one line of stdout.
func (b *stdioBridge) writeLine(msg []byte) {
	var compact bytes.Buffer
	if json.Compact(&compact, msg) != nil {
		return
	}
	compact.WriteByte('\n')
	b.outMu.Lock()
	defer b.outMu.Unlock()
	_, _ = b.out.Write(compact.Bytes())
}

// replyError answers a request the server could not take with a JSON-RPC error, so the client
// is not left waiting; notifications get no answer.
func (b *stdioBridge) replyError(msg []byte, err error) {
	var req struct {
		ID json.RawMessage `json:"id"`
	}
	if json.Unmarshal(msg, &req) != nil || len(req.ID) == 0 || string(req.ID) == "null" {
		return
	}
	out, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": req.ID,
		"error": map[string]any{"code": -32000, "message": err.Error()}})
	b.writeLine(out)
}

// endSession tells the server the client is gone, freeing the session's badge.
func (b *stdioBridge) endSession() {
	if b.sessionID() == "" {
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodDelete, b.opts.URL, nil)
	if err != nil {
		return
	}
	b.setHeaders(req)
	if resp, err := b.http.Do(req); err == nil {
		resp.Body.Close()
	}
}

// listenRetry spaces reconnections of the GET stream.
const listenRetry = time.Second

// listen copies the session's GET stream to stdout until ctx ends, reconnecting when it breaks,
// following the session when it is renewed. A server that offers no GET stream (405) is not
// asked again.
func (b *stdioBridge) listen(ctx context.Context) {
	for ctx.Err() == nil {
		req, err := http.NewRequestWithContext(ctx, http.MethodGet, b.opts.URL, nil)
		if err != nil {
			return
		}
		b.setHeaders(req)
		req.Header.Set("Accept", "text/event-stream")
		if resp, err := b.http.Do(req); err == nil {
			if resp.StatusCode == http.StatusMethodNotAllowed {
				resp.Body.Close()
				return
			}
			if resp.StatusCode == http.StatusOK {
				_ = readSSE(resp.Body, b.writeLine)
			}
			resp.Body.Close()
		}
		select {
		case <-ctx.Done():
		case <-time.After(listenRetry):
		}
	}
}

// readSSE hands the data of each server-sent event to emit.
func readSSE(r io.Reader, emit func([]byte)) error {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64<<10), maxStdioMessage)
	var data []byte
	for sc.Scan() {
		line := sc.Bytes()
		switch {
		case len(line) == 0:
			if len(bytes.TrimSpace(data)) > 0 {
				emit(data)
			}
			data = nil
		case bytes.HasPrefix(line, []byte("data:")):
			if data != nil {
				data = append(data, '\n')
			}
			data = append(data, bytes.TrimPrefix(bytes.TrimPrefix(line, []byte("data:")), []byte(" "))...)
		}
	}
	if len(bytes.TrimSpace(data)) > 0 {
		emit(data)
	}
	return sc.Err()
}

// serverMessage pulls the message out of a JSON-RPC or REST error body.
func serverMessage(body []byte) string {
	var e struct {
		Error struct {
			Message string `json:"message"`
		} `json:"error"`
	}
	if json.Unmarshal(body, &e) == nil && e.Error.Message != "" {
		return e.Error.Message
	}
	return strings.TrimSpace(string(body))
}

// isRequest reports whether msg expects an answer (it has an id).
func isRequest(msg []byte) bool {
	var m struct {
		ID json.RawMessage `json:"id"`
	}
	return json.Unmarshal(msg, &m) == nil && len(m.ID) > 0 && string(m.ID) != "null"
}

func isInitialize(msg []byte) bool { return jsonMethod(msg) == "initialize" }

func isInitializedNote(msg []byte) bool { return jsonMethod(msg) == "notifications/initialized" }

func jsonMethod(msg []byte) string {
	if !bytes.Contains(msg, []byte(`"initialize`)) && !bytes.Contains(msg, []byte(`initialized"`)) {
		return ""
	}
	var m struct {
		Method string `json:"method"`
	}
	_ = json.Unmarshal(msg, &m)
	return m.Method
}
