package cli

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"time"

	"github.com/urfave/cli/v2"

	"github.com/agent-deck/agent-deck/backend"
	"github.com/agent-deck/agent-deck/backend/audit"
	"github.com/agent-deck/agent-deck/backend/authserver"
	"github.com/agent-deck/agent-deck/backend/core"
	"github.com/agent-deck/agent-deck/backend/postgres"
	"github.com/agent-deck/agent-deck/backend/postgres/cluster"
	"github.com/agent-deck/agent-deck/backend/ratelimit"
	"github.com/agent-deck/agent-deck/backend/secret"
	"github.com/agent-deck/agent-deck/cli/client"
	dashboardapi "github.com/agent-deck/agent-deck/dashboard-api"
	"github.com/agent-deck/agent-deck/markdown"
	"github.com/agent-deck/agent-deck/mcptools"
	"github.com/agent-deck/agent-deck/migrations"
	"github.com/agent-deck/agent-deck/proxy"
	"github.com/agent-deck/agent-deck/toolsearch"
)

func serveCommand() *cli.Command {
	return &cli.Command{
		Name:  "serve",
		Usage: "run the deck server: MCP at /mcp, REST at /api/v1, on one port",
		Flags: serveFlags(),
		Action: func(c *cli.Context) error {
			cfg := serveConfigFrom(c)
			getenv := func(k string) string {
				if k == envOIDCClientSecret+fileSuffix { // also a flag: --oidc-client-secret-file
					return c.String("oidc-client-secret-file")
				}
				return os.Getenv(k)
			}
			if err := cfg.fromFiles(getenv); err != nil {
				return cli.Exit(err.Error(), 1)
			}
			cfg.Logger = newLogger(c.App.ErrWriter, cfg.LogLevel, cfg.LogFormat)
			// This is the agent-deck binary: local servers are started through its launcher.
			if exe, err := os.Executable(); err == nil {
				cfg.Launcher = []string{exe, launchCommandName}
			}
			srv, err := Start(c.Context, cfg)
			if err != nil {
				return cli.Exit(err.Error(), startExitCode(err))
			}
			<-c.Context.Done()
			ctx, cancel := context.WithTimeout(context.Background(), 15*time.Second)
			defer cancel()
			if err := srv.Close(ctx); err != nil {
				return cli.Exit("shutdown: "+err.Error(), 2)
			}
			return nil
		},
	}
}

// Server is a running deck: everything `serve` started, closed in reverse order.
type Server struct {
	cfg     ServeConfig
	log     *slog.Logger
	url     string
	token   string
	svc     *core.Hub
	auth    *authserver.Server
	metrics *metrics
	tracing tracing
	lock    *homeLock
	dataDir string // the embedded cluster's data directory, "" with an external database
	// bus carries clients' answers and session messages between replicas (the database).
	bus     backend.RelayBus
	closers []closer
}

type closer struct {
	name string
	fn   func(context.Context) error
}

// Start brings up a deck server and returns once it accepts requests. Tests call it directly.
func Start(ctx context.Context, cfg ServeConfig) (srv *Server, err error) {
	if err := cfg.validate(); err != nil {
		return nil, err
	}
	if cfg.Logger == nil {
		cfg.Logger = newLogger(os.Stderr, cfg.LogLevel, cfg.LogFormat)
	}
	// Every logger below derives from this one, so no log line at any level carries a secret
	// the server holds for a service, whoever echoes it.
	redactor := secret.NewRedactor()
	s := &Server{cfg: cfg, log: slog.New(secret.NewRedactHandler(cfg.Logger.Handler(), redactor))}
	defer func() {
		if err != nil {
			cctx, cancel := context.WithTimeout(context.Background(), 15*time.Second)
			defer cancel()
			_ = s.Close(cctx)
		}
	}()
	if err := os.MkdirAll(cfg.Home, 0o700); err != nil {
		return nil, fmt.Errorf("data home %s: %w", cfg.Home, err)
	}
	if s.lock, err = lockHome(cfg.Home); err != nil {
		return nil, err
	}
	s.push("data home lock", func(context.Context) error { s.lock.release(); return nil })
	if err := checkSecretPerms(cfg.Home, cfg.StrictPerms, s.log); err != nil {
		return nil, err
	}
	dbURL, err := s.openDatabase(ctx)
	if err != nil {
		return nil, err
	}
	store, err := postgres.Open(ctx, dbURL)
	if err != nil {
		return nil, fmt.Errorf("open database: %w", err)
	}
	s.push("database pool", func(context.Context) error { store.Close(); return nil })
	s.bus = store

	key, pendingKey, err := loadSecretKey(cfg.Home, cfg.SecretKey)
	if err != nil {
		return nil, err
	}
	defer pendingKey.drop()
	sealer, err := secret.NewSealer(key)
	if err != nil {
		return nil, err
	}
	s.metrics = newMetrics()
	traces, stopTraces, err := newTracing(ctx, cfg.TracerProvider)
	if err != nil {
		return nil, err
	}
	s.tracing = traces
	s.push("tracing", stopTraces)
	var hub *core.Hub // the proxy tells the hub of new downstream tool lists, once it exists
	px := proxy.New(proxy.Options{
		ToolsChanged: func(serviceID string) {
			if hub != nil {
				hub.DownstreamToolsChanged(serviceID)
			}
		},
		ToolsListed: func(serviceID, connKey string, tools []backend.DownstreamTool) {
			if hub != nil {
				hub.DownstreamToolsListed(serviceID, connKey, tools)
			}
		},
		Tracing:         traces.proxy(),
		Events:          s.metrics.proxyEvents(),
		Version:         ReadBuildInfo().Version,
		Home:            cfg.Home,
		Logger:          s.log.With("component", "proxy"),
		IdleTimeout:     cfg.LocalIdleTimeout,
		SessionLinger:   cfg.LocalSessionLinger,
		MaxResultBytes:  cfg.ResultCap,
		ResultRetention: cfg.ResultRetention,
		ResultHardCap:   cfg.ResultHardCap,
		ResultDirCap:    cfg.ResultDirCap,
		ResultMemory:    cfg.ResultMemory,
		Launcher:        cfg.Launcher,
		Network:         cfg.Network,
	})
	s.push("proxy", px.Close)

	audit := audit.New(store, s.log.With("component", "audit"), audit.Config{Retention: cfg.AuditRetention})
	s.runAudit(audit)
	limiter := ratelimit.New(store, nil, s.log.With("component", "ratelimit"))
	s.runLimiter(limiter)
	s.svc = core.NewHub(store, px, sealer, nil, s.log, core.Config{
		ToolCalls:           toolCallSink{audit: audit, metrics: s.metrics},
		SessionIdleTimeout:  cfg.SessionIdleTimeout,
		MaxSessionsPerToken: cfg.MaxSessionsPerToken,
		DefaultDeck:         cfg.DefaultDeck,
		DefaultWorkspace:    cfg.DefaultWorkspace,
		AllowMetadataHosts:  cfg.AllowMetadataHosts,
		Redactor:            redactor,
		ServiceOAuth:        proxy.NewOAuthFlow(cfg.Network),

		PlaybookFetchRetention: cfg.PlaybookFetchRetention,
		PlaybookReview:         cfg.PlaybookReview,
		Limiter:                limiter,
		TokenLimits:            ratelimit.Limits{CallsPerMinute: cfg.TokenCallsPerMinute, ConcurrentCalls: cfg.TokenConcurrentCalls},
		ServiceLimits:          ratelimit.Limits{CallsPerMinute: cfg.ServiceCallsPerMinute, ConcurrentCalls: cfg.ServiceConcurrentCalls},
		ClientMetadataURL:      cfg.OAuthClientMetadataURL,
		ToolRanker:             toolsearch.New(),
		Markdown:               markdown.New(),
	})
	hub = s.svc
	s.push("tool search", func(context.Context) error { s.svc.Close(); return nil })
	s.auth = authserver.New(s.svc.Store(), s.svc, nil, s.log.With("component", "oauth-server"),
		authserver.Config{AccessTokenTTL: cfg.OAuthAccessTTL,
			AllowLoopbackHTTPClientIDs: cfg.OAuthAllowLoopbackHTTPClientIDs,
			RegistrationsPerMinute:     cfg.OAuthRegistrationsPerMinute,
			MaxClients:                 cfg.OAuthMaxClients, UnusedClientTTL: cfg.OAuthUnusedClientTTL})
	s.metrics.registry.MustRegister(newStateCollector(s.svc, store, audit, s.log.With("component", "metrics")),
		newRateLimitCollector(limiter))
	if err := s.svc.CheckSecretKey(ctx); err != nil {
		return nil, keyRefusal(err, cfg)
	}
	// Before the first request: every secret the database holds is masked from then on, on
	// this replica too, not only those of the services it has called.
	if err := s.svc.LearnHeldSecrets(ctx); err != nil {
		return nil, fmt.Errorf("loading the secrets to mask: %w", err)
	}
	if err := pendingKey.keep(); err != nil {
		return nil, err
	}
	if s.token, err = ensureAdminToken(ctx, s.svc, cfg.Home); err != nil {
		return nil, err
	}
	return s, s.listen(ctx)
}

// runAudit writes tool-call audit entries until the server closes; the closer waits for the
// last entries to be written.
func (s *Server) runAudit(audit *audit.Log) { s.runUntilClosed("tool-call audit", audit.Run) }

// runLimiter reports this replica's rate limit counts to the shared buckets until the server
// closes.
func (s *Server) runLimiter(lim *ratelimit.Limiter) { s.runUntilClosed("rate limiter", lim.Run) }

// runUntilClosed runs a background loop until the server closes; the closer cancels it and
// waits for it to return (or for the close's own deadline).
func (s *Server) runUntilClosed(name string, run func(context.Context)) {
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() {
		defer close(done)
		run(ctx)
	}()
	s.push(name, func(stop context.Context) error {
		cancel()
		select {
		case <-done:
			return nil
		case <-stop.Done():
			return stop.Err()
		}
	})
}

// openDatabase returns the database URL, starting the embedded cluster when none is configured,
// and applies the migrations.
func (s *Server) openDatabase(ctx context.Context) (string, error) {
	url := s.cfg.DatabaseURL
	if url == "" {
		// The home lock is held: a postgres still serving this home's data dir belongs to a serve
		// that is gone (its watchdog missed it), so the cluster may stop it; a live owner would
		// hold the lock, and the cluster itself refuses a server whose owner still runs.
		sysDir, err := systemDataDir(s.cfg.Home)
		if err != nil {
			return "", err
		}
		c, err := cluster.Start(ctx, cluster.Options{
			DataDir:       filepath.Join(s.cfg.Home, "postgres"),
			SystemDataDir: sysDir,
			StopOnExit:    true,
			Supervise:     true,
			Logger:        s.log.With("component", "postgres"),
		})
		if err != nil {
			return "", err
		}
		s.push("embedded postgres", func(ctx context.Context) error { return c.Stop(ctx) })
		s.dataDir = c.DataDir()
		if err := recordDataDir(s.cfg.Home, s.dataDir); err != nil {
			return "", err
		}
		url = c.URL("agentdeck")
	}
	if err := migrations.Up(ctx, url); err != nil {
		return "", fmt.Errorf("migrate database: %w", err)
	}
	return url, nil
}

func (s *Server) listen(ctx context.Context) error {
	ln, err := net.Listen("tcp", s.cfg.Addr)
	if err != nil {
		return fmt.Errorf("listen on %s: %w", s.cfg.Addr, err)
	}
	s.url = "http://" + ln.Addr().String()
	origins, err := backend.NewOriginPolicy(s.url, s.cfg.AllowOrigins)
	if err != nil {
		ln.Close()
		return err
	}
	mcp, err := mcptools.NewHandler(s.svc, mcptools.Options{
		Profile: s.cfg.Profile,
		Logger:  s.log.With("component", "mcp"),
		Origins: origins,
		Version: ReadBuildInfo().Version,
		Tracer:  s.tracing.mcp(),
		Bus:     s.bus,
	})
	if err != nil {
		ln.Close()
		return err
	}
	met := s.metrics
	mux := http.NewServeMux()
	mux.Handle("/mcp", mcp)
	opts := dashboardapi.Options{
		Logger:     s.log.With("component", "rest"),
		AuthServer: s.auth,
		Info:       s.info,
		Metrics:    met.handler(),
		Origins:    origins,
	}
	if s.cfg.Pprof {
		opts.Pprof = pprofHandler()
	}
	if o := s.cfg.OIDC; o.Issuer != "" {
		opts.OIDC = &dashboardapi.OIDCOptions{Issuer: o.Issuer, ClientID: o.ClientID, ClientSecret: o.ClientSecret,
			RedirectURL: o.RedirectURL}
	}
	dashboard := dashboardapi.Dashboard(s.svc, opts)
	mux.Handle("GET /{$}", dashboard)
	mux.Handle("GET /signin", dashboard)
	mux.Handle("GET /web/", dashboard)
	mux.Handle("/", dashboardapi.NewRouter(s.svc, opts))
	hs := newHTTPServer(met.wrap(s.tracing.wrap(mux)), s.cfg.HTTP)
	go func() {
		if err := hs.Serve(ln); err != nil && !errors.Is(err, http.ErrServerClosed) {
			s.log.Error("http server stopped", "err", err)
		}
	}()
	s.push("http server", hs.Shutdown)
	// Closed before the HTTP server, so open MCP streams end and Shutdown need not wait them out.
	s.push("mcp sessions", mcp.Close)
	info := client.ServerInfo{URL: s.url, PID: os.Getpid(), Database: s.databaseLabel(), Profile: s.cfg.Profile}
	if err := s.lock.record(info); err != nil {
		return err
	}
	if err := writeServerInfo(s.cfg.Home, info); err != nil {
		return fmt.Errorf("write server info: %w", err)
	}
	s.push("server info", func(context.Context) error {
		return os.Remove(filepath.Join(s.cfg.Home, serverInfoFile))
	})
	s.log.Info("agent deck ready", "url", s.url, "mcp", s.url+"/mcp", "profile", s.cfg.Profile, "home", s.cfg.Home)
	return nil
}

// info describes the running server for `agent-deck status`; it never includes the database URL,
// which may hold a password.
func (s *Server) info(context.Context) (map[string]any, error) {
	return map[string]any{
		"url":      s.url,
		"pid":      os.Getpid(),
		"home":     s.cfg.Home,
		"database": s.databaseLabel(),
		"profile":  s.cfg.Profile,
	}, nil
}

// databaseLabel names the database without the URL, which may hold a password.
func (s *Server) databaseLabel() string {
	if s.cfg.DatabaseURL == "" {
		return "embedded (" + s.dataDir + ")"
	}
	return "external (AGENT_DECK_DATABASE_URL)"
}

func (s *Server) push(name string, fn func(context.Context) error) {
	s.closers = append(s.closers, closer{name, fn})
}

// URL is the server's base URL, e.g. http://127.0.0.1:1110.
func (s *Server) URL() string { return s.url }

// AdminToken is the admin token from <home>/admin.token.
func (s *Server) AdminToken() string { return s.token }

// Service is the core the server runs, for tests that set up data directly.
func (s *Server) Service() *core.Hub { return s.svc }

// Close stops everything Start started, in reverse order.
func (s *Server) Close(ctx context.Context) error {
	var errs []error
	for i := len(s.closers) - 1; i >= 0; i-- {
		c := s.closers[i]
		if err := c.fn(ctx); err != nil {
			errs = append(errs, fmt.Errorf("stop %s: %w", c.name, err))
		}
		s.log.Debug("stopped", "part", c.name)
	}
	s.closers = nil
	return errors.Join(errs...)
}

// startExitCode is 1 for a start refused because of how the home is (owned by another serve,
// secret files open to others under --strict-perms, a secret key that does not match the
// database): the user must act. Anything else is 2.
func startExitCode(err error) int {
	var locked *HomeLockedError
	var perms *PermsError
	if errors.As(err, &locked) || errors.As(err, &perms) || errors.Is(err, errKeyRefused) {
		return 1
	}
	return 2
}

// newLogger logs at level to w, as text or, for log shippers, one JSON object per line.
func newLogger(w interface{ Write([]byte) (int, error) }, level, format string) *slog.Logger {
	var lv slog.Level
	if err := lv.UnmarshalText([]byte(level)); err != nil {
		lv = slog.LevelInfo
	}
	opts := &slog.HandlerOptions{Level: lv}
	if format == "json" {
		return slog.New(slog.NewJSONHandler(w, opts))
	}
	return slog.New(slog.NewTextHandler(w, opts))
}
