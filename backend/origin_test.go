package backend_test

import (
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
