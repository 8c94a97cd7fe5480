package mcptools

import (
	"context"
	"encoding/json"
	"log/slog"
	"net/url"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

	"github.com/agent-deck/agent-deck/backend"
	"github.com/agent-deck/agent-deck/backend/core"
)

// rootsTimeout bounds one wait for a client's roots/list answer: the request reaches the client
// only over one of its streams, which a client may never open.
const rootsTimeout = 30 * time.Second

// rootsBinder binds sessions to the deck their client's workspace roots name. When a client that
// declared the roots capability opens its GET stream while the session has no deck, or says its
// roots changed, it asks the client for its roots in a goroutine it owns, and binds the session
// if it has no deck yet. The question goes out on the session's GET stream, wherever it is open,
// and the answer may reach any replica (asks.go).
type rootsBinder struct {
	svc  *core.Hub
	mcp  *server.MCPServer
	log  *slog.Logger
	asks *asks
	// send sends a message to a session's client outside any call (Handler.toSession).
	send   func(ctx context.Context, session string, msg []byte)
	ctx    context.Context
	cancel context.CancelFunc
	mu     sync.Mutex
	closed bool
	wg     sync.WaitGroup
}

func newRootsBinder(svc *core.Hub, log *slog.Logger, asks *asks,
	send func(ctx context.Context, session string, msg []byte)) *rootsBinder {
	ctx, cancel := context.WithCancel(context.Background())
	return &rootsBinder{svc: svc, log: log, asks: asks, send: send, ctx: ctx, cancel: cancel}
}

// streamOpened asks the client of a session that opened its GET stream, when it declared roots
// and the session has no deck yet: the question goes out on that stream.
func (r *rootsBinder) streamOpened(ctx context.Context, sess *backend.MCPSession) {
	if sess.Caps.Roots && sess.DeckID == "" {
		r.start(ctx, sess.ID, "stream opened")
	}
}

// register hooks the binder to the notification that starts it again.
func (r *rootsBinder) register(s *server.MCPServer) {
	r.mcp = s
	s.AddNotificationHandler(mcp.MethodNotificationRootsListChanged, r.ask)
}

// ask starts asking the client of ctx's session for its roots, when it declared the capability.
func (r *rootsBinder) ask(ctx context.Context, n mcp.JSONRPCNotification) {
	st := stateFrom(ctx)
	if st == nil || st.session == nil || !st.session.Caps.Roots {
		return
	}
	r.start(ctx, st.session.ID, n.Method)
}

// start asks in a goroutine of the binder's own.
func (r *rootsBinder) start(ctx context.Context, sessionID, why string) {
	// The request ends now; the question outlives it, carrying its values (the caller's actor and
	// session) until the binder closes or the client is too slow.
	base := context.WithoutCancel(ctx)
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.closed {
		return
	}
	r.wg.Add(1)
	go func() {
		defer r.wg.Done()
		ctx, cancel := context.WithTimeout(base, rootsTimeout)
		defer cancel()
		stop := context.AfterFunc(r.ctx, cancel)
		defer stop()
		r.bind(ctx, sessionID, why)
	}()
}

// rootsAttempt bounds one question: a question sent before the client opened a stream to take
// it is asked again, until rootsTimeout.
const rootsAttempt = 3 * time.Second

// askRoots asks the client for its roots.
func (r *rootsBinder) askRoots(ctx context.Context, sessionID string) (*mcp.ListRootsResult, error) {
	for {
		actx, cancel := context.WithTimeout(ctx, rootsAttempt)
		raw, err := r.asks.ask(actx, sessionID, func(id string) error {
			msg, err := json.Marshal(askRequest{JSONRPC: mcp.JSONRPC_VERSION, ID: id, Method: backend.MethodRoots})
			if err == nil {
				r.send(actx, sessionID, msg)
			}
			return err
		})
		cancel()
		if err == nil {
			var res mcp.ListRootsResult
			if err := json.Unmarshal(raw, &res); err != nil {
				return nil, err
			}
			return &res, nil
		}
		if ctx.Err() != nil {
			return nil, err
		}
		select { // a client that answers with an error is not asked in a tight loop
		case <-ctx.Done():
			return nil, ctx.Err()
		case <-time.After(250 * time.Millisecond):
		}
	}
}

// bind asks for the roots and hands the usable ones to the core.
func (r *rootsBinder) bind(ctx context.Context, sessionID, why string) {
	res, err := r.askRoots(ctx, sessionID)
	if err != nil {
		r.log.DebugContext(ctx, "the client did not list its roots", "session_id", sessionID, "after", why,
			"error", err)
		return
	}
	var paths []string
	for _, root := range res.Roots {
		p, ok := rootPath(root.URI)
		if !ok {
			r.log.DebugContext(ctx, "ignoring a root that is not an absolute file:// URI", "session_id", sessionID,
				"uri", clipRoot(root.URI))
			continue
		}
		paths = append(paths, p)
	}
	b, err := r.svc.BindFromRoots(ctx, sessionID, paths)
	if err != nil {
		r.log.DebugContext(ctx, "binding a session from its roots failed", "session_id", sessionID,
			"code", backend.ErrorCode(err))
		return
	}
	if b.BoundNow {
		r.log.InfoContext(ctx, "session bound from its workspace root", "session_id", sessionID,
			"deck", b.DeckName, "root", b.Root, "source", b.Source)
		return
	}
	r.log.DebugContext(ctx, "roots left the session as it was: bound already, or no root names a deck",
		"session_id", sessionID, "bound", b.Bound)
}

// rootPath turns a file:// URI into an absolute path; anything else is not a workspace.
func rootPath(uri string) (string, bool) {
	u, err := url.Parse(strings.TrimSpace(uri))
	if err != nil || !strings.EqualFold(u.Scheme, "file") || u.Path == "" {
		return "", false
	}
	if u.Host != "" && !strings.EqualFold(u.Host, "localhost") {
		return "", false
	}
	p := u.Path
	// file:///C:/work is a Windows drive path: drop the slash before the drive letter.
	if len(p) >= 3 && p[0] == '/' && p[2] == ':' {
		p = p[1:]
	}
	if !strings.HasPrefix(p, "/") && !(len(p) >= 2 && p[1] == ':') {
		return "", false
	}
	if p != "/" {
		p = strings.TrimSuffix(filepath.ToSlash(p), "/")
	}
	return p, true
}

func clipRoot(s string) string {
	if len(s) > 200 {
		return s[:200] + "…"
	}
	return s
}

// close stops every pending question and waits for the goroutines asking them.
func (r *rootsBinder) close() {
	r.mu.Lock()
	r.closed = true
	r.mu.Unlock()
	r.cancel()
	r.wg.Wait()
}
