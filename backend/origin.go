package backend

import (
	"net"
	"net/netip"
	"net/url"
	"slices"
	"strings"
)

// OriginPolicy decides which browser origins may call the deck. A page on any web site can make
// the browser send requests to a local server (and DNS rebinding can make it look same-site), so
// a request that carries an Origin header is served only when that origin is local (localhost,
// 127.0.0.1 or [::1], any port), the server's own, or listed by the operator (--allow-origin).
// Requests without an Origin (the CLI, agents, scripts) are not browser requests and pass.
type OriginPolicy struct {
	own     string
	allowed []string
}

// NewOriginPolicy builds the policy of a server reachable at ownURL with the operator's list of
// extra origins, each scheme://host[:port].
func NewOriginPolicy(ownURL string, allowed []string) (OriginPolicy, error) {
	p := OriginPolicy{}
	if o, ok := normalOrigin(ownURL); ok {
		p.own = o
	}
	for _, a := range allowed {
		a = strings.TrimSpace(a)
		if a == "" {
			continue
		}
		o, ok := normalOrigin(a)
		if !ok {
			return OriginPolicy{}, Errorf(CodeInvalidArgument,
				"--allow-origin %q is not an origin; expected scheme://host[:port], e.g. https://deck.example.com", a)
		}
		p.allowed = append(p.allowed, o)
	}
	return p, nil
}

// Check returns FORBIDDEN for a request whose Origin header (origin, "" when absent) the policy
// does not accept.
func (p OriginPolicy) Check(origin string) error {
	if origin == "" {
		return nil
	}
	o, ok := normalOrigin(origin)
	if ok && (isLocalOrigin(o) || o == p.own || slices.Contains(p.allowed, o)) {
		return nil
	}
	return Errorf(CodeForbidden, "requests from the web origin %q are not accepted", Clip(origin, 100)).
		WithDetail("origin", Clip(origin, 100)).
		WithHint("only local pages may call the deck from a browser; to allow this origin, start the server " +
			"with --allow-origin " + Clip(origin, 100) + " (AGENT_DECK_ALLOW_ORIGIN)")
}

// CheckHost returns FORBIDDEN for a request whose Host header names a host the server does not
// answer to. It guards a loopback listener (local, the address the request arrived on) against
// DNS rebinding: a page whose name now resolves to 127.0.0.1 reaches the listener with its own
// name as Host. Loopback names and addresses, the server's own host and the hosts of the
// --allow-origin list (a public name a reverse proxy forwards) are served; a listener on any
// other address is reached by names the server cannot know, and serves every Host.
func (p OriginPolicy) CheckHost(host string, local net.Addr) error {
	if local == nil || !loopbackAddr(local) || loopbackHost(host) {
		return nil
	}
	name := hostName(host)
	for _, o := range append([]string{p.own}, p.allowed...) {
		if u, err := url.Parse(o); err == nil && o != "" && strings.EqualFold(u.Hostname(), name) {
			return nil
		}
	}
	return Errorf(CodeForbidden, "requests for host %q are not served here", Clip(host, 100)).
		WithDetail("host", Clip(host, 100)).
		WithHint("this server listens on loopback: reach it as 127.0.0.1 or localhost; to serve it under a public name " +
			"(a reverse proxy), start it with --allow-origin https://" + Clip(name, 100) + " (AGENT_DECK_ALLOW_ORIGIN)")
}

// loopbackHost reports whether addr (host, host:port or [ip]:port) is localhost, a name under
// .localhost, or a loopback address.
func loopbackHost(addr string) bool {
	host := strings.TrimSuffix(strings.ToLower(hostName(addr)), ".")
	if host == "localhost" || strings.HasSuffix(host, ".localhost") {
		return true
	}
	// net.ParseIP's reading (it refuses a zone), without allocating the address.
	ip, err := netip.ParseAddr(host)
	return err == nil && ip.Zone() == "" && ip.IsLoopback()
}

// loopbackAddr is loopbackHost(local.String()), reading a TCP address (every request's) in
// place rather than printing and parsing it again.
func loopbackAddr(local net.Addr) bool {
	a, ok := local.(*net.TCPAddr)
	if !ok || a == nil || a.Zone != "" {
		return loopbackHost(local.String())
	}
	return a.IP.IsLoopback()
}

// hostName is the host of a Host header or address, without its port or brackets.
func hostName(addr string) string {
	if host, _, err := net.SplitHostPort(addr); err == nil {
		return host
	}
	return strings.Trim(addr, "[]")
}

// normalOrigin turns scheme://host[:port] into its lower-case form; ok is false for anything
// else (a path, a query, userinfo, "null").
func normalOrigin(s string) (string, bool) {
	u, err := url.Parse(strings.TrimSpace(s))
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" || u.User != nil ||
		(u.Path != "" && u.Path != "/") || u.RawQuery != "" || u.Fragment != "" {
		return "", false
	}
	return strings.ToLower(u.Scheme + "://" + u.Host), true
}

func isLocalOrigin(o string) bool {
	u, err := url.Parse(o)
	if err != nil {
		return false
	}
	host := u.Hostname()
	if host == "localhost" {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && (ip.Equal(net.IPv4(127, 0, 0, 1)) || ip.Equal(net.IPv6loopback))
}
