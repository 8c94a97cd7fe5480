package proxy

import (
	"context"
	"net"
	"net/netip"
	"time"
)

// Network is how the proxy reaches remote hosts: resolving a name, and connecting to an address.
// The zero value uses the system's resolver and a plain dialer; tests inject both to send a name
// to an address of their choosing without touching the machine's DNS.
type Network struct {
	// LookupIP returns the addresses of a host name (default: net.DefaultResolver, "ip").
	LookupIP func(ctx context.Context, host string) ([]netip.Addr, error)
	// Dial connects to address, an "ip:port" (default: a net.Dialer).
	Dial func(ctx context.Context, network, address string) (net.Conn, error)
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

// dialContext resolves the host of address and connects to its addresses in turn, the first
// that answers winning.
func (n Network) dialContext(ctx context.Context, network, address string) (net.Conn, error) {
	host, port, err := net.SplitHostPort(address)
	if err != nil {
		return nil, err
	}
	addrs, err := n.resolve(ctx, host)
	if err != nil {
		return nil, err
	}
	var firstErr error
	for _, a := range addrs {
		c, err := n.Dial(ctx, network, net.JoinHostPort(a.String(), port))
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

// resolve returns a literal address as itself, and a name's addresses.
func (n Network) resolve(ctx context.Context, host string) ([]netip.Addr, error) {
	if a, err := netip.ParseAddr(host); err == nil {
		return []netip.Addr{a}, nil
	}
	addrs, err := n.LookupIP(ctx, host)
	if err != nil {
		return nil, &net.OpError{Op: "dial", Net: "tcp", Err: err}
	}
	if len(addrs) == 0 {
		return nil, &net.OpError{Op: "dial", Net: "tcp", Err: &net.DNSError{Err: "no addresses", Name: host, IsNotFound: true}}
	}
	return addrs, nil
}
