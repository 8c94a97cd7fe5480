package mcptools

import (
	"context"
	"log/slog"
	"net/url"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

	"github.com/agent-deck/agent-deck/backend"
)

// rootsTimeout bounds one wait for a client's roots/list answer: the request reaches the client
// only over its standalone GET stream, which a client may never open.
const rootsTimeout = 30 * time.Second

// notifyGrace bounds the wait for the request that carried the initialized notification to end.
const notifyGrace = time.Second

// rootsBinder binds sessions to the deck their client's workspace roots name. When a client that
// declared the roots capability finishes initializing (or says its roots changed), it asks the
// client for its roots in a goroutine it owns, and binds the session if it has no deck yet.
type rootsBinder struct {
	svc    *backend.Service
	mcp    *server.MCPServer
	log    *slog.Logger
	ctx    context.Context
	cancel context.CancelFunc
	mu     sync.Mutex
	closed bool
	wg     sync.WaitGroup
}

func newRootsBinder(svc *backend.Service, log *slog.Logger) *rootsBinder {
	ctx, cancel := context.WithCancel(context.Background())
	return &rootsBinder{svc: svc, log: log, ctx: ctx, cancel: cancel}
}

// register hooks the binder to the notifications that start it.
func (r *rootsBinder) register(s *server.MCPServer) {
	r.mcp = s
	s.AddNotificationHandler(string(mcp.MethodNotificationInitialized), r.ask)
	s.AddNotificationHandler(mcp.MethodNotificationRootsListChanged, r.ask)
}

// ask starts asking the client of ctx's session for its roots, when it declared the capability.
func (r *rootsBinder) ask(ctx context.Context, n mcp.JSONRPCNotification) {
	cs := server.ClientSessionFromContext(ctx)
	info, ok := cs.(server.SessionWithClientInfo)
	if !ok || info.GetClientCapabilities().Roots == nil {
		return
	}
	sessionID := sessionIDFrom(ctx)
	if sessionID == "" {
		return
	}
	// The notification's request ends now; the question outlives it, carrying its values (the
	// caller's actor and session) until the binder closes or the client is too slow.
	base := context.WithoutCancel(ctx)
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.closed {
		return
	}
	// Ask once the notification's own request has ended: asked while that POST is still open,
	// mcp-go writes the question onto the POST's stream, which closes with the 202 and loses it;
	// asked after, it goes out on the client's GET stream. A context that never ends (stdio)
	// waits notifyGrace.
	reqDone := ctx.Done()
	r.wg.Add(1)
	go func() {
		defer r.wg.Done()
		wait := time.NewTimer(notifyGrace)
		defer wait.Stop()
		select {
		case <-reqDone:
		case <-wait.C:
		case <-r.ctx.Done():
			return
		}
		ctx, cancel := context.WithTimeout(base, rootsTimeout)
		defer cancel()
		stop := context.AfterFunc(r.ctx, cancel)
		defer stop()
		r.bind(ctx, sessionID, n.Method)
	}()
}

// bind asks for the roots and hands the usable ones to the core.
func (r *rootsBinder) bind(ctx context.Context, sessionID, why string) {
	res, err := r.mcp.RequestRoots(ctx, mcp.ListRootsRequest{})
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
