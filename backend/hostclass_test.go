package backend_test

import (
	"net/netip"
	"testing"

	"github.com/agent-deck/agent-deck/backend"
)

// TestHostPolicyCheckDialed: the addresses a name resolves to meet the rules of the literal
// addresses they are, in every spelling the resolver can return.
func TestHostPolicyCheckDialed(t *testing.T) {
	strict, admin, operator := backend.HostPolicy{}, backend.HostPolicy{AllowPrivate: true},
		backend.HostPolicy{AllowMetadata: true}
	cases := []struct {
		addr                    string
		strict, admin, operator bool
	}{
		{"127.0.0.1", true, true, true},
		{"::1", true, true, true},
		{"203.0.113.7", true, true, true},
		{"2001:db8::1", true, true, true},
		{"10.0.0.1", false, true, false},
		{"::ffff:192.168.1.1", false, true, false},
		{"fd12::1", false, true, false},
		{"100.64.0.1", false, true, false},
		{"0.0.0.0", false, true, false},
		{"169.254.169.254", false, false, true},
		{"::ffff:169.254.169.254", false, false, true},
		{"64:ff9b::a9fe:a9fe", false, false, true},
		{"fe80::1%eth0", false, false, true},
		{"fd00:ec2::254", false, false, true},
		{"100.100.100.200", false, false, true},
	}
	for _, tc := range cases {
		a := netip.MustParseAddr(tc.addr)
		for _, p := range []struct {
			name   string
			policy backend.HostPolicy
			ok     bool
		}{{"strict", strict, tc.strict}, {"admin", admin, tc.admin}, {"operator", operator, tc.operator}} {
			err := p.policy.CheckDialed("name.example", a)
			if (err == nil) != p.ok {
				t.Errorf("%s under %s: %v, want ok=%v", tc.addr, p.name, err, p.ok)
			}
			if err != nil && (backend.ErrorCode(err) != backend.CodeForbidden || backend.AsError(err).Hint == "") {
				t.Errorf("%s under %s: %v, want FORBIDDEN with a hint", tc.addr, p.name, err)
			}
		}
	}
}
