package backend

import (
	"net"
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
