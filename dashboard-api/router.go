// Package dashboardapi is Agent Deck's REST API (/api/v1), used by the dashboard and the CLI.
// Every route is declared once in routes.go together with its OpenAPI metadata; handlers are
// thin adapters over core.Hub, so REST, MCP and the CLI share one code path.
package dashboardapi

import (
	"context"
	"log/slog"
	"net/http"
	"time"

	"github.com/gin-gonic/gin"

	"github.com/agent-deck/agent-deck/backend"
	"github.com/agent-deck/agent-deck/backend/authserver"
	"github.com/agent-deck/agent-deck/backend/core"
)

// Default request body limits. Import bundles carry a whole collection, so they get more room.
const (
	DefaultMaxBodyBytes   int64 = 1 << 20
	DefaultMaxImportBytes int64 = 32 << 20
)

// Options configures the REST router. The composition root builds it once.
type Options struct {
	// Logger receives one structured line per request and the causes of internal errors.
	// nil discards.
	Logger *slog.Logger
	// MaxBodyBytes caps JSON request bodies (default 1 MiB).
	MaxBodyBytes int64
	// MaxImportBytes caps the bundle posted to /api/v1/import (default 32 MiB).
	MaxImportBytes int64
	// Ready adds readiness checks beyond the database (for example the proxy) to /readyz.
	// Optional.
	Ready func(ctx context.Context) error
	// Metrics, when set, is served at GET /metrics, behind bearer auth like the API.
	Metrics http.Handler
	// Pprof, when set, is served at GET /debug/pprof/… to admin tokens only (serve --pprof);
	// unset, those paths are 404.
	Pprof http.Handler
	// Info, when set, answers GET /api/v1/info (any token): what `agent-deck status` shows
	// about the running server (address, database kind, profile). It must hold no secret.
	Info func(ctx context.Context) (map[string]any, error)
	// AuthServer answers the OAuth authorization server's endpoints (/oauth/…, the consent
	// screen's API). Required.
	AuthServer *authserver.Server
	// Origins decides which browser origins may call the API; the zero value accepts local ones.
	Origins backend.OriginPolicy
	// OIDC, when set, lets people sign in to the dashboard with an OpenID Connect provider.
	OIDC *OIDCOptions
}

func (o Options) withDefaults() Options {
	if o.Logger == nil {
		o.Logger = slog.New(slog.DiscardHandler)
	}
	if o.MaxBodyBytes <= 0 {
		o.MaxBodyBytes = DefaultMaxBodyBytes
	}
	if o.MaxImportBytes <= 0 {
		o.MaxImportBytes = DefaultMaxImportBytes
	}
	return o
}

// api holds what every handler needs.
type api struct {
	svc     *core.Hub
	log     *slog.Logger
	opts    Options
	openapi []byte
	// oidc is the OpenID Connect sign-in, nil when Options.OIDC is unset (dashboard_oidc.go).
	oidc *oidcSignIn
}

// NewRouter returns the REST API as an http.Handler: /healthz, /readyz, /api/v1/… and, when
// Options.Metrics is set, /metrics. Mount it at "/". gin stays inside this package.
func NewRouter(svc *core.Hub, opts Options) http.Handler {
	return newEngine(svc, opts)
}

// newEngine builds the gin engine; tests use it to list the registered routes.
func newEngine(svc *core.Hub, opts Options) *gin.Engine {
	return newAPI(svc, opts).engine()
}

func newAPI(svc *core.Hub, opts Options) *api {
	opts = opts.withDefaults()
	a := &api{svc: svc, log: opts.Logger, opts: opts}
	if opts.OIDC != nil {
		a.oidc = &oidcSignIn{opts: *opts.OIDC, client: &http.Client{Timeout: 15 * time.Second}}
	}
	return a
}

// engine registers the route table on a fresh gin engine and renders the OpenAPI document
// from the same table.
func (a *api) engine() *gin.Engine {
	gin.SetMode(gin.ReleaseMode)
	e := gin.New()
	e.RedirectTrailingSlash = false
	e.RedirectFixedPath = false
	e.HandleMethodNotAllowed = true
	// Names may contain "/" when escaped as %2F; route on the raw path, then unescape params.
	e.UseRawPath = true
	e.UnescapePathValues = true
	if err := e.SetTrustedProxies(nil); err != nil {
		panic(err) // nil is always accepted
	}
	e.Use(a.assignRequestID, a.observe, a.checkOrigin)
	e.NoRoute(a.noRoute)
	e.NoMethod(a.noMethod)

	table := a.routes()
	a.openapi = mustJSON(openAPIDocument(table))
	for _, r := range table {
		chain := []gin.HandlerFunc{}
		if !r.public {
			chain = append(chain, a.authenticate)
		}
		chain = append(chain, a.adapt(r))
		e.Handle(r.method, r.path, chain...)
	}
	return e
}

func (a *api) noRoute(c *gin.Context) {
	a.writeError(c, backend.Errorf(backend.CodeNotFound, "no route %s %s", c.Request.Method,
		clipText(c.Request.URL.Path, 200)).
		WithHint("the API lives under /api/v1; GET /api/v1/openapi.json lists every route"))
}

// noMethod answers 405 for a known path with the wrong method (gin has set the Allow header).
// The code is INVALID_ARGUMENT; 405 is the one status outside the error table, because HTTP
// defines it for exactly this case.
func (a *api) noMethod(c *gin.Context) {
	allowed := c.Writer.Header().Get("Allow")
	pub := backend.PublicError{Code: backend.CodeInvalidArgument,
		Message: "method " + c.Request.Method + " is not allowed here; allowed: " + allowed,
		Hint:    "send the request with one of: " + allowed,
		Details: map[string]any{"allowed_methods": allowed}}
	writeProblem(c, problemFor(pub, http.StatusMethodNotAllowed, c.Request.URL.EscapedPath()))
}
