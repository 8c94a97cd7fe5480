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
// only over its standalone GET stream, which a client may never open.
const rootsTimeout = 30 * time.Second

// rootsBinder binds sessions to the deck their client's workspace roots name. When mcp-go
// registers a session whose client declared the roots capability (at initialize, or when the
// client opens its GET stream on this replica) and the session has no deck yet, or when a client
// says its roots changed, it asks the client for its roots in a goroutine it owns, and binds the
// session if it has no deck yet. The question travels as asks.go describes, so the answer may
// reach any replica.
type rootsBinder struct {
	svc    *core.Hub
	mcp    *server.MCPServer
	log    *slog.Logger
	asks   *asks
	ctx    context.Context
	cancel context.CancelFunc
	mu     sync.Mutex
	closed bool
	wg     sync.WaitGroup
	// live are the sessions mcp-go registered (the client's GET stream, or its initialize):
	// only a registered session's roots question reaches the client. changed is closed and
	// replaced whenever live grows.
	live    map[string]server.ClientSession
	changed chan struct{}
}

func newRootsBinder(svc *core.Hub, log *slog.Logger, asks *asks) *rootsBinder {
	ctx, cancel := context.WithCancel(context.Background())
	return &rootsBinder{svc: svc, log: log, asks: asks, ctx: ctx, cancel: cancel,
		live: map[string]server.ClientSession{}, changed: make(chan struct{})}
}

// track follows the sessions mcp-go registers and unregisters, and asks a registered session
// with roots and no deck for its roots.
func (r *rootsBinder) track(hooks *server.Hooks) {
	hooks.AddOnRegisterSession(func(ctx context.Context, cs server.ClientSession) {
		r.mu.Lock()
		r.live[cs.SessionID()] = cs
		close(r.changed)
		r.changed = make(chan struct{})
		r.mu.Unlock()
		if st := stateFrom(ctx); st != nil && st.session != nil && st.session.ID == cs.SessionID() &&
			st.session.Caps.Roots && st.session.DeckID == "" {
			r.start(ctx, cs.SessionID(), "registered")
		}
	})
	hooks.AddOnUnregisterSession(func(_ context.Context, cs server.ClientSession) {
		r.mu.Lock()
		defer r.mu.Unlock()
		delete(r.live, cs.SessionID())
	})
}

// registered waits until mcp-go has registered the session. A POST that comes before the
// client's GET stream is handled on a throwaway copy of the session: a roots question asked
// through that copy waits on a queue no stream reads, so the question must go through the
// registered session, however late the client opens its stream.
func (r *rootsBinder) registered(ctx context.Context, sessionID string) (server.ClientSession, error) {
	for {
		r.mu.Lock()
		cs, ok := r.live[sessionID]
		changed := r.changed
		r.mu.Unlock()
		if ok {
			return cs, nil
		}
		select {
		case <-changed:
		case <-ctx.Done():
			return nil, ctx.Err()
		}
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

// rootsAttempt bounds one question: a question that went to a session copy no stream reads is
// asked again through the session registered then, until rootsTimeout.
const rootsAttempt = 3 * time.Second

// askRegistered asks the client for its roots through the session mcp-go registered.
func (r *rootsBinder) askRegistered(ctx context.Context, sessionID string) (*mcp.ListRootsResult, error) {
	for {
		cs, err := r.registered(ctx, sessionID)
		if err != nil {
			return nil, err
		}
		actx, cancel := context.WithTimeout(ctx, rootsAttempt)
		raw, err := r.asks.ask(actx, sessionID, func(id string) error {
			return r.mcp.SendNotificationToClient(r.mcp.WithContext(actx, cs), askMethod,
				map[string]any{"id": id, "method": backend.MethodRoots})
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
	res, err := r.askRegistered(ctx, sessionID)
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
