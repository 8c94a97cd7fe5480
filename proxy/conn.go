package proxy

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/agent-deck/agent-deck/backend"
	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/client/transport"
	"github.com/mark3labs/mcp-go/mcp"
)

// errConnClosed is the death of a connection closed on purpose.
var errConnClosed = errors.New("connection closed")

// conn is one live MCP session with a downstream server, shared by every caller of the
// service, whatever their sessions declared. Requests are sent through the transport directly
// so results stay raw JSON.
type conn struct {
	svc   *service
	fp    string
	local bool
	kind  string
	ctx   context.Context
	// cancel ends the connection's context: its streams and any request still running.
	cancel context.CancelFunc

	ready chan struct{}
	err   error // the open failure; valid once ready is closed

	dead      chan struct{}
	deadOnce  sync.Once
	death     error
	closeOnce sync.Once

	// floor knows which agent sessions have calls in flight (floor.go).
	floor floor
	// inbound cancels the agent-side request a downstream's request caused, by its id.
	inboundMu sync.Mutex
	inbound   map[string]context.CancelFunc
	// level is the log level set on the downstream: its index in backend.LogLevels plus one, 0
	// for none.
	level atomic.Int32

	client *client.Client
	tr     transport.Interface
	// version is the protocol version the handshake agreed on.
	version string
	// post, on a Streamable HTTP connection, sends tools/call itself (post.go).
	post  *postable
	child *child
	httpc *http.Client

	openedAt time.Time // set before ready closes; read only once ready

	// listen follows the Streamable HTTP GET stream, on which the downstream announces
	// list_changed between calls (listen.go).
	listen listenState

	// cut holds the ids of stdio answers cut off at the hard cap; streamCut is set when the
	// legacy SSE event stream was.
	cut       cutIDs
	streamCut atomic.Bool
	// waiting maps the id (as JSON) of each stdio request in flight to the budget ticket of its
	// call, which the line answering it is charged to; lineTicket is what stdout charges
	// until then, given back when the connection ends (budget.go).
	waiting    sync.Map
	lineTicket *ticket
	ids        atomic.Int64
	inflight   atomic.Int64
	lastUsed   atomic.Int64
}

func newConn(s *service, t backend.Target, fp string) *conn {
	ctx, cancel := context.WithCancel(s.p.ctx)
	c := &conn{
		svc: s, fp: fp, local: t.Type == backend.ServiceLocal,
		ctx: ctx, cancel: cancel,
		ready: make(chan struct{}), dead: make(chan struct{}),
	}
	c.listen.epoch = &s.epoch
	c.lastUsed.Store(time.Now().UnixNano())
	return c
}

// open connects and completes the MCP handshake within the connect timeout.
func (c *conn) open(t backend.Target) {
	defer close(c.ready)
	timer := time.AfterFunc(c.svc.p.opts.ConnectTimeout, c.cancel)
	var err error
	if c.local {
		err = c.openLocal(t)
	} else {
		err = c.openRemote(t)
	}
	if !timer.Stop() {
		err = errors.Join(errConnectTimeout, err)
	}
	if err != nil {
		c.err = err
		c.svc.openFailed(c, err)
		c.teardown(context.Background())
		return
	}
	c.openedAt = time.Now()
	c.svc.epoch.Add(1) // a new session may serve other definitions: lists read before it are not current
	c.svc.p.log.Debug("downstream connected", "service_id", c.svc.id, "transport", c.kind)
}

// handshake wraps tr in an MCP client and runs initialize, pinned to protocolVersion.
func (c *conn) handshake(ctx context.Context, tr transport.Interface) error {
	c.tr = tr
	c.client = client.NewClient(tr, client.WithProtocolVersion(protocolVersion))
	c.client.OnNotification(c.onNotification)
	if err := c.client.Start(ctx); err != nil {
		return err
	}
	if bi, ok := tr.(transport.BidirectionalInterface); ok {
		bi.SetRequestHandler(c.onRequest)
	}
	req := mcp.InitializeRequest{}
	req.Params.ProtocolVersion = protocolVersion
	req.Params.ClientInfo = mcp.Implementation{Name: "agent-deck", Version: c.svc.p.opts.Version}
	req.Params.Capabilities = c.capabilities()
	res, err := c.client.Initialize(ctx, req)
	if err == nil {
		c.version = res.ProtocolVersion
	}
	return err
}

func (c *conn) onNotification(n mcp.JSONRPCNotification) {
	switch n.Method {
	case string(mcp.MethodNotificationToolsListChanged):
		c.svc.toolsChanged()
	case string(mcp.MethodNotificationProgress):
		c.routeProgress(n)
	case string(mcp.MethodNotificationMessage):
		c.onLogMessage(n)
	case string(mcp.MethodNotificationCancelled):
		c.onCancelled(n)
	}
}

func (c *conn) isReady() bool {
	select {
	case <-c.ready:
		return c.err == nil
	default:
		return false
	}
}

func (c *conn) isDead() bool {
	select {
	case <-c.dead:
		return true
	default:
		return false
	}
}

// markDead records the first reason the connection stopped working.
func (c *conn) markDead(err error) {
	c.deadOnce.Do(func() {
		c.death = err
		close(c.dead)
		if !errors.Is(err, errConnClosed) {
			c.svc.connDied(c, err)
		}
	})
}

// deathSoFar is why the connection stopped working, nil while it still works.
func (c *conn) deathSoFar() error {
	select {
	case <-c.dead:
		return c.death
	default:
		return nil
	}
}

func (c *conn) deathErr() error {
	<-c.dead
	return c.death
}

// release ends one request's use of the connection.
func (c *conn) release() {
	c.lastUsed.Store(time.Now().UnixNano())
	c.inflight.Add(-1)
}

// request sends one JSON-RPC request and returns its raw result. gate, when set, runs last
// before the request is written (after a call's turn on the floor): its error stops the request,
// and it may note in the request's recorder what the request must find (births.go).
func (c *conn) request(ctx context.Context, method string, params any, gate func(*conn, *statusRecorder) error) (json.RawMessage, error) {
	var idBuf [24]byte
	idText := string(strconv.AppendInt(append(idBuf[:0], "adk-"...), c.ids.Add(1), 10))
	id := mcp.NewRequestId(idText)
	if method == "tools/call" {
		r := backend.RelayFrom(ctx)
		leave, err := c.floor.enter(ctx, r, c.svc.talksBack.Load())
		if err != nil {
			return nil, err
		}
		defer leave()
		c.beforeCall(ctx, r)
	}
	var rec statusRecorder
	if gate != nil {
		if err := gate(c, &rec); err != nil {
			return nil, err
		}
	}
	if !c.local {
		ctx = withRecorder(ctx, &rec)
		if method != "tools/call" {
			ctx = withReplayable(ctx) // lists and pings may go out again on a fresh TCP connection
		} else {
			rec.noDial.Store(true) // a call never goes out on a connection its list was not read on
		}
		if method == "tools/call" || method == "tools/list" {
			ctx = rec.traceBirths(ctx) // births.go
		}
	} else if tk := ticketFrom(ctx); tk != nil {
		c.waiting.Store(quote(idText), tk)
		defer c.waiting.Delete(quote(idText))
	}
	req := transport.JSONRPCRequest{JSONRPC: mcp.JSONRPC_VERSION, ID: id, Method: method, Params: params}
	var resp *transport.JSONRPCResponse
	var err error
	if cp, ok := params.(callParams); ok && method == "tools/call" {
		resp, err = c.sendCall(ctx, req, idText, cp)
	} else {
		resp, err = c.tr.SendRequest(ctx, req)
	}
	if err != nil {
		if rec.young.Load() {
			return nil, errRelist // refused before a byte was written (births.go)
		}
		if rec.tooLarge.Load() || c.streamCut.Load() {
			return nil, errResultTooLarge // over HTTP only this answer was cut; the session goes on
		}
		if cerr := ctx.Err(); cerr != nil {
			c.cancelRemote(id, cerr)
			return nil, errors.Join(cerr, err)
		}
		if st := rec.get(); st >= 300 {
			se := &httpStatusError{status: st, err: err}
			if ws := rec.wantScope.Load(); ws != nil {
				se.wantScope = *ws
			}
			return nil, se
		}
		if c.local {
			return nil, c.localFailure(err)
		}
		return nil, err
	}
	if !answers(resp, idText, rec.get()) {
		// The answer of another request: nothing in it belongs to this call.
		return nil, errWrongID
	}
	if resp.Error != nil {
		if resp.Error.Code == codeResultTooLarge && c.cut.take(quote(idText)) {
			return nil, errResultTooLarge
		}
		if ws := rec.wantScope.Load(); ws != nil { // a 403 insufficient_scope with a JSON-RPC body
			return nil, &httpStatusError{status: rec.get(), err: &rpcError{code: resp.Error.Code, message: resp.Error.Message}, wantScope: *ws}
		}
		return nil, &rpcError{code: resp.Error.Code, message: resp.Error.Message}
	}
	return resp.Result, nil
}

// answers reports whether resp answers the request idText. A result must carry the request's
// id; an error may also carry none (JSON-RPC's null id, for a request the server could not
// read), and the error body of an HTTP refusal (status, 300 or more) is the refusal's whatever
// its id.
func answers(resp *transport.JSONRPCResponse, idText string, status int) bool {
	if got, ok := resp.ID.Value().(string); ok && got == idText {
		return true
	}
	return resp.Error != nil && (resp.ID.IsNil() || status >= 300)
}

// claimTicket is the budget ticket of the call waiting for the answer with this id (as JSON).
func (c *conn) claimTicket(rawID string) *ticket {
	tk, _ := c.waiting.Load(rawID)
	t, _ := tk.(*ticket)
	return t
}

// localFailure explains a failed stdio request: almost always the server exited.
func (c *conn) localFailure(err error) error {
	c.markDead(&exitedError{state: c.child.stateAfterEOF()})
	return errors.Join(c.deathErr(), err)
}

// cancelRemote tells the downstream to stop working on a request the caller gave up on.
func (c *conn) cancelRemote(id mcp.RequestId, reason error) {
	if c.isDead() {
		return
	}
	n := mcp.JSONRPCNotification{
		JSONRPC: mcp.JSONRPC_VERSION,
		Notification: mcp.Notification{
			Method: string(mcp.MethodNotificationCancelled),
			Params: mcp.NotificationParams{AdditionalFields: map[string]any{
				"requestId": id.Value(), "reason": reason.Error(),
			}},
		},
	}
	c.svc.p.goOwned(func() {
		ctx, cancel := context.WithTimeout(c.ctx, 2*time.Second)
		defer cancel()
		_ = c.tr.SendNotification(ctx, n)
	})
}

// shutdown closes the session and stops a local server with its process group. It is safe to
// call more than once and from any goroutine; an open still in progress is aborted first.
func (c *conn) shutdown(ctx context.Context) {
	c.cancel()
	<-c.ready // open ends promptly once its context is cancelled
	c.teardown(ctx)
}

// teardown releases what open built; only the opening goroutine, or one that waited for
// ready, may call it.
func (c *conn) teardown(ctx context.Context) {
	c.closeOnce.Do(func() {
		c.markDead(errConnClosed)
		defer c.lineTicket.release() // a line cut short by the end holds nothing any more
		if c.local {
			if c.child != nil {
				// Closing the transport closes the server's stdin, and a server may exit of that
				// before stop begins: the stop starts here.
				c.child.stopping.Store(true)
			}
			if c.tr != nil {
				_ = c.tr.Close()
			}
			c.cancel()
			if c.child != nil {
				c.child.stop(ctx)
			}
			return
		}
		if c.client != nil {
			done := make(chan struct{})
			go func() { _ = c.client.Close(); close(done) }()
			select {
			case <-done:
			case <-ctx.Done():
			case <-time.After(2 * time.Second):
			}
		}
		c.cancel()
		if c.httpc != nil {
			c.httpc.CloseIdleConnections()
		}
	})
}
