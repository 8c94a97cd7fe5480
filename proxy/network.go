package proxy

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"maps"
	"net"
	"net/http"
	"net/netip"
	"net/url"
	"sync"
	"time"

	"github.com/agent-deck/agent-deck/backend"
)

// Network is how the proxy reaches remote hosts: resolving a name, and connecting to an address.
// The zero value uses the system's resolver and a plain dialer; tests inject both to send a name
// to an address of their choosing without touching the machine's DNS.
type Network struct {
	// LookupIP returns the addresses of a host name (default: net.DefaultResolver, "ip").
	LookupIP func(ctx context.Context, host string) ([]netip.Addr, error)
	// Dial connects to address, an "ip:port" (default: a net.Dialer).
	Dial func(ctx context.Context, network, address string) (net.Conn, error)
	// RootCAs are the authorities a remote server's certificate must chain to (default: the
	// system's); tests trust their own server's certificate with it.
	RootCAs *x509.CertPool
}

func (n Network) withDefaults(timeout time.Duration) Network {
	if n.LookupIP == nil {
		n.LookupIP = func(ctx context.Context, host string) ([]netip.Addr, error) {
			return net.DefaultResolver.LookupNetIP(ctx, "ip", host)
		}
	}
	if n.Dial == nil {
		n.Dial = (&net.Dialer{Timeout: timeout, KeepAlive: 30 * time.Second}).DialContext
	}
	return n
}

// refusedDialError is a connection the service's host policy refused; err is the policy's
// FORBIDDEN, which classify hands to the caller as it is.
type refusedDialError struct{ err *backend.Error }

func (e *refusedDialError) Error() string { return e.err.Message }

// guard reaches hosts for one service under its host policy. Every connection goes through
// dialContext, so every address is checked as it is dialed: after the name is resolved, on each
// redirect and reconnection, and for every host the service's OAuth metadata names. An HTTP
// proxy from the environment (the operator's) is dialed as it is, and the name it will resolve
// for us is checked before the request goes to it.
type guard struct {
	net   Network
	hosts backend.HostPolicy
	// proxies are the addresses of the environment's HTTP proxies seen so far.
	proxies sync.Map
}

func (n Network) guard(hosts backend.HostPolicy) *guard { return &guard{net: n, hosts: hosts} }

// transport is an HTTP transport like base whose every connection and proxy goes through g.
func (g *guard) transport(base *http.Transport) *http.Transport {
	tr := base.Clone()
	tr.DialContext = g.dialContext
	tr.Proxy = g.proxy
	if g.net.RootCAs != nil {
		if tr.TLSClientConfig == nil {
			tr.TLSClientConfig = &tls.Config{}
		}
		tr.TLSClientConfig.RootCAs = g.net.RootCAs
	}
	return tr
}

// dialContext resolves the host of address, refuses it when any of its addresses is one the
// policy refuses (a name that points inward at all is not trusted with the rest), and connects
// to its addresses in turn, the first that answers winning.
func (g *guard) dialContext(ctx context.Context, network, address string) (net.Conn, error) {
	host, port, err := net.SplitHostPort(address)
	if err != nil {
		return nil, err
	}
	addrs, err := g.resolve(ctx, host)
	if err != nil {
		return nil, err
	}
	if _, viaProxy := g.proxies.Load(address); !viaProxy {
		if err := g.check(host, addrs); err != nil {
			return nil, err
		}
	}
	var firstErr error
	for _, a := range addrs {
		c, err := g.net.Dial(ctx, network, net.JoinHostPort(a.String(), port))
		if err == nil {
			return c, nil
		}
		if firstErr == nil {
			firstErr = err
		}
		if ctx.Err() != nil {
			break
		}
	}
	return nil, firstErr
}

func (g *guard) check(host string, addrs []netip.Addr) error {
	for _, a := range addrs {
		if err := g.hosts.CheckDialed(host, a); err != nil {
			return &net.OpError{Op: "dial", Net: "tcp", Err: &refusedDialError{err: backend.AsError(err)}}
		}
	}
	return nil
}

// proxy picks the environment's HTTP proxy for req, as http.ProxyFromEnvironment does. The proxy
// resolves the request's host itself, out of reach of dialContext, so that host is resolved and
// checked here first; the proxy's own address is then dialed without the service's policy.
func (g *guard) proxy(req *http.Request) (*url.URL, error) {
	u, err := http.ProxyFromEnvironment(req)
	if u == nil || err != nil {
		return u, err
	}
	host := req.URL.Hostname()
	addrs, err := g.resolve(req.Context(), host)
	if err != nil {
		return nil, err
	}
	if err := g.check(host, addrs); err != nil {
		return nil, err
	}
	g.proxies.Store(proxyAddr(u), true)
	return u, nil
}

// proxyAddr is the address net/http dials for proxy u: its host and port, the scheme's default
// port when it names none.
func proxyAddr(u *url.URL) string {
	port := u.Port()
	if port == "" {
		port = map[string]string{"http": "80", "https": "443", "socks5": "1080", "socks5h": "1080"}[u.Scheme]
	}
	return net.JoinHostPort(u.Hostname(), port)
}

// resolve returns a literal address as itself, and a name's addresses.
func (g *guard) resolve(ctx context.Context, host string) ([]netip.Addr, error) {
	if a, err := netip.ParseAddr(host); err == nil {
		return []netip.Addr{a}, nil
	}
	addrs, err := g.net.LookupIP(ctx, host)
	if err == nil && len(addrs) == 0 {
		err = &net.DNSError{Err: "no addresses", Name: host, IsNotFound: true}
	}
	if err != nil {
		return nil, &net.OpError{Op: "dial", Net: "tcp", Err: err}
	}
	return addrs, nil
}

// refusedDial returns the policy's refusal inside err, if a dial was refused.
func refusedDial(err error) (*backend.Error, bool) {
	var r *refusedDialError
	if !errors.As(err, &r) {
		return nil, false
	}
	e := *r.err
	e.Details = maps.Clone(r.err.Details)
	return &e, true
}
