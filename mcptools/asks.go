package mcptools

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/mark3labs/mcp-go/mcp"

	"github.com/agent-deck/agent-deck/backend"
)

// This file is how Agent Deck asks an agent's client something on a downstream's behalf
// (elicitation/create, sampling/createMessage, roots/list) and how the answer finds its way
// back, whichever replica the client sends it to.
//
// The request goes out on the stream of the call it serves (the client's POST), so a client
// needs no GET stream for it; one that serves no call (the roots a session is bound by,
// roots.go) goes out on the session's GET stream, on this replica or, through the bus, on the
// one that holds it. Agent Deck writes them itself (jsonResponse.send), beside mcp-go. Its id
// names this replica: "adk-<replica>-<n>". The client's answer is a POST of a JSON-RPC
// response with that id. The replica that receives it hands it to the waiting request when the
// id is its own, and otherwise leaves it in PostgreSQL for the replica the id names
// (backend.RelayBus), which takes it. The answer must come in the session the request was
// sent to: an answer posted in another session is dropped.

// askPrefix starts the id of every request Agent Deck sends a client.
const askPrefix = "adk-"

// errSessionEnded refuses a downstream's request whose agent session ended while it waited.
var errSessionEnded = backend.RelayRefusal("the agent session ended before its client answered")

// asks are the requests this replica sent to clients and awaits answers to.
type asks struct {
	replica string
	seq     atomic.Int64
	bus     backend.RelayBus

	mu      sync.Mutex
	pending map[string]*pendingAsk
}

type pendingAsk struct {
	session string
	answer  chan json.RawMessage // the client's JSON-RPC response, buffered
	gone    chan struct{}        // closed when the session ends
}

func newAsks(bus backend.RelayBus) *asks {
	var b [6]byte
	_, _ = rand.Read(b[:])
	return &asks{replica: hex.EncodeToString(b[:]), bus: bus, pending: map[string]*pendingAsk{}}
}

// ask sends a request to session's client with send (given the request's id) and waits for the
// answer's result. A JSON-RPC error from the client becomes a refusal quoting it.
func (a *asks) ask(ctx context.Context, session string, send func(id string) error) (json.RawMessage, error) {
	id := askPrefix + a.replica + "-" + strconv.FormatInt(a.seq.Add(1), 10)
	p := &pendingAsk{session: session, answer: make(chan json.RawMessage, 1), gone: make(chan struct{})}
	a.mu.Lock()
	a.pending[id] = p
	a.mu.Unlock()
	defer func() {
		a.mu.Lock()
		delete(a.pending, id)
		a.mu.Unlock()
	}()
	if err := send(id); err != nil {
		return nil, backend.RelayRefusal("the agent's client could not be reached: it has no stream open")
	}
	select {
	case body := <-p.answer:
		return answerResult(body)
	case <-p.gone:
		return nil, errSessionEnded
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}

// answerResult is the result of a client's JSON-RPC response, or its error as a refusal.
func answerResult(body json.RawMessage) (json.RawMessage, error) {
	var resp struct {
		Result json.RawMessage `json:"result"`
		Error  *struct {
			Message string `json:"message"`
		} `json:"error"`
	}
	if err := json.Unmarshal(body, &resp); err != nil {
		return nil, backend.RelayRefusal("the agent's client answered with malformed JSON")
	}
	if resp.Error != nil {
		return nil, backend.RelayRefusal("the agent's client refused: " + backend.Clip(resp.Error.Message, 300))
	}
	if len(resp.Result) == 0 {
		return nil, backend.RelayRefusal("the agent's client answered with neither a result nor an error")
	}
	return resp.Result, nil
}

// deliver hands an answer to the request it answers, if this replica waits for it in session.
func (a *asks) deliver(session, id string, body json.RawMessage) bool {
	a.mu.Lock()
	p := a.pending[id]
	if p == nil || p.session != session {
		a.mu.Unlock()
		return false
	}
	delete(a.pending, id)
	a.mu.Unlock()
	p.answer <- body
	return true
}

// sessionEnded refuses every request still waiting for the session's client.
func (a *asks) sessionEnded(session string) {
	a.mu.Lock()
	defer a.mu.Unlock()
	for id, p := range a.pending {
		if p.session == session {
			close(p.gone)
			delete(a.pending, id)
		}
	}
}

// replicaOf is the replica an ask id names; ok is false for ids Agent Deck did not make.
func replicaOf(id string) (string, bool) {
	rest, ok := strings.CutPrefix(id, askPrefix)
	if !ok {
		return "", false
	}
	replica, _, ok := strings.Cut(rest, "-")
	return replica, ok && replica != ""
}

// takeAnswer answers a client's POST of a response to one of Agent Deck's requests: 202, and the
// answer goes to the request, here or on the replica its id names.
func (h *Handler) takeAnswer(w http.ResponseWriter, r *http.Request, st *reqState) {
	id, session := st.answerID, st.session.ID
	replica, _ := replicaOf(id)
	switch {
	case replica == h.asks.replica:
		if !h.asks.deliver(session, id, st.answer) {
			h.log.DebugContext(r.Context(), "an answer nobody here waits for was dropped", "session_id", session)
		}
	case h.asks.bus != nil:
		err := h.asks.bus.PostRelayAnswer(r.Context(), backend.RelayAnswer{Replica: replica, SessionID: session,
			RequestID: id, Body: st.answer})
		if err != nil {
			h.writeError(w, r, http.StatusServiceUnavailable, backend.StoreErr("passing an answer to another replica", err))
			return
		}
	default:
		h.log.DebugContext(r.Context(), "an answer for another replica was dropped: no database to pass it on",
			"session_id", session)
	}
	w.WriteHeader(http.StatusAccepted)
}

// fromBus takes an answer another replica received for one of this replica's requests.
func (h *Handler) fromBus(a backend.RelayAnswer) {
	if !h.asks.deliver(a.SessionID, a.RequestID, a.Body) {
		h.log.Debug("an answer passed on by another replica found no request waiting", "session_id", a.SessionID)
	}
}

// getStreams are the GET streams of one session open on this replica, newest last.
type getStreams struct {
	mu sync.Mutex
	ws []*jsonResponse
}

// streaming notes a GET stream of session open on this replica; the returned func ends it.
func (h *Handler) streaming(session string, w *jsonResponse) func() {
	v, _ := h.streams.LoadOrStore(session, &getStreams{})
	gs := v.(*getStreams)
	gs.mu.Lock()
	gs.ws = append(gs.ws, w)
	gs.mu.Unlock()
	return func() {
		gs.mu.Lock()
		defer gs.mu.Unlock()
		if i := slices.Index(gs.ws, w); i >= 0 {
			gs.ws = slices.Delete(gs.ws, i, i+1)
		}
	}
}

// sendHere writes msg on the newest GET stream of session open on this replica; false when
// there is none (or it just closed).
func (h *Handler) sendHere(session string, msg []byte) bool {
	v, ok := h.streams.Load(session)
	if !ok {
		return false
	}
	gs := v.(*getStreams)
	gs.mu.Lock()
	ws := slices.Clone(gs.ws)
	gs.mu.Unlock()
	for i := len(ws) - 1; i >= 0; i-- {
		if ws[i].send(msg) == nil {
			return true
		}
	}
	return false
}

// toSession sends a message to session's client outside any call: on its GET stream when this
// replica holds one; else, for a notification, in the session as this replica registered it,
// for the client's next stream here (its next call); else, through the bus, on the GET stream
// another replica holds. With no stream anywhere it is dropped.
func (h *Handler) toSession(ctx context.Context, session string, msg []byte) {
	if h.sendHere(session, msg) {
		return
	}
	var n struct {
		ID     json.RawMessage `json:"id"`
		Method string          `json:"method"`
		Params map[string]any  `json:"params"`
	}
	if json.Unmarshal(msg, &n) == nil && n.ID == nil && n.Method != "" &&
		h.mcp.SendNotificationToSpecificClient(session, n.Method, n.Params) == nil {
		return
	}
	if h.asks.bus == nil {
		return
	}
	// The caller's request may end before the message is passed on.
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 5*time.Second)
	defer cancel()
	if err := h.asks.bus.PostSessionMessage(ctx, session, msg); err != nil {
		h.log.Debug("a message for a session could not be passed to another replica", "error", err)
	}
}

// sessionMessage takes a message another replica passed on for a session: a cancellation of a
// call this replica may run, or a message for the client on the GET stream it may hold.
func (h *Handler) sessionMessage(session string, msg json.RawMessage) {
	var c struct {
		Method string `json:"method"`
		Params struct {
			RequestID any `json:"requestId"`
		} `json:"params"`
	}
	if json.Unmarshal(msg, &c) == nil && c.Method == string(mcp.MethodNotificationCancelled) {
		h.cancelInflight(session, c.Params.RequestID)
		return
	}
	h.sendHere(session, msg)
}

// cancelElsewhere passes a client's cancellation of a call this replica does not run to the
// others: the client may have sent it to any replica.
func (h *Handler) cancelElsewhere(ctx context.Context, session string, id any) {
	if h.asks.bus == nil || id == nil {
		return
	}
	msg, err := json.Marshal(map[string]any{"method": string(mcp.MethodNotificationCancelled),
		"params": map[string]any{"requestId": id}})
	if err != nil {
		return
	}
	if err := h.asks.bus.PostSessionMessage(ctx, session, msg); err != nil {
		h.log.Debug("a cancellation could not be passed to the other replicas", "error", err)
	}
}
