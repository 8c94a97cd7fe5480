package authserver

import (
	"errors"
	"net"
	"net/http"
	"net/netip"
	"syscall"
	"time"
)

// OAuth lifetimes: a code is exchanged by the client right after consent; an access token is
// short-lived (OAuthConfig.AccessTokenTTL); a refresh token keeps a client signed in for a month
// of disuse.
const (
	CodeTTL                   = time.Minute
	DefaultAccessTTL          = time.Hour
	RefreshTTL                = 30 * 24 * time.Hour
	RefreshPrefix             = "adr_"
	CodePrefix                = "ado_"
	maxClientMetadataBytes    = 64 << 10
	clientMetadataFetchTimout = 5 * time.Second
)

// OAuthConfig configures the OAuth authorization server.
type Config struct {
	// AccessTokenTTL is how long an issued access token works (default 1 h;
	// AGENT_DECK_OAUTH_ACCESS_TTL).
	AccessTokenTTL time.Duration
	// HTTPClient fetches Client ID Metadata Documents; nil uses a client with a short timeout
	// that follows no redirects.
	HTTPClient *http.Client
	// AllowLoopbackHTTPClientIDs accepts http://127.0.0.1… client ids (metadata documents
	// served by a test); only https client ids are accepted otherwise. Tests only.
	AllowLoopbackHTTPClientIDs bool
	// RegistrationsPerMinute bounds Dynamic Client Registration on each replica (default 10;
	// AGENT_DECK_OAUTH_REGISTRATIONS_PER_MINUTE), a minute's worth at once.
	RegistrationsPerMinute int
	// MaxClients bounds the registered clients (default 1000; AGENT_DECK_OAUTH_MAX_CLIENTS).
	MaxClients int
	// UnusedClientTTL is how long a registered client may take to complete a sign-in before it
	// expires and is pruned (default 1 h; AGENT_DECK_OAUTH_UNUSED_CLIENT_TTL).
	UnusedClientTTL time.Duration
}

func (c Config) withDefaults() Config {
	if c.AccessTokenTTL <= 0 {
		c.AccessTokenTTL = DefaultAccessTTL
	}
	if c.RegistrationsPerMinute <= 0 {
		c.RegistrationsPerMinute = DefaultRegistrationsPerMinute
	}
	if c.MaxClients <= 0 {
		c.MaxClients = DefaultMaxClients
	}
	if c.UnusedClientTTL <= 0 {
		c.UnusedClientTTL = DefaultUnusedClientTTL
	}
	if c.HTTPClient == nil {
		allowLoopback := c.AllowLoopbackHTTPClientIDs
		dialer := &net.Dialer{Timeout: clientMetadataFetchTimout, Control: func(_, address string, _ syscall.RawConn) error {
			return checkMetadataAddr(address, allowLoopback)
		}}
		c.HTTPClient = &http.Client{
			Timeout:       clientMetadataFetchTimout,
			Transport:     &http.Transport{DialContext: dialer.DialContext, Proxy: nil, TLSHandshakeTimeout: clientMetadataFetchTimout},
			CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse },
		}
	}
	return c
}

// checkMetadataAddr keeps Client ID Metadata Document fetches off this machine and the local
// network (an unauthenticated request names the URL): the address is checked as it is dialed,
// after name resolution, so a name that resolves inward is refused too.
func checkMetadataAddr(address string, allowLoopback bool) error {
	ap, err := netip.ParseAddrPort(address)
	if err != nil {
		return errors.New("client metadata: unexpected address")
	}
	ip := ap.Addr().Unmap()
	if allowLoopback && ip.IsLoopback() {
		return nil
	}
	if !ip.IsGlobalUnicast() || ip.IsPrivate() || ip.IsLoopback() || ip.IsLinkLocalUnicast() {
		return errors.New("client metadata: the address is not public")
	}
	return nil
}
