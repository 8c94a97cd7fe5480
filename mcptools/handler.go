package mcptools

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"strings"
	"sync"
	"time"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"
	"go.opentelemetry.io/otel/trace"

	"github.com/agent-deck/agent-deck/backend"
	"github.com/agent-deck/agent-deck/backend/core"
)

// SessionProtocolVersions are the MCP versions the endpoint negotiates: the session-based ones.
// Newer, stateless versions have no session to bind a deck to.
var SessionProtocolVersions = []string{"2025-11-25", "2025-06-18", "2025-03-26"}

// Options configure the MCP endpoint.
type Options struct {
	// Profile is the widest tool profile any connection gets, one of backend.Profiles;
	// empty means backend.DefaultProfile (AGENT_DECK_MCP_TOOL_PROFILE).
	Profile string
	// Logger receives tool-call and failure logs (never argument values); nil discards them.
	Logger *slog.Logger
	// IdleTimeout is how long this process keeps a session's transport state in memory after
	// the session's last request here ended (default DefaultTransportLinger; keeper.go). Session
	// rows, and so bindings, live on in Postgres regardless.
	IdleTimeout time.Duration
	// Version is reported as the server version at initialize.
	Version string
	// MaxBodyBytes caps one request body (default 8 MiB).
	MaxBodyBytes int64
	// Origins decides which browser origins may call /mcp; the zero value accepts local ones.
	Origins backend.OriginPolicy
	// Tracer makes a span of every tool call; nil traces nothing (tracing.go).
	Tracer trace.TracerProvider
	// Bus carries clients' answers to Agent Deck's requests, and messages for a session whose
	// stream another replica holds, between the replicas sharing the database (asks.go); nil
	// serves one replica only.
	Bus backend.RelayBus
}

// DefaultTransportLinger is how long a session's transport state stays in memory after its last
// request here ended (keeper.go): long enough for what trails a call's answer and for a client to
// reconnect a dropped stream, short enough that idle sessions cost this process next to nothing.
const DefaultTransportLinger = 30 * time.Second

// Handler is the /mcp endpoint: Streamable HTTP with sessions kept in Postgres.
type Handler struct {
	svc       *core.Hub
	log       *slog.Logger
	profile   Profile
	maxBody   int64
	origins   backend.OriginPolicy
	mcp       *server.MCPServer
	http      *server.StreamableHTTPServer
	visible   map[visibility]map[string]bool
	roots     *rootsBinder
	asks      *asks
	stopBus   context.CancelFunc
	tracer    trace.Tracer
	tracing   bool                              // a tracer provider was given (tracing.go)
	buffers   bufferPool                        // JSON answers held to be sent in one write (response.go)
	fast      map[string]server.ToolHandlerFunc // handlers of fastTools (fastpath.go)
	keep      *keeper                           // which sessions' transport state this replica holds
	stopSweep context.CancelFunc                // ends the keeper's sweep
	streams   sync.Map                          // session id -> *atomic.Int32: its GET streams open here
	inflight  sync.Map                          // tool calls in flight: inflightKey -> *inflightCall

	// readOnlyTools are the resource tools as agent:read lists them: action enums narrowed.
	readOnlyTools map[string]mcp.Tool
	// notes tells this process's sessions what changed for them (notify.go).
	notes *notifier
	// words name the canonical tools as each profile and scope calls them (words.go).
	words map[visibility]sessionWords
}

type visibility struct {
	profile  Profile
	readOnly bool
}

// NewHandler builds the MCP endpoint over svc. Mount it at /mcp; call Close on shutdown.
func NewHandler(svc *core.Hub, opts Options) (*Handler, error) {
	profile := Profile(backend.DefaultProfile)
	if strings.TrimSpace(opts.Profile) != "" {
		p, err := ParseProfile(opts.Profile)
		if err != nil {
			return nil, err
		}
		profile = p
	}
	h := &Handler{svc: svc, log: opts.Logger, profile: profile, maxBody: opts.MaxBodyBytes,
		origins: opts.Origins, visible: map[visibility]map[string]bool{}, tracer: newTracer(opts.Tracer),
		tracing: opts.Tracer != nil,
		fast:    map[string]server.ToolHandlerFunc{}, words: map[visibility]sessionWords{}}
	if h.log == nil {
		h.log = slog.New(slog.DiscardHandler)
	}
	if h.maxBody <= 0 {
		h.maxBody = 8 << 20
	}
	for _, p := range Profiles {
		for _, ro := range []bool{false, true} {
			set := map[string]bool{}
			for _, name := range ToolNames(p, ro) {
				set[name] = true
			}
			h.visible[visibility{p, ro}] = set
			h.words[visibility{p, ro}] = newSessionWords(p, ro)
		}
	}
	h.readOnlyTools = map[string]mcp.Tool{}
	for _, t := range Tools() {
		if v, ok := t.readOnlyView(); ok && t.Tier == TierResource {
			h.readOnlyTools[t.Name] = v.MCPTool()
		}
	}
	h.asks = newAsks(opts.Bus)
	h.roots = newRootsBinder(svc, h.log, h.asks, h.toSession)
	h.notes = newNotifier(h)
	h.mcp = h.newMCPServer(opts.Version)
	h.notes.start()
	svc.OnSessionEnded(h.asks.sessionEnded)
	busCtx, stopBus := context.WithCancel(context.Background())
	h.stopBus = stopBus
	if opts.Bus != nil {
		opts.Bus.ListenRelay(busCtx, h.asks.replica, h.fromBus, h.sessionMessage)
	}
	linger := opts.IdleTimeout
	if linger <= 0 {
		linger = DefaultTransportLinger
	}
	// The keeper, not the transport's own idle sweep, drops sessions' state: it knows which
	// sessions have a request or a stream open here.
	h.keep = newKeeper(linger, h.dropLocal)
	h.http = server.NewStreamableHTTPServer(h.mcp,
		server.WithSessionIdManagerResolver(sessionResolver{h: h}),
		server.WithStreamableHTTPProtocolVersions(SessionProtocolVersions...),
		server.WithEventStore(newEventStore(eventsPerSession)),
		server.WithHTTPContextFunc(h.httpContext),
		server.WithStreamableHTTPLogger(h.log),
		// prepare applies the deck's own Host rule (OriginPolicy.CheckHost) to every request,
		// which also lets the public names of --allow-origin through.
		server.WithDisableLocalhostProtection(true),
	)
	keepCtx, stopSweep := context.WithCancel(context.Background())
	h.stopSweep = stopSweep
	go h.keep.run(keepCtx)
	return h, nil
}

// newMCPServer registers every tool of the registry once; the tool filter decides per request
// which of them a connection sees.
func (h *Handler) newMCPServer(version string) *server.MCPServer {
	if version == "" {
		version = "dev"
	}
	hooks := &server.Hooks{}
	hooks.AddOnRequestInitialization(func(ctx context.Context, _ any, _ any) error {
		if st := stateFrom(ctx); st != nil && st.openErr != nil {
			return errors.New(h.safeMessage(ctx, st.openErr))
		}
		return nil
	})
	hooks.AddAfterInitialize(func(ctx context.Context, _ any, _ *mcp.InitializeRequest, res *mcp.InitializeResult) {
		if st := stateFrom(ctx); st != nil && res != nil {
			res.Instructions = instructionsFor(st.effectiveProfile())
		}
	})
	hooks.AddAfterSetLevel(func(ctx context.Context, _ any, req *mcp.SetLevelRequest, _ *mcp.EmptyResult) {
		// Kept in the session row, so every replica relays log messages at this level.
		if id := sessionIDFrom(ctx); id != "" {
			if err := h.svc.SetSessionLogLevel(ctx, id, string(req.Params.Level)); err != nil {
				h.log.WarnContext(ctx, "a session's log level could not be recorded", "code", backend.ErrorCode(err))
			}
		}
	})
	h.notes.track(hooks)
	s := server.NewMCPServer("agent-deck", version,
		server.WithToolCapabilities(true), // projected tools change with the deck (notify.go)
		// A bound session's resources, prompts and completions are answered before the
		// transport (catalog.go); their lists change with the deck (notify.go).
		server.WithResourceCapabilities(true, true),
		server.WithPromptCapabilities(true),
		server.WithCompletions(),
		server.WithLogging(),
		server.WithInstructions(Instructions),
		server.WithToolFilter(h.filterTools),
		server.WithHooks(hooks),
	)
	for _, spec := range Tools() {
		handler := h.toolHandler(spec)
		s.AddTool(spec.MCPTool(), handler)
		if fastTools[spec.Name] {
			h.fast[spec.Name] = handler
		}
	}
	h.roots.register(s)
	return s
}

// Close drops this process's in-memory session state and stops its sweeper. Session rows stay:
// clients continue on the next start or on another replica.
func (h *Handler) Close(ctx context.Context) error {
	defer h.stopBus()
	defer h.stopSweep()
	defer h.roots.close()
	defer h.notes.close()
	return h.http.Shutdown(ctx)
}

// filterTools keeps the tools of the connection's profile, minus write tools under a read-only
// scope. A tool called anyway still reaches its handler, which refuses one outside the profile
// with the profile that has it (profilegate.go); the Service refuses a write under a read-only
// scope with a FORBIDDEN error that says which scope is needed.
func (h *Handler) filterTools(ctx context.Context, tools []mcp.Tool) []mcp.Tool {
	p, readOnly := h.profile, false
	if st := stateFrom(ctx); st != nil {
		if st.method == string(mcp.MethodToolsCall) {
			return tools
		}
		p = st.effectiveProfile()
		readOnly = !st.actor.Scope.CanWrite() && st.method != string(mcp.MethodToolsCall)
	}
	vis := h.visible[visibility{p, readOnly}]
	var projected []mcp.Tool
	if st := stateFrom(ctx); st != nil && st.method == string(mcp.MethodToolsList) {
		projected = h.projectedTools(ctx, st)
	}
	if allVisible(tools, vis) && !readOnly && len(projected) == 0 {
		return tools // the transport filters the one tool of every call: keep that free
	}
	out := make([]mcp.Tool, 0, len(tools)+len(projected))
	for _, t := range tools {
		if vis[t.Name] {
			if n, ok := h.readOnlyTools[t.Name]; ok && readOnly {
				t = n
			}
			out = append(out, t)
		}
	}
	return append(out, projected...)
}

// httpContext hands the session looked up for this request to the Service, so bound-deck
// methods do not read it again.
func (h *Handler) httpContext(ctx context.Context, _ *http.Request) context.Context {
	if st := stateFrom(ctx); st != nil && st.session != nil {
		h.restore(ctx, st)
		ctx = core.WithSession(ctx, *st.session)
	}
	return ctx
}

// toolHandler decodes a call's arguments, runs the tool and renders its result; every failure,
// a panic included, becomes an isError result with a coded JSON body.
func (h *Handler) toolHandler(spec ToolSpec) server.ToolHandlerFunc {
	return func(ctx context.Context, req mcp.CallToolRequest) (res *mcp.CallToolResult, err error) {
		start := time.Now()
		ctx, endSpan := h.toolSpan(ctx, spec.Name)
		defer func() { endSpan(res) }() // after the recover below has set res
		defer func() {
			if p := recover(); p != nil {
				res = errorResult(ctx, h.log, spec.Name, backend.Internal("tool "+spec.Name, fmt.Errorf("panic: %v", p)))
			}
			if h.log.Enabled(ctx, slog.LevelDebug) { // its arguments are built only when it is written
				h.log.DebugContext(ctx, "tool call", "tool", spec.Name, "ms", time.Since(start).Milliseconds(),
					"is_error", res != nil && res.IsError)
			}
		}()
		if st := stateFrom(ctx); st != nil && st.projected && spec.Name == projectedVia {
			// A projected tool's call: a call_service_tool whatever the profile (projected.go).
		} else if err := h.outsideProfile(ctx, &spec); err != nil {
			return errorResult(ctx, h.log, spec.Name, err), nil
		}
		vals, respelled, err := decodeArgs(&spec, rawArguments(req))
		if err != nil {
			return errorResult(ctx, h.log, spec.Name, err), nil
		}
		ctx, untrack := h.trackCall(ctx)
		defer untrack()
		ctx = h.withWords(h.withRelay(ctx, req))
		c := &call{svc: h.svc, sessionID: sessionIDFrom(ctx), spec: &spec, vals: vals, respelled: respelled}
		res = h.runTool(ctx, c)
		if len(c.respelled) > 0 && !res.IsError {
			res.Content = append(res.Content, respelledWarning(spec.Name, c.respelled))
		}
		return res, nil
	}
}

// runTool runs a decoded call and renders its result or its error.
func (h *Handler) runTool(ctx context.Context, c *call) *mcp.CallToolResult {
	out, err := c.spec.run(ctx, c)
	if err != nil {
		return errorResult(ctx, h.log, c.spec.Name, err)
	}
	if r, ok := out.(*mcp.CallToolResult); ok {
		return r
	}
	r, err := jsonResult(out)
	if err != nil {
		return errorResult(ctx, h.log, c.spec.Name, backend.Internal("rendering "+c.spec.Name, err))
	}
	return r
}

func allVisible(tools []mcp.Tool, vis map[string]bool) bool {
	for _, t := range tools {
		if !vis[t.Name] {
			return false
		}
	}
	return true
}

func rawArguments(req mcp.CallToolRequest) json.RawMessage {
	if len(req.Params.RawArguments) > 0 {
		return req.Params.RawArguments
	}
	if req.Params.Arguments == nil {
		return nil
	}
	b, err := json.Marshal(req.Params.Arguments)
	if err != nil {
		return json.RawMessage(`"unencodable"`)
	}
	return b
}

func sessionIDFrom(ctx context.Context) string {
	if st := stateFrom(ctx); st != nil && st.session != nil {
		return st.session.ID
	}
	if cs := server.ClientSessionFromContext(ctx); cs != nil {
		return cs.SessionID()
	}
	return ""
}
