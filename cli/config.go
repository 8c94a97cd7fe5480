package cli

import (
	"cmp"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/urfave/cli/v2"
	"go.opentelemetry.io/otel/trace"

	"github.com/agent-deck/agent-deck/backend"
	"github.com/agent-deck/agent-deck/backend/audit"
	"github.com/agent-deck/agent-deck/backend/authserver"
	"github.com/agent-deck/agent-deck/backend/core"
	"github.com/agent-deck/agent-deck/proxy"
)

// Names of the global flags, shared by every command.
const (
	flagHome   = "home"
	flagServer = "server"
	flagToken  = "token"
)

// DefaultAddr is where `serve` listens and where clients look when nothing else is configured.
const DefaultAddr = "127.0.0.1:1110"

// serve's default limits of each token's proxied calls: far above what an agent at a person's
// pace makes, low enough to stop a loop from spending a paid API's quota in minutes.
const (
	DefaultTokenCallsPerMinute  = 600
	DefaultTokenConcurrentCalls = 32
)

func globalFlags() []cli.Flag {
	return []cli.Flag{
		&cli.StringFlag{Name: flagHome, EnvVars: []string{"AGENT_DECK_HOME"},
			Usage: "data home (database, secret key, admin token)", Value: defaultHome()},
		&cli.StringFlag{Name: flagServer, EnvVars: []string{backend.EnvServer},
			Usage: "deck server URL (default: the local one: <home>/server.json, else the last address in <home>/last-server.json, else http://" + DefaultAddr + ")"},
		&cli.StringFlag{Name: flagToken, EnvVars: []string{backend.EnvToken},
			Usage: "API token (default: <home>/admin.token, sent only to this machine's own server: the local one, or a --server equal to the URL in <home>/server.json)"},
	}
}

func defaultHome() string {
	if h, err := os.UserHomeDir(); err == nil {
		return filepath.Join(h, ".agent-deck")
	}
	return ".agent-deck"
}

// serveFlags are the settings of `agent-deck serve`; each has an environment variable.
func serveFlags() []cli.Flag {
	return []cli.Flag{
		&cli.StringFlag{Name: "addr", EnvVars: []string{"AGENT_DECK_ADDR"}, Value: DefaultAddr,
			Usage: "listen address (loopback unless --allow-remote)"},
		&cli.BoolFlag{Name: "allow-remote", EnvVars: []string{"AGENT_DECK_ALLOW_REMOTE"},
			Usage: "allow listening on a non-loopback address"},
		&cli.StringFlag{Name: "database-url", EnvVars: []string{"AGENT_DECK_DATABASE_URL"},
			Usage: "PostgreSQL URL; empty runs the embedded cluster under <home>/postgres (AGENT_DECK_DATABASE_URL_FILE reads it from a file)"},
		&cli.StringFlag{Name: "profile", EnvVars: []string{backend.EnvProfile}, Value: backend.DefaultProfile,
			Usage: "MCP tool profile: " + backend.ProfileChoices()},
		&cli.StringFlag{Name: "deck", EnvVars: []string{backend.EnvDeckID},
			Usage: "deck (id or name) new MCP sessions are bound to"},
		&cli.StringFlag{Name: "workspace", EnvVars: []string{"AGENT_DECK_WORKSPACE"},
			Usage: "workspace root new MCP sessions are bound to"},
		&cli.DurationFlag{Name: "session-idle-timeout", EnvVars: []string{"AGENT_DECK_SESSION_IDLE_TIMEOUT"},
			Value: 24 * time.Hour, Usage: "MCP sessions expire after this long without traffic"},
		&cli.IntFlag{Name: "max-sessions-per-token", EnvVars: []string{"AGENT_DECK_MAX_SESSIONS_PER_TOKEN"},
			Value: 200, Usage: "live MCP sessions one token may hold; opening one more expires its least recently used"},
		&cli.DurationFlag{Name: "oauth-access-ttl", EnvVars: []string{"AGENT_DECK_OAUTH_ACCESS_TTL"},
			Value: authserver.DefaultAccessTTL, Usage: "access tokens issued to OAuth clients expire after this long (they refresh by themselves)"},
		&cli.IntFlag{Name: "oauth-registrations-per-minute", EnvVars: []string{"AGENT_DECK_OAUTH_REGISTRATIONS_PER_MINUTE"},
			Value: authserver.DefaultRegistrationsPerMinute, Usage: "OAuth client registrations (POST /oauth/register) each replica accepts a minute; more get 429 with Retry-After"},
		&cli.IntFlag{Name: "oauth-max-clients", EnvVars: []string{"AGENT_DECK_OAUTH_MAX_CLIENTS"},
			Value: authserver.DefaultMaxClients, Usage: "registered OAuth clients kept; at the limit the oldest that never signed in makes room"},
		&cli.DurationFlag{Name: "oauth-unused-client-ttl", EnvVars: []string{"AGENT_DECK_OAUTH_UNUSED_CLIENT_TTL"},
			Value: authserver.DefaultUnusedClientTTL, Usage: "a registered OAuth client that completes no sign-in within this long expires and is deleted"},
		&cli.StringFlag{Name: "oauth-client-metadata-url", EnvVars: []string{"AGENT_DECK_OAUTH_CLIENT_METADATA_URL"},
			Usage: "https URL of Agent Deck's Client ID Metadata Document (served at /oauth/client-metadata.json), its client_id at services' authorization servers that support such documents; default: that path on the server's address when it is https"},
		&cli.DurationFlag{Name: "local-idle-timeout", EnvVars: []string{"AGENT_DECK_LOCAL_IDLE_TIMEOUT"},
			Value: 10 * time.Minute, Usage: "idle local MCP servers are stopped after this long"},
		&cli.DurationFlag{Name: "local-session-linger", EnvVars: []string{"AGENT_DECK_LOCAL_SESSION_LINGER"},
			Value: 5 * time.Second, Usage: "a local MCP server is stopped this long after the last agent session that called it ended"},
		&cli.IntFlag{Name: "result-cap", EnvVars: []string{"AGENT_DECK_RESULT_CAP"}, Value: 48 * 1024,
			Usage: "tool results larger than this many bytes are spilled to <home>/tool-results"},
		&cli.DurationFlag{Name: "result-retention", EnvVars: []string{"AGENT_DECK_RESULT_RETENTION"}, Value: 24 * time.Hour,
			Usage: "spilled tool results are deleted after this long"},
		&cli.IntFlag{Name: "result-hard-cap", EnvVars: []string{"AGENT_DECK_RESULT_HARD_CAP"}, Value: 32 << 20,
			Usage: "downstream results larger than this many bytes are cut off and the call fails with DOWNSTREAM_RESULT_TOO_LARGE"},
		&cli.Int64Flag{Name: "result-memory", EnvVars: []string{"AGENT_DECK_RESULT_MEMORY"},
			Usage: "bytes of memory downstream results may take at once across all calls (each byte read counts twice: as read and decoded); a call over it waits for room; 0 = 4 × --result-hard-cap (128 MiB), the least allowed"},
		&cli.Int64Flag{Name: "result-dir-cap", EnvVars: []string{"AGENT_DECK_RESULT_DIR_CAP"}, Value: 1 << 30,
			Usage: "total bytes kept in <home>/tool-results; the oldest files are deleted first"},
		&cli.BoolFlag{Name: "strict-perms", EnvVars: []string{"AGENT_DECK_STRICT_PERMS"},
			Usage: "refuse to start when secret.key or admin.token can be read by other users (else a warning)"},
		&cli.StringSliceFlag{Name: "allow-origin", EnvVars: []string{"AGENT_DECK_ALLOW_ORIGIN"},
			Usage: "a browser origin (scheme://host[:port]) allowed to call /mcp and /api/v1 besides local ones; repeatable or comma-separated"},
		&cli.StringFlag{Name: "log-level", EnvVars: []string{"AGENT_DECK_LOG_LEVEL"}, Value: "info",
			Usage: "debug, info, warn or error"},
		&cli.DurationFlag{Name: "playbook-fetch-retention", EnvVars: []string{"AGENT_DECK_PLAYBOOK_FETCH_RETENTION"},
			Value: core.DefaultPlaybookFetchRetention, Usage: "get_playbook fetch events are deleted after this long"},
		&cli.IntFlag{Name: "token-calls-per-minute", EnvVars: []string{"AGENT_DECK_TOKEN_CALLS_PER_MINUTE"}, Value: DefaultTokenCallsPerMinute,
			Usage: "proxied calls each token may make a minute, a minute's worth at once (0: no limit); more get RATE_LIMITED / 429"},
		&cli.IntFlag{Name: "token-concurrent-calls", EnvVars: []string{"AGENT_DECK_TOKEN_CONCURRENT_CALLS"}, Value: DefaultTokenConcurrentCalls,
			Usage: "proxied calls each token may have in flight at once (0: no limit)"},
		&cli.IntFlag{Name: "service-calls-per-minute", EnvVars: []string{"AGENT_DECK_SERVICE_CALLS_PER_MINUTE"},
			Usage: "default calls a minute to each service through each deck (0: no limit); agent-deck deck limits and service limits override it"},
		&cli.IntFlag{Name: "service-concurrent-calls", EnvVars: []string{"AGENT_DECK_SERVICE_CONCURRENT_CALLS"},
			Usage: "default calls in flight at once to each service through each deck (0: no limit)"},
		&cli.BoolFlag{Name: "playbook-review", EnvVars: []string{"AGENT_DECK_PLAYBOOK_REVIEW"},
			Usage: "hold agent tokens' playbook writes for review (as proposals a person accepts) on decks without their own setting (agent-deck deck review)"},
		&cli.BoolFlag{Name: "allow-metadata-hosts", EnvVars: []string{"AGENT_DECK_ALLOW_METADATA_HOSTS"},
			Usage: "let services use link-local and cloud-metadata hosts (169.254.169.254, metadata.google.internal, …)"},
		&cli.BoolFlag{Name: "pprof", EnvVars: []string{"AGENT_DECK_PPROF"},
			Usage: "serve Go runtime profiles at /debug/pprof/ to admin tokens"},
		&cli.DurationFlag{Name: "audit-retention", EnvVars: []string{"AGENT_DECK_AUDIT_RETENTION"}, Value: audit.DefaultAuditRetention,
			Usage: "tool-call audit entries older than this are deleted (checked hourly)"},
		&cli.StringFlag{Name: "log-format", EnvVars: []string{"AGENT_DECK_LOG_FORMAT"}, Value: "text",
			Usage: "text or json (one JSON object per line, for log shippers)"},
		&cli.StringFlag{Name: "oidc-issuer", EnvVars: []string{"AGENT_DECK_OIDC_ISSUER"},
			Usage: "OpenID Connect provider (issuer URL) people sign in to the dashboard with; their verified e-mail or subject maps to a person"},
		&cli.StringFlag{Name: "oidc-client-id", EnvVars: []string{"AGENT_DECK_OIDC_CLIENT_ID"},
			Usage: "client id of Agent Deck at the OpenID Connect provider"},
		&cli.StringFlag{Name: "oidc-client-secret-file", EnvVars: []string{"AGENT_DECK_OIDC_CLIENT_SECRET_FILE"},
			Usage: "file holding the client secret at the OpenID Connect provider (or set AGENT_DECK_OIDC_CLIENT_SECRET; never on the command line)"},
		&cli.StringFlag{Name: "oidc-redirect-url", EnvVars: []string{"AGENT_DECK_OIDC_REDIRECT_URL"},
			Usage: "redirect URL registered at the provider (default: <this server>/api/v1/dashboard/oidc/callback as the browser reaches it)"},
	}
}

// ServeConfig is everything `serve` needs, built once from flags and environment (or by tests).
type ServeConfig struct {
	Home               string
	Addr               string
	AllowRemote        bool
	DatabaseURL        string
	SecretKey          string // base64 of 32 bytes; empty = <Home>/secret.key
	Profile            string
	DefaultDeck        string
	DefaultWorkspace   string
	SessionIdleTimeout time.Duration
	// MaxSessionsPerToken caps one token's live MCP sessions; 0 means the default (200).
	MaxSessionsPerToken int
	// OAuthAccessTTL is the lifetime of access tokens issued to OAuth clients; 0 means 1 h.
	OAuthAccessTTL time.Duration
	// OAuthRegistrationsPerMinute, OAuthMaxClients and OAuthUnusedClientTTL bound Dynamic
	// Client Registration (authserver.Config); 0 takes the defaults.
	OAuthRegistrationsPerMinute int
	OAuthMaxClients             int
	OAuthUnusedClientTTL        time.Duration
	// OAuthAllowLoopbackHTTPClientIDs accepts http loopback Client ID Metadata Document URLs.
	// Tests only; there is no flag.
	OAuthAllowLoopbackHTTPClientIDs bool
	LocalIdleTimeout                time.Duration
	LocalSessionLinger              time.Duration
	ResultCap                       int
	ResultRetention                 time.Duration
	ResultHardCap                   int   // bytes; 0 = 32 MiB
	ResultDirCap                    int64 // bytes; 0 = 1 GiB
	// ResultMemory bounds the memory of downstream results held at once; 0 = 4 × ResultHardCap.
	ResultMemory int64
	LogLevel     string
	// LogFormat is text (default) or json.
	LogFormat          string
	AllowMetadataHosts bool
	// AuditRetention is how long tool-call audit entries are kept; 0 means 30 days.
	AuditRetention time.Duration
	// PlaybookFetchRetention is how long get_playbook fetch events are kept; 0 = 90 days.
	PlaybookFetchRetention time.Duration
	// PlaybookReview holds agent tokens' playbook writes for review on decks without their
	// own setting (--playbook-review).
	PlaybookReview bool
	// TokenCallsPerMinute and TokenConcurrentCalls bound every token's proxied calls;
	// ServiceCallsPerMinute and ServiceConcurrentCalls are the default bounds of a service's
	// calls through a deck. 0 is no limit (serve's flags default to DefaultTokenCallsPerMinute
	// and DefaultTokenConcurrentCalls for tokens).
	TokenCallsPerMinute, TokenConcurrentCalls     int
	ServiceCallsPerMinute, ServiceConcurrentCalls int
	// OAuthClientMetadataURL is the https URL of Agent Deck's own Client ID Metadata Document,
	// its client_id at services' authorization servers that support such documents.
	OAuthClientMetadataURL string
	// OIDC turns on dashboard sign-in through an OpenID Connect provider (empty Issuer: off).
	OIDC OIDCConfig

	// Launcher is the argv prefix local servers are started through (proxy.Options.Launcher).
	// serve sets it to its own binary; an embedding (tests calling Start) may leave it empty.
	Launcher []string
	// StrictPerms refuses to start when a secret file in Home has group or other permissions.
	StrictPerms bool
	// AllowOrigins are browser origins accepted besides local ones (--allow-origin).
	AllowOrigins []string
	// HTTP bounds slow and idle clients; the zero value takes the defaults.
	HTTP HTTPLimits
	// Pprof serves the Go runtime profiles at /debug/pprof/ to admin tokens (--pprof); off, the
	// path does not exist.
	Pprof bool
	// Logger receives structured logs; nil logs text to stderr at LogLevel.
	Logger *slog.Logger
	// TracerProvider, when set, receives the spans (tests pass an in-process recorder);
	// nil traces only when OTEL_EXPORTER_OTLP_ENDPOINT is set (tracing.go).
	TracerProvider trace.TracerProvider
	// Network resolves and dials downstream services and their authorization servers; the zero
	// value is the system's. Tests only (a name sent to an address of their choosing); no flag.
	Network proxy.Network
}

func serveConfigFrom(c *cli.Context) ServeConfig {
	return ServeConfig{
		Home:                        global(c, flagHome),
		Addr:                        c.String("addr"),
		AllowRemote:                 c.Bool("allow-remote"),
		DatabaseURL:                 c.String("database-url"),
		SecretKey:                   os.Getenv(envSecretKey),
		Profile:                     c.String("profile"),
		DefaultDeck:                 c.String("deck"),
		DefaultWorkspace:            c.String("workspace"),
		SessionIdleTimeout:          c.Duration("session-idle-timeout"),
		MaxSessionsPerToken:         c.Int("max-sessions-per-token"),
		OAuthAccessTTL:              c.Duration("oauth-access-ttl"),
		OAuthRegistrationsPerMinute: c.Int("oauth-registrations-per-minute"),
		OAuthMaxClients:             c.Int("oauth-max-clients"),
		OAuthUnusedClientTTL:        c.Duration("oauth-unused-client-ttl"),
		LocalIdleTimeout:            c.Duration("local-idle-timeout"),
		LocalSessionLinger:          c.Duration("local-session-linger"),
		ResultCap:                   c.Int("result-cap"),
		ResultRetention:             c.Duration("result-retention"),
		ResultHardCap:               c.Int("result-hard-cap"),
		ResultDirCap:                c.Int64("result-dir-cap"),
		ResultMemory:                c.Int64("result-memory"),
		LogLevel:                    c.String("log-level"),
		LogFormat:                   c.String("log-format"),
		AllowMetadataHosts:          c.Bool("allow-metadata-hosts"),
		AuditRetention:              c.Duration("audit-retention"),
		StrictPerms:                 c.Bool("strict-perms"),
		AllowOrigins:                c.StringSlice("allow-origin"),
		Pprof:                       c.Bool("pprof"),

		PlaybookFetchRetention: c.Duration("playbook-fetch-retention"),
		PlaybookReview:         c.Bool("playbook-review"),
		TokenCallsPerMinute:    c.Int("token-calls-per-minute"),
		TokenConcurrentCalls:   c.Int("token-concurrent-calls"),
		ServiceCallsPerMinute:  c.Int("service-calls-per-minute"),
		ServiceConcurrentCalls: c.Int("service-concurrent-calls"),
		OAuthClientMetadataURL: c.String("oauth-client-metadata-url"),
		OIDC: OIDCConfig{Issuer: c.String("oidc-issuer"), ClientID: c.String("oidc-client-id"),
			ClientSecret: os.Getenv(envOIDCClientSecret), RedirectURL: c.String("oidc-redirect-url")},
	}
}

// OIDCConfig is the OpenID Connect provider people sign in to the dashboard with.
type OIDCConfig struct {
	Issuer       string
	ClientID     string
	ClientSecret string
	RedirectURL  string
}

// check refuses a half-configured provider.
func (o OIDCConfig) check() error {
	if o.Issuer == "" {
		if o.ClientID != "" || o.ClientSecret != "" || o.RedirectURL != "" {
			return errors.New("--oidc-client-id, the client secret and --oidc-redirect-url need --oidc-issuer (AGENT_DECK_OIDC_ISSUER)")
		}
		return nil
	}
	if u, err := url.Parse(o.Issuer); err != nil || (u.Scheme != "https" && u.Scheme != "http") || u.Host == "" {
		return fmt.Errorf("--oidc-issuer %q: expected the provider's issuer URL, such as https://accounts.example.com", o.Issuer)
	}
	if o.ClientID == "" {
		return errors.New("--oidc-issuer needs --oidc-client-id (AGENT_DECK_OIDC_CLIENT_ID): the client Agent Deck is at the provider")
	}
	if o.RedirectURL != "" {
		if u, err := url.Parse(o.RedirectURL); err != nil || u.Host == "" || !strings.HasSuffix(u.Path, "/api/v1/dashboard/oidc/callback") {
			return fmt.Errorf("--oidc-redirect-url %q: expected https://HOST/api/v1/dashboard/oidc/callback", o.RedirectURL)
		}
	}
	return nil
}

func (c ServeConfig) validate() error {
	if !backend.IsProfile(c.Profile) {
		return fmt.Errorf("--profile %q: expected %s", c.Profile, backend.ProfileChoices())
	}
	if c.Home == "" {
		return fmt.Errorf("--home: a data home directory is required")
	}
	if c.MaxSessionsPerToken < 0 {
		return fmt.Errorf("--max-sessions-per-token %d: expected a positive number of sessions", c.MaxSessionsPerToken)
	}
	if c.LogFormat != "" && c.LogFormat != "text" && c.LogFormat != "json" {
		return fmt.Errorf("--log-format %q: expected text or json", c.LogFormat)
	}
	if c.AuditRetention < 0 {
		return fmt.Errorf("--audit-retention %s: expected a positive duration such as 720h", c.AuditRetention)
	}
	if c.OAuthAccessTTL < 0 {
		return fmt.Errorf("--oauth-access-ttl %s: expected a positive duration", c.OAuthAccessTTL)
	}
	if hardCap := cmp.Or(c.ResultHardCap, 32<<20); c.ResultMemory != 0 && c.ResultMemory < proxy.MinResultMemory(hardCap) {
		return fmt.Errorf("--result-memory %d: expected at least %d bytes, 4 × --result-hard-cap (room for two whole results, each counted twice)",
			c.ResultMemory, proxy.MinResultMemory(hardCap))
	}
	for flag, v := range map[string]int{"--token-calls-per-minute": c.TokenCallsPerMinute, "--token-concurrent-calls": c.TokenConcurrentCalls,
		"--service-calls-per-minute": c.ServiceCallsPerMinute, "--service-concurrent-calls": c.ServiceConcurrentCalls} {
		if v < 0 {
			return fmt.Errorf("%s %d: expected 0 (no limit) or a positive number", flag, v)
		}
	}
	if c.OAuthRegistrationsPerMinute < 0 || c.OAuthMaxClients < 0 || c.OAuthUnusedClientTTL < 0 {
		return fmt.Errorf("--oauth-registrations-per-minute, --oauth-max-clients and --oauth-unused-client-ttl: expected positive values")
	}
	if err := checkClientMetadataURL(c.OAuthClientMetadataURL); err != nil {
		return err
	}
	if err := c.OIDC.check(); err != nil {
		return err
	}
	if _, err := backend.NewOriginPolicy("", c.AllowOrigins); err != nil {
		return errors.New(backend.AsError(err).Message)
	}
	return checkListenAddr(c.Addr, c.AllowRemote)
}

// checkListenAddr keeps the server on loopback unless the operator opted out (SPEC §10).
func checkListenAddr(addr string, allowRemote bool) error {
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		return fmt.Errorf("--addr %q: expected host:port", addr)
	}
	if allowRemote {
		return nil
	}
	if host == "localhost" {
		return nil
	}
	if ip := net.ParseIP(host); ip != nil && ip.IsLoopback() {
		return nil
	}
	return fmt.Errorf("--addr %q is not a loopback address; pass --allow-remote (AGENT_DECK_ALLOW_REMOTE=1) to listen there", addr)
}

// checkClientMetadataURL accepts an https URL with a path, as the Client ID Metadata Document
// draft requires of a client_id (an authorization server fetches it); empty is fine.
func checkClientMetadataURL(raw string) error {
	if raw == "" {
		return nil
	}
	u, err := url.Parse(raw)
	if err != nil || u.Scheme != "https" || u.Host == "" || u.Path == "" || u.Path == "/" || u.Fragment != "" || u.User != nil {
		return fmt.Errorf("--oauth-client-metadata-url %q: expected an https URL with a path, such as https://deck.example.com/oauth/client-metadata.json", raw)
	}
	return nil
}
