package backend

import (
	"net"
	"strings"
	"testing"
)

// loopbackHostParseIP is loopbackHost as it read the host with net.ParseIP: the reference.
func loopbackHostParseIP(addr string) bool {
	host := strings.TrimSuffix(strings.ToLower(hostName(addr)), ".")
	if host == "localhost" || strings.HasSuffix(host, ".localhost") {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

// FuzzLoopbackHost holds loopbackHost to net.ParseIP's reading, and loopbackAddr to reading
// the printed address.
func FuzzLoopbackHost(f *testing.F) {
	for _, s := range []string{"127.0.0.1:1110", "[::1]:1", "::1", "::1%lo", "[::1%lo]:80", "::ffff:127.0.0.1",
		"[::ffff:127.0.0.2]:9", "0127.0.0.1", "127.1", "10.0.0.5", "LOCALHOST.", "fe80::1%eth0", "", "[]", "1.2.3.4:"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, addr string) {
		if got, want := loopbackHost(addr), loopbackHostParseIP(addr); got != want {
			t.Fatalf("loopbackHost(%q) = %v, net.ParseIP reads %v", addr, got, want)
		}
		host, _, err := net.SplitHostPort(addr)
		if err != nil {
			host = addr
		}
		ip, zone, _ := strings.Cut(host, "%")
		for _, a := range []*net.TCPAddr{{IP: net.ParseIP(ip), Zone: zone, Port: 1}, {IP: []byte(ip), Port: 2}} {
			if got, want := loopbackAddr(a), loopbackHostParseIP(a.String()); got != want {
				t.Fatalf("loopbackAddr(%v) = %v, its printed form reads %v", a, got, want)
			}
		}
	})
}

func TestLoopbackAddrOddAddresses(t *testing.T) {
	var nilTCP *net.TCPAddr
	for _, tc := range []struct {
		a    net.Addr
		want bool
	}{
		{&net.TCPAddr{IP: net.IPv4(127, 0, 0, 1)}, true},
		{&net.TCPAddr{IP: net.IPv6loopback, Zone: "lo"}, false}, // as its printed form: ParseIP refuses a zone
		{&net.TCPAddr{}, false},
		{nilTCP, false},
		{&net.UnixAddr{Name: "/tmp/s", Net: "unix"}, false},
		{&net.UDPAddr{IP: net.IPv4(127, 0, 0, 1)}, true},
	} {
		if got := loopbackAddr(tc.a); got != tc.want || got != loopbackHostParseIP(tc.a.String()) {
			t.Errorf("loopbackAddr(%v) = %v, want %v", tc.a, got, tc.want)
		}
	}
}
