package mcptools

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"net"
	"net/http"
	"strings"

	"github.com/mark3labs/mcp-go/mcp"

	"github.com/agent-deck/agent-deck/backend"
	"github.com/agent-deck/agent-deck/backend/core"
)

// public is an error's public form (backend.Public) for answers outside a tool result; hidden
// failures and outages are logged with the request id.
func (h *Handler) public(ctx context.Context, err error) backend.PublicError {
	id := requestID()
	p := backend.Public(err, id)
	if p.Code == backend.CodeInternal || p.Code == backend.CodeUnavailable {
		h.log.ErrorContext(ctx, "MCP request failed", "code", p.Code, "request_id", id, "error", err)
	}
	return p
}

// safeMessage is the one-line text of an error's public form: code, message and hint.
func (h *Handler) safeMessage(ctx context.Context, err error) string {
	return rpcMessage(h.public(ctx, err))
}

func rpcMessage(p backend.PublicError) string {
	msg := string(p.Code) + ": " + p.Message
	if p.Hint != "" {
		msg += " (" + p.Hint + ")"
	}
	return msg
}

// ServeHTTP authenticates the caller, picks the connection's profile, checks the session for
// every request but initialize, then hands the request to the Streamable HTTP transport.
func (h *Handler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	st, status, err := h.prepare(w, r)
	if err != nil {
		h.writeError(w, r, status, err)
		return
	}
	if st.method == string(mcp.MethodToolsCall) && st.toolName != "" && !h.registered(st.toolName) &&
		!h.projectCall(r, st) {
		h.writeUnknownTool(w, st)
		return
	}
	if st.answerID != "" && st.session != nil && r.Method == http.MethodPost {
		h.takeAnswer(w, r, st)
		return
	}
	ctx := withState(backend.WithActor(r.Context(), st.actor), st)
	if h.serveFast(ctx, w, r, st) || h.serveCatalog(ctx, w, r, st) {
		return
	}
	if st.method == string(mcp.MethodNotificationCancelled) && st.session != nil &&
		!h.cancelInflight(st.session.ID, st.cancelOf) {
		h.cancelElsewhere(ctx, st.session.ID, st.cancelOf)
	}
	began := ""
	st.follow = mayFollow(r, st)
	if st.session != nil {
		began = st.session.ID
		h.keep.begin(began)
	}
	defer func() {
		if st.session != nil { // an initialize learns its session as it ends
			h.keep.end(st.session.ID, began == st.session.ID, st.follow)
		}
	}()
	if r.Method == http.MethodGet && st.session != nil {
		h.beforeStream(ctx, st.session.ID)
		// The session's GET stream: Agent Deck writes on it too (asks.go).
		gw := newJSONResponse(w, &h.buffers)
		defer gw.finish()
		defer h.streaming(st.session.ID, gw)()
		h.roots.streamOpened(ctx, st.session)
		h.http.ServeHTTP(gw, r.WithContext(ctx))
		return
	}
	if r.Method != http.MethodPost {
		h.http.ServeHTTP(w, r.WithContext(ctx)) // DELETE has no body
		return
	}
	jw := newJSONResponse(w, &h.buffers)
	st.stream = jw
	defer jw.finish()
	h.http.ServeHTTP(jw, r.WithContext(ctx))
}

// mayFollow says whether something may follow the request for the session's client, so its
// transport state is worth keeping a while (keeper.go): a GET stream may be resumed; a
// notification that trails a call's answer waits in that state for the session's next request
// (toSession) — a log message, for a session that set a log level (logging/setLevel sets one),
// or progress, for a request with _meta (a progress token). Requests to the client never wait
// there: they go to a stream or through the bus.
func mayFollow(r *http.Request, st *reqState) bool {
	return r.Method == http.MethodGet || st.meta || st.method == string(mcp.MethodSetLogLevel) ||
		(st.session != nil && st.session.LogLevel != "")
}

// prepare builds the request's state; on failure it returns the HTTP status to answer with.
// The token is checked before any byte of the body is read, so an unauthenticated request costs
// no memory. The session row is read while the token is checked: each is a database round trip
// on the path of every call.
func (h *Handler) prepare(w http.ResponseWriter, r *http.Request) (*reqState, int, error) {
	st := &reqState{deckHeader: strings.TrimSpace(r.Header.Get(backend.HeaderDeckID))}
	local, _ := r.Context().Value(http.LocalAddrContextKey).(net.Addr)
	if err := h.origins.CheckHost(r.Host, local); err != nil {
		return nil, http.StatusForbidden, err
	}
	if err := h.origins.Check(r.Header.Get("Origin")); err != nil {
		return nil, http.StatusForbidden, err
	}
	token, ok := bearerToken(r)
	if !ok {
		return nil, http.StatusUnauthorized, backend.Errorf(backend.CodeUnauthenticated, "a token is required").
			WithHint("send Authorization: Bearer <token> (agent-deck token create)")
	}
	lookup := h.lookupSession(r.Context(), r.Header.Get(backend.HeaderMCPSession))
	actor, err := h.svc.Authenticate(r.Context(), token, backend.ActorAgent)
	if err != nil {
		drain(lookup)
		return nil, statusOf(err), err
	}
	st.actor = actor
	if st.profile, err = h.connectionProfile(r); err != nil {
		drain(lookup)
		return nil, http.StatusBadRequest, err
	}
	if r.Method == http.MethodPost {
		if status, err := h.peekBody(w, r, st); err != nil {
			drain(lookup)
			return nil, status, err
		}
	}
	need, err := needsSession(r, st)
	if !need || err != nil {
		drain(lookup)
		if err != nil {
			return nil, http.StatusBadRequest, err
		}
		return st, 0, nil
	}
	res := <-lookup
	if res.err == nil {
		res.err = core.CheckSessionOwner(res.sess, actor)
	}
	if res.err != nil {
		return nil, statusOf(res.err), res.err
	}
	st.session = &res.sess
	return st, 0, nil
}

// drain waits for a session lookup whose answer is not needed; nil is a lookup never started.
func drain(lookup <-chan lookupResult) {
	if lookup != nil {
		<-lookup
	}
}

// bearerToken reads "Authorization: Bearer <token>" (the scheme in any case).
func bearerToken(r *http.Request) (string, bool) {
	scheme, token, ok := strings.Cut(strings.TrimSpace(r.Header.Get("Authorization")), " ")
	token = strings.TrimSpace(token)
	return token, ok && strings.EqualFold(scheme, "Bearer") && token != ""
}

// needsSession reports whether the request must carry a session (every request but initialize,
// a stateless-era probe and methods the transport refuses anyway); a missing id is an error.
func needsSession(r *http.Request, st *reqState) (bool, error) {
	switch {
	case r.Method == http.MethodPost && st.method == string(mcp.MethodInitialize):
		return false, nil
	case r.Method != http.MethodPost && r.Method != http.MethodGet && r.Method != http.MethodDelete:
		return false, nil
	}
	if v := r.Header.Get(backend.HeaderMCPProtocolVersion); v != "" && !containsStr(SessionProtocolVersions, v) {
		// A stateless-era probe (server/discover): the transport answers it with the versions
		// this endpoint supports, and the client falls back to initialize.
		return false, nil
	}
	if r.Header.Get(backend.HeaderMCPSession) == "" {
		return false, backend.Errorf(backend.CodeInvalidArgument, "the %s header is required", backend.HeaderMCPSession).
			WithHint("send initialize first and reuse the session id it returns")
	}
	return true, nil
}

type lookupResult struct {
	sess backend.MCPSession
	err  error
}

// lookupSession starts reading the session row while the token is checked; nil when id is "".
// A session this replica has cached is read inline: a goroutine would cost a hand-off and a
// wake-up per call to save nothing. The read runs as a read-only agent: whatever the token
// turns out to be, it can do no more.
func (h *Handler) lookupSession(ctx context.Context, id string) <-chan lookupResult {
	if id == "" {
		return nil
	}
	out := make(chan lookupResult, 1)
	read := func() {
		ctx := backend.WithActor(ctx, backend.Actor{Scope: backend.ScopeAgentRead, Kind: backend.ActorAgent})
		sess, err := h.svc.LookupSession(ctx, id)
		out <- lookupResult{sess, err}
	}
	if h.svc.SessionCached(id) {
		read()
	} else {
		go read()
	}
	return out
}

// connectionProfile narrows the server's profile by ?profile= and the profile header; a
// connection can ask for less, never for more.
func (h *Handler) connectionProfile(r *http.Request) (Profile, error) {
	p := h.profile
	for _, asked := range []string{r.URL.Query().Get("profile"), r.Header.Get(backend.HeaderProfile)} {
		if strings.TrimSpace(asked) == "" {
			continue
		}
		q, err := ParseProfile(asked)
		if err != nil {
			return "", backend.Errorf(backend.CodeInvalidArgument, "%s", err.Error()).
				WithHint("use ?profile=" + strings.Join(backend.Profiles, "|") + " or omit it")
		}
		p = narrower(p, q)
	}
	return p, nil
}

// peekBody reads the body (bounded), puts it back for the transport, and notes the JSON-RPC
// method and, at initialize, the client's name.
func (h *Handler) peekBody(w http.ResponseWriter, r *http.Request, st *reqState) (int, error) {
	body, err := backend.ReadAnnounced(http.MaxBytesReader(w, r.Body, h.maxBody), r.ContentLength)
	if _, ok := errors.AsType[*http.MaxBytesError](err); ok {
		return http.StatusRequestEntityTooLarge, backend.Errorf(backend.CodeInvalidArgument,
			"the request body is over %d bytes", h.maxBody).
			WithHint("send a smaller request; pass large data by reference (a path or URL)")
	}
	if err != nil {
		return http.StatusBadRequest, backend.Errorf(backend.CodeInvalidArgument,
			"the request body could not be read in time").
			WithHint("send the whole body at once; a slow body is cut off")
	}
	r.Body = io.NopCloser(bytes.NewReader(body))
	st.body = body
	// One reading of the body gives what this endpoint and the fast path need.
	var peek peekMessage
	if t := bytes.TrimSpace(body); len(t) > 0 && t[0] == '{' && peek.read(t) {
		p := &peek.Params
		st.method, st.clientName, st.requestID = peek.Method, p.ClientInfo.Name, peek.ID
		st.meta = p.Meta != nil
		if st.method == string(mcp.MethodInitialize) {
			declared := func(raw json.RawMessage) bool { return len(raw) > 0 && string(raw) != "null" }
			st.caps = backend.ClientCaps{Elicitation: declared(p.Capabilities.Elicitation),
				Sampling: declared(p.Capabilities.Sampling), Roots: declared(p.Capabilities.Roots)}
		}
		if st.method == "" && (peek.Result != nil || peek.Error != nil) {
			var id string
			if json.Unmarshal(peek.ID, &id) == nil {
				if _, ours := replicaOf(id); ours {
					st.answerID, st.answer = id, body
				}
			}
		}
		if st.method == string(mcp.MethodNotificationCancelled) && p.RequestID != nil {
			_ = json.Unmarshal(p.RequestID, &st.cancelOf)
		}
		if st.method == string(mcp.MethodToolsCall) {
			_ = readString(p.Name, &st.toolName)
			// A projected tool (<service>__<tool>) becomes call_service_tool (projected.go).
			if fastTools[st.toolName] || strings.Contains(st.toolName, "__") {
				st.call = &fastCall{jsonrpc: peek.JSONRPC, args: p.Arguments, meta: p.Meta,
					other: peek.Result != nil || peek.Error != nil,
					extra: p.Task != nil || p.InputResponses != nil || p.RequestState != nil}
				readID(peek.ID, &st.call.id)
			}
		}
	}
	return 0, nil
}

// statusOf maps a failure before the transport to its HTTP status (backend's one table).
func statusOf(err error) int {
	return backend.Public(err, "").Status
}

// writeError answers a request the transport never saw with a JSON-RPC error body: the message
// reads as one line, and data carries the same public form as a tool error (code, message,
// hint) for clients that act on it.
func (h *Handler) writeError(w http.ResponseWriter, r *http.Request, status int, err error) {
	if status == http.StatusUnauthorized {
		// The resource metadata URL starts an MCP client's OAuth discovery (RFC 9728 §5.1).
		w.Header().Set("WWW-Authenticate", `Bearer realm="agent-deck", resource_metadata="`+
			backend.ResourceMetadataURL(requestBase(r))+`"`)
	}
	code := -32000
	if status == http.StatusNotFound {
		code = -32001
	}
	p := h.public(r.Context(), err)
	data := map[string]any{"code": p.Code, "message": p.Message}
	if p.Hint != "" {
		data["hint"] = p.Hint
	}
	body, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": nil,
		"error": map[string]any{"code": code, "message": rpcMessage(p), "data": data}})
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_, _ = w.Write(body)
}

// requestBase is the scheme and host the request was sent to: the base of this server's URLs as
// the client sees them.
func requestBase(r *http.Request) string {
	scheme := "http://"
	if r.TLS != nil {
		scheme = "https://"
	}
	return scheme + r.Host
}
