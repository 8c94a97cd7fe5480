package authserver

import "testing"

// TestAuthServerMetadataAddr: a Client ID Metadata Document is never fetched from this machine
// or the local network (SSRF through the public authorization endpoint).
func TestAuthServerMetadataAddr(t *testing.T) {
	for _, tt := range []struct {
		name, addr    string
		allowLoopback bool
		ok            bool
	}{
		{"public", "93.184.216.34:443", false, true},
		{"loopback", "127.0.0.1:443", false, false},
		{"loopback v6", "[::1]:443", false, false},
		{"private", "10.1.2.3:443", false, false},
		{"home network", "192.168.1.1:443", false, false},
		{"cloud metadata", "169.254.169.254:80", false, false},
		{"unspecified", "0.0.0.0:443", false, false},
		{"mapped loopback", "[::ffff:127.0.0.1]:443", false, false},
		{"loopback in tests", "127.0.0.1:8080", true, true},
		{"private in tests", "10.1.2.3:443", true, false},
	} {
		t.Run(tt.name, func(t *testing.T) {
			if err := checkMetadataAddr(tt.addr, tt.allowLoopback); (err == nil) != tt.ok {
				t.Fatalf("checkMetadataAddr(%s) = %v; want ok %v", tt.addr, err, tt.ok)
			}
		})
	}
}

// TestAuthServerRedirectURIs: registration accepts loopback redirect URIs only (https anywhere
// for a client proven by its metadata document), and a request matches a registered URI
// exactly or, on loopback http, up to the port.
func TestAuthServerRedirectURIs(t *testing.T) {
	for _, tt := range []struct {
		uri      string
		anyHTTPS bool
		ok       bool
	}{
		{"http://127.0.0.1:3000/callback", false, true},
		{"http://localhost:3000/callback", false, true},
		{"http://[::1]:3000/callback", false, true},
		{"https://evil.example/cb", false, false},
		{"https://app.example/cb", true, true},
		{"http://app.example/cb", true, false},
		{"http://127.0.0.1.evil.example/cb", false, false},
		{"http://127.0.0.1@evil.example/cb", false, false},
		{"http://127.0.0.1:1/cb#x", false, false},
		{"javascript:alert(1)", false, false},
		{"/relative", false, false},
	} {
		if err := checkRedirectURI(tt.uri, tt.anyHTTPS); (err == nil) != tt.ok {
			t.Errorf("checkRedirectURI(%q, %v) = %v; want ok %v", tt.uri, tt.anyHTTPS, err, tt.ok)
		}
	}
	reg := []string{"http://127.0.0.1:3000/callback"}
	for asked, ok := range map[string]bool{
		"http://127.0.0.1:3000/callback":   true,
		"http://127.0.0.1:4000/callback":   true,
		"http://127.0.0.1:4000/other":      false,
		"http://localhost:3000/callback":   false,
		"https://127.0.0.1:3000/callback":  false,
		"http://127.0.0.1:3000/callback?x": false,
	} {
		if got := redirectMatches(reg, asked); got != ok {
			t.Errorf("redirectMatches(%q) = %v; want %v", asked, got, ok)
		}
	}
}
