package backend

import (
	"net/netip"
	"slices"
	"strconv"
	"strings"
)

// HostClass is where a host points: judged from a URL's text when a service is registered
// (ClassifyHost, which resolves nothing), and from each address the proxy dials for it
// (ClassifyAddr), so a name that resolves inward meets the rules of the address it spells.
type HostClass int

const (
	HostPublic   HostClass = iota
	HostLoopback           // 127/8, ::1, localhost
	HostPrivate            // RFC 1918, CGNAT 100.64/10, ULA fc00::/7, unspecified, multicast
	HostMetadata           // link-local 169.254/16 and fe80::/10, cloud metadata addresses and names
)

// metadataNames are cloud instance-metadata host names (compared lower-case, without a
// trailing dot).
var metadataNames = []string{
	"metadata", "metadata.google.internal", "metadata.goog", "instance-data",
	"instance-data.ec2.internal", "metadata.azure.internal", "metadata.platformequinix.com",
}

var (
	metadataAddrs = []netip.Addr{
		netip.MustParseAddr("169.254.169.254"), netip.MustParseAddr("fd00:ec2::254"),
		netip.MustParseAddr("100.100.100.200"), netip.MustParseAddr("169.254.170.2"),
	}
	linkLocalNets = []netip.Prefix{netip.MustParsePrefix("169.254.0.0/16"), netip.MustParsePrefix("fe80::/10")}
	privateNets   = []netip.Prefix{
		netip.MustParsePrefix("10.0.0.0/8"), netip.MustParsePrefix("172.16.0.0/12"),
		netip.MustParsePrefix("192.168.0.0/16"), netip.MustParsePrefix("100.64.0.0/10"),
		netip.MustParsePrefix("fc00::/7"), netip.MustParsePrefix("0.0.0.0/8"),
	}
	nat64 = netip.MustParsePrefix("64:ff9b::/96")
)

// ClassifyHost judges a URL host (as url.URL.Hostname returns it) without resolving it. IPv4 in decimal, octal or
// hex forms and IPv4 embedded in IPv6 (mapped, NAT64) count as the address they spell.
func ClassifyHost(host string) HostClass {
	host = strings.TrimRight(strings.ToLower(strings.TrimSpace(host)), ".")
	if addr, ok := parseHostAddr(host); ok {
		return ClassifyAddr(addr)
	}
	switch {
	case host == "localhost" || strings.HasSuffix(host, ".localhost"):
		return HostLoopback
	case slices.Contains(metadataNames, host):
		return HostMetadata
	}
	return HostPublic
}

func ClassifyAddr(addr netip.Addr) HostClass {
	addr = addr.WithZone("").Unmap()
	if nat64.Contains(addr) {
		b := addr.As16()
		addr = netip.AddrFrom4([4]byte{b[12], b[13], b[14], b[15]})
	}
	switch {
	case containsAddr(metadataAddrs, addr) || inAny(linkLocalNets, addr) || addr.IsLinkLocalMulticast():
		return HostMetadata
	case addr.IsLoopback():
		return HostLoopback
	case inAny(privateNets, addr) || addr.IsUnspecified() || addr.IsMulticast() || addr.IsPrivate():
		return HostPrivate
	}
	return HostPublic
}

// parseHostAddr reads host as an IP address, accepting the forms inet_aton accepts for IPv4
// (1 to 4 parts, each decimal, octal with a leading 0, or hex with 0x), since an HTTP client
// may connect to what they spell.
func parseHostAddr(host string) (netip.Addr, bool) {
	if addr, err := netip.ParseAddr(host); err == nil {
		return addr, true
	}
	parts := strings.Split(host, ".")
	if len(parts) > 4 {
		return netip.Addr{}, false
	}
	var nums []uint64
	for _, p := range parts {
		n, ok := parseInetPart(p)
		if !ok {
			return netip.Addr{}, false
		}
		nums = append(nums, n)
	}
	var v uint64
	for i, n := range nums[:len(nums)-1] {
		if n > 0xff {
			return netip.Addr{}, false
		}
		v |= n << (8 * (3 - i))
	}
	last := nums[len(nums)-1]
	if last >= 1<<(8*(5-len(nums))) {
		return netip.Addr{}, false
	}
	v |= last
	return netip.AddrFrom4([4]byte{byte(v >> 24), byte(v >> 16), byte(v >> 8), byte(v)}), true
}

func parseInetPart(p string) (uint64, bool) {
	base, digits := 10, p
	switch {
	case strings.HasPrefix(p, "0x"):
		base, digits = 16, p[2:]
		if digits == "" {
			return 0, true
		}
	case len(p) > 1 && p[0] == '0':
		base, digits = 8, p[1:]
	}
	n, err := strconv.ParseUint(digits, base, 32)
	return n, err == nil
}

func inAny(nets []netip.Prefix, addr netip.Addr) bool {
	for _, n := range nets {
		if n.Contains(addr) {
			return true
		}
	}
	return false
}

func containsAddr(list []netip.Addr, addr netip.Addr) bool {
	for _, a := range list {
		if a == addr {
			return true
		}
	}
	return false
}

// String names the class in messages.
func (c HostClass) String() string {
	switch c {
	case HostLoopback:
		return "a loopback address"
	case HostPrivate:
		return "a private-range address"
	case HostMetadata:
		return "a link-local or cloud metadata address"
	}
	return "a public address"
}

// HostPolicy is which addresses one service's connections may reach, decided by the core (who
// set the URL, what the operator allows) and applied by the proxy to every address it dials for
// the service, after name resolution and on every redirect. Loopback and public addresses are
// always allowed. The zero value is the strictest.
type HostPolicy struct {
	// AllowPrivate lets the service reach private-range addresses: an admin set its URL.
	AllowPrivate bool
	// AllowMetadata lets it reach link-local and cloud metadata addresses: the operator's
	// --allow-metadata-hosts.
	AllowMetadata bool
}

// Allows reports whether the policy lets a service reach an address of class c.
func (p HostPolicy) Allows(c HostClass) bool {
	switch c {
	case HostPrivate:
		return p.AllowPrivate
	case HostMetadata:
		return p.AllowMetadata
	}
	return true
}

// CheckDialed returns FORBIDDEN when host, dialed at addr, reaches an address the policy
// refuses; nil when it may be dialed.
func (p HostPolicy) CheckDialed(host string, addr netip.Addr) error {
	class := ClassifyAddr(addr)
	if p.Allows(class) {
		return nil
	}
	e := Errorf(CodeForbidden, "host %q resolves to %s, %s, which this service may not reach", Clip(host, 100), addr.String(), class).
		WithDetail("host", Clip(host, 100)).WithDetail("address", addr.String())
	if class == HostMetadata {
		return e.WithHint("point the service at a loopback, private or public host; an operator may allow these hosts " +
			"with agent-deck serve --allow-metadata-hosts (AGENT_DECK_ALLOW_METADATA_HOSTS)")
	}
	return e.WithHint("only a URL an admin set may reach a private-range address: an admin can save the service's url " +
		"(agent-deck service edit, or PATCH /api/v1/services/{id} with url), or point it at a public host")
}
