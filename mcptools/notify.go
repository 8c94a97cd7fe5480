package mcptools

import (
	"context"
	"encoding/json"
	"sync"
	"time"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

	"github.com/agent-deck/agent-deck/backend"
	"github.com/agent-deck/agent-deck/backend/core"
)

// The notifier tells the sessions this process holds (registered with mcp-go: their client's
// stream reaches this process) what changed for them: notifications/tools/list_changed when
// their projected tools change (bind, switch, and every change to the deck's services, tool
// settings, pins or projection, or a downstream's own tool list), resources/list_changed and
// prompts/list_changed when the deck's playbooks or services change, and
// notifications/resources/updated when a playbook they subscribed to changes. Every replica
// hears every change (core.Hub.Watch: its own writes and the change feed), and each tells the
// sessions whose streams it holds.

// notifySettle is how long the notifier lets a burst of changes (a transaction's rows, a deck
// import) gather before it looks, so a burst costs one look.
const notifySettle = 20 * time.Millisecond

type notifier struct {
	h      *Handler
	ctx    context.Context
	cancel context.CancelFunc
	done   chan struct{}
	wake   chan struct{}

	mu        sync.Mutex
	playbooks map[string]bool // playbooks changed since the last look
	seen      map[string]seenSurface
}

// seenSurface is what a session was last told it sees; known is false until the notifier has
// looked once (a session registered already bound learns its lists at initialize). A session
// hears of its resource or prompt list only once it has asked for that list: a client that never
// lists them has no use for the news, and each notification turns the session's next plain JSON
// answer into an event stream.
type seenSurface struct {
	core.SessionSurface
	known              bool
	resources, prompts bool
}

func newNotifier(h *Handler) *notifier {
	ctx, cancel := context.WithCancel(context.Background())
	return &notifier{h: h, ctx: ctx, cancel: cancel, done: make(chan struct{}), wake: make(chan struct{}, 1),
		playbooks: map[string]bool{}, seen: map[string]seenSurface{}}
}

// track follows the sessions mcp-go registers and unregisters.
func (n *notifier) track(hooks *server.Hooks) {
	hooks.AddOnRegisterSession(func(ctx context.Context, cs server.ClientSession) { n.registered(cs.SessionID()) })
	hooks.AddOnUnregisterSession(func(_ context.Context, cs server.ClientSession) {
		n.mu.Lock()
		delete(n.seen, cs.SessionID())
		n.mu.Unlock()
	})
}

// start follows the hub's changes until close; the MCP server must exist.
func (n *notifier) start() {
	n.h.svc.Watch(n.changed)
	go n.run()
}

func (n *notifier) close() {
	n.cancel()
	<-n.done
}

// registered notes a new session: unbound, it sees nothing yet, so its first deck is news.
func (n *notifier) registered(id string) {
	sess, err := n.h.svc.PeekSession(n.readCtx(), id)
	n.mu.Lock()
	defer n.mu.Unlock()
	n.seen[id] = seenSurface{known: err == nil && sess.DeckID == ""}
}

// changed records a change and wakes the loop; it never blocks the writer.
func (n *notifier) changed(ch backend.Change) {
	if ch.Table == "playbooks" {
		n.mu.Lock()
		n.playbooks[ch.ID] = true
		n.mu.Unlock()
	}
	select {
	case n.wake <- struct{}{}:
	default:
	}
}

func (n *notifier) run() {
	defer close(n.done)
	for {
		select {
		case <-n.ctx.Done():
			return
		case <-n.wake:
		}
		select {
		case <-n.ctx.Done():
			return
		case <-time.After(notifySettle):
		}
		n.look()
	}
}

// readCtx reads as a read-only agent with no token: the notifier's own lookups.
func (n *notifier) readCtx() context.Context {
	return backend.WithActor(n.ctx, backend.Actor{Scope: backend.ScopeAgentRead, Kind: backend.ActorAgent})
}

// look tells each session of this process what changed for it.
func (n *notifier) look() {
	n.mu.Lock()
	changedPlaybooks := n.playbooks
	n.playbooks = map[string]bool{}
	ids := make([]string, 0, len(n.seen))
	for id := range n.seen {
		ids = append(ids, id)
	}
	n.mu.Unlock()
	for pb := range changedPlaybooks {
		n.playbookUpdated(pb)
	}
	for _, id := range ids {
		if n.ctx.Err() != nil {
			return
		}
		n.lookAt(id)
	}
}

// lookAt compares what a session sees now with what it was last told, and tells it the news.
func (n *notifier) lookAt(id string) {
	ctx, cancel := context.WithTimeout(n.readCtx(), time.Minute)
	defer cancel()
	sess, err := n.h.svc.PeekSession(ctx, id)
	if err != nil {
		return // gone: mcp-go unregisters it in time
	}
	now, err := n.h.svc.SessionSurface(ctx, sess)
	if err != nil {
		n.h.log.Debug("looking at a session's lists failed", "error", backend.ErrorCode(err))
		return
	}
	n.mu.Lock()
	before, ok := n.seen[id]
	if ok {
		n.seen[id] = seenSurface{SessionSurface: now, known: true, resources: before.resources, prompts: before.prompts}
	}
	n.mu.Unlock()
	if !ok || !before.known {
		return
	}
	if now.Tools != before.Tools {
		n.send(id, mcp.MethodNotificationToolsListChanged, nil)
	}
	if now.Resources != before.Resources && before.resources {
		n.send(id, mcp.MethodNotificationResourcesListChanged, nil)
	}
	if now.Prompts != before.Prompts && before.prompts {
		n.send(id, mcp.MethodNotificationPromptsListChanged, nil)
	}
}

// listed notes that a session asked for its resource or prompt list, so it hears when the list
// changes.
func (n *notifier) listed(id string, resources, prompts bool) {
	n.mu.Lock()
	defer n.mu.Unlock()
	if s, ok := n.seen[id]; ok {
		s.resources = s.resources || resources
		s.prompts = s.prompts || prompts
		n.seen[id] = s
	}
}

// playbookUpdated tells the sessions of this process subscribed to a playbook's resource that
// it changed.
func (n *notifier) playbookUpdated(playbookID string) {
	subs, err := n.h.svc.ResourceSubscribers(n.readCtx(), playbookID)
	if err != nil {
		n.h.log.Debug("reading resource subscriptions failed", "error", backend.ErrorCode(err))
		return
	}
	for _, sub := range subs {
		n.mu.Lock()
		_, here := n.seen[sub.SessionID]
		n.mu.Unlock()
		if here {
			n.send(sub.SessionID, mcp.MethodNotificationResourceUpdated, map[string]any{"uri": sub.URI})
		}
	}
}

// send passes a notification to a session's client the way Agent Deck reaches it outside a call
// (Handler.toSession): on its GET stream here, else in its session here, else through the bus.
func (n *notifier) send(sessionID, method string, params map[string]any) {
	msg := map[string]any{"jsonrpc": mcp.JSONRPC_VERSION, "method": method}
	if params != nil {
		msg["params"] = params
	}
	b, err := json.Marshal(msg)
	if err != nil {
		n.h.log.Debug("a notification could not be encoded", "method", method, "error", err)
		return
	}
	n.h.toSession(n.ctx, sessionID, b)
}
