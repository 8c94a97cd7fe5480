package core

import (
	"context"
	"encoding/base64"
	"net/netip"
	"net/url"
	"slices"
	"strconv"
	"strings"

	"github.com/agent-deck/agent-deck/backend"
	"github.com/agent-deck/agent-deck/backend/secret"
)

// hostClass is where a service URL points, judged from the URL alone: the deck never resolves
// a name or sends traffic to decide it.
type hostClass int

const (
	hostPublic   hostClass = iota
	hostLoopback           // 127/8, ::1, localhost
	hostPrivate            // RFC 1918, CGNAT 100.64/10, ULA fc00::/7, unspecified, multicast
	hostMetadata           // link-local 169.254/16 and fe80::/10, cloud metadata addresses and names
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

// classifyHost judges a URL host (as url.URL.Hostname returns it). IPv4 in decimal, octal or
// hex forms and IPv4 embedded in IPv6 (mapped, NAT64) count as the address they spell.
func classifyHost(host string) hostClass {
	host = strings.TrimRight(strings.ToLower(strings.TrimSpace(host)), ".")
	if addr, ok := parseHostAddr(host); ok {
		return classifyAddr(addr)
	}
	switch {
	case host == "localhost" || strings.HasSuffix(host, ".localhost"):
		return hostLoopback
	case slices.Contains(metadataNames, host):
		return hostMetadata
	}
	return hostPublic
}

func classifyAddr(addr netip.Addr) hostClass {
	addr = addr.WithZone("").Unmap()
	if nat64.Contains(addr) {
		b := addr.As16()
		addr = netip.AddrFrom4([4]byte{b[12], b[13], b[14], b[15]})
	}
	switch {
	case containsAddr(metadataAddrs, addr) || inAny(linkLocalNets, addr) || addr.IsLinkLocalMulticast():
		return hostMetadata
	case addr.IsLoopback():
		return hostLoopback
	case inAny(privateNets, addr) || addr.IsUnspecified() || addr.IsMulticast() || addr.IsPrivate():
		return hostPrivate
	}
	return hostPublic
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

// checkServiceHost applies the target policy of SPEC §10 to a service URL: link-local and
// cloud-metadata hosts are refused for everyone unless Config.AllowMetadataHosts, private-range
// hosts need an admin token, loopback and public hosts are open to agents.
func (s *Hub) checkServiceHost(ctx context.Context, field, rawURL string) error {
	u, err := url.Parse(rawURL)
	if err != nil {
		return backend.Invalid(field, "is not a URL")
	}
	host := u.Hostname()
	switch classifyHost(host) {
	case hostMetadata:
		if s.cfg.AllowMetadataHosts {
			return nil
		}
		return backend.Errorf(backend.CodeForbidden, "%s: host %q is link-local or a cloud metadata address, which services may not use",
			field, backend.Clip(host, 100)).WithDetail("field", field).
			WithHint("point the service at a loopback, private or public host; an operator may allow these hosts " +
				"with agent-deck serve --allow-metadata-hosts (AGENT_DECK_ALLOW_METADATA_HOSTS)")
	case hostPrivate:
		if _, err := backend.RequireAdmin(ctx, "register a service on a private-range host"); err != nil {
			e := backend.AsError(err)
			e.Message = field + ": host " + strconv.Quote(backend.Clip(host, 100)) + " is in a private range; " + e.Message
			return e.WithDetail("field", field).
				WithHint("agents may use loopback and public hosts; ask an admin to register private-range hosts")
		}
	}
	return nil
}

// maskedURL is a service URL as every read shows it: stored userinfo replaced by MaskedValue.
// Sent back unchanged in a patch, it keeps the stored userinfo.
func maskedURL(rec backend.ServiceRecord) string {
	if len(rec.SealedUserinfo) == 0 || rec.URL == "" {
		return rec.URL
	}
	return strings.Replace(rec.URL, "://", "://"+backend.MaskedValue+"@", 1)
}

// sealUserinfo moves the userinfo of raw into rec.SealedUserinfo and the rest into rec.URL; a
// masked userinfo keeps the stored one, no userinfo clears it.
func (s *Hub) sealUserinfo(field, raw string, rec *backend.ServiceRecord) error {
	u, err := url.Parse(raw)
	if err != nil {
		return backend.Invalid(field, "is not a URL")
	}
	info := u.User
	u.User = nil
	rec.URL = raw
	if info == nil {
		rec.SealedUserinfo = nil
		return nil
	}
	rec.URL = u.String()
	if _, hasPass := info.Password(); info.Username() == backend.MaskedValue && !hasPass {
		if len(rec.SealedUserinfo) == 0 {
			return backend.Invalid(field, "the userinfo is %q but none is stored to keep; send the real user:password",
				backend.MaskedValue)
		}
		return nil
	}
	if pass, _ := info.Password(); strings.ContainsAny(info.Username()+pass, "\r\n\x00") {
		return backend.Invalid(field, "the userinfo must not contain CR, LF or NUL")
	}
	rec.SealedUserinfo, err = s.secrets.seal(backend.FieldServiceURLUserinfo, rec.ID, []byte(info.String()))
	return err
}

// basicAuthHeader turns opened URL userinfo (user:password, escaped as written) into an
// Authorization header value.
func basicAuthHeader(userinfo string) (string, error) {
	u, err := url.Parse("http://" + userinfo + "@h/")
	if err != nil || u.User == nil {
		return "", secret.Unreadable("", err)
	}
	pass, _ := u.User.Password()
	return "Basic " + base64.StdEncoding.EncodeToString([]byte(u.User.Username()+":"+pass)), nil
}
