package backend_test

import (
	"net"
	"testing"

	"github.com/agent-deck/agent-deck/backend"
)

func TestOriginPolicy(t *testing.T) {
	p, err := backend.NewOriginPolicy("http://127.0.0.1:1110", []string{"https://Deck.Example.com", " http://10.0.0.5:8080 "})
	if err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		origin string
		ok     bool
	}{
		{"", true},
		{"http://localhost:5173", true},
		{"http://127.0.0.1", true},
		{"https://127.0.0.1:8443", true},
		{"http://[::1]:3000", true},
		{"http://127.0.0.1:1110", true},
		{"https://deck.example.com", true},
		{"http://10.0.0.5:8080", true},
		{"http://10.0.0.5:8081", false},
		{"http://deck.example.com", false},
		{"https://evil.example.com", false},
		{"http://localhost.evil.example.com", false},
		{"http://127.0.0.2", false},
		{"null", false},
		{"file://", false},
		{"http://localhost/path", false},
	}
	for _, tc := range cases {
		err := p.Check(tc.origin)
		if (err == nil) != tc.ok {
			t.Errorf("Origin %q: err %v, want allowed %v", tc.origin, err, tc.ok)
		}
		if err != nil && backend.ErrorCode(err) != backend.CodeForbidden {
			t.Errorf("Origin %q: code %s, want FORBIDDEN", tc.origin, backend.ErrorCode(err))
		}
	}
	for _, bad := range []string{"deck.example.com", "https://deck.example.com/app", "ftp://x", "null"} {
		if _, err := backend.NewOriginPolicy("", []string{bad}); err == nil {
			t.Errorf("--allow-origin %q accepted", bad)
		}
	}
}

// TestOriginPolicyHost: on a loopback listener only loopback names and addresses, the server's
// own host and the --allow-origin hosts are served (DNS rebinding); any other listener serves
// every Host.
func TestOriginPolicyHost(t *testing.T) {
	p, err := backend.NewOriginPolicy("http://127.0.0.1:1110", []string{"https://Deck.Example.com"})
	if err != nil {
		t.Fatal(err)
	}
	loopback := &net.TCPAddr{IP: net.IPv4(127, 0, 0, 1), Port: 1110}
	public := &net.TCPAddr{IP: net.IPv4(10, 0, 0, 5), Port: 1110}
	cases := []struct {
		host  string
		local net.Addr
		ok    bool
	}{
		{"127.0.0.1:1110", loopback, true},
		{"127.9.9.9", loopback, true},
		{"localhost:1110", loopback, true},
		{"LocalHost.", loopback, true},
		{"app.localhost:1110", loopback, true},
		{"[::1]:1110", loopback, true},
		{"deck.example.com", loopback, true},
		{"DECK.example.com:443", loopback, true},
		{"evil.example:1110", loopback, false},
		{"localhost.evil.example", loopback, false},
		{"deck.example.com.evil.example", loopback, false},
		{"10.0.0.5:1110", loopback, false},
		{"", loopback, false},
		{"evil.example", public, true},
		{"evil.example", nil, true},
	}
	for _, tc := range cases {
		err := p.CheckHost(tc.host, tc.local)
		if (err == nil) != tc.ok {
			t.Errorf("Host %q on %v: %v, want ok=%v", tc.host, tc.local, err, tc.ok)
		}
		if err != nil && backend.ErrorCode(err) != backend.CodeForbidden {
			t.Errorf("Host %q: code %s, want FORBIDDEN", tc.host, backend.ErrorCode(err))
		}
	}
}
